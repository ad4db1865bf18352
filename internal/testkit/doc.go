// Package testkit holds the small helpers that tests of every tier share: RequireBinary and
// RequireRoot (skip locally, fail under CI=true: SkipOrFail), Golden files, SyncBuffer and
// RunnerCommands for a run's log, CopySandbox, Render and LiveReferences for GitHub's markdown,
// and GitServer, a git smart-HTTP remote that checks the push token.
//
// What the tests fake has packages of its own, so that a test links only what it fakes:
// githubfake (the GitHub REST and GraphQL APIs), models (the Anthropic and OpenAI model APIs,
// scripted by steps), fakeclaude (the claude CLI, scripted by the same steps) and actkit
// (workflows under nektos/act and the Docker engine's helpers, for the Docker tier alone).
package testkit
