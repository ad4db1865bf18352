// Package scaffold writes the starter files of `sandcastle init` into a repository: the sandbox
// image's Dockerfile, the .sandcastle/ ignore and env example files, and either a prompt
// template with a GitHub workflow that runs the action on labelled issues, or one workflow for
// each mode asked for (implement, pr, review, triage), which runs the mode's built-in prompt.
//
// The files come from templates embedded in the binary. The Dockerfile starts from the agent's
// published sandbox image of this release (internal/release), which carries the agent CLI; the
// actions the workflow uses are pinned in pins.go. Write never overwrites a file unless asked
// to, and when it refuses it writes nothing at all.
package scaffold
