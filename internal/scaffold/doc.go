// Package scaffold writes the starter files of `sandcastle init` into a repository: the sandbox
// image's Dockerfile, a prompt template, the .sandcastle/ ignore and env example files, and a
// GitHub workflow that runs the action on labelled issues.
//
// The files come from templates embedded in the binary. The Dockerfile starts from the agent's
// published sandbox image of this release (internal/release), which carries the agent CLI; the
// actions the workflow uses are pinned in pins.go. Write never overwrites a file unless asked
// to, and when it refuses it writes nothing at all.
package scaffold
