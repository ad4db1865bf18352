// Package inputs turns the Action's INPUT_* variables or the CLI's flags into one validated Config.
//
// One table, Definitions, is the single source of truth for the input names, defaults and
// descriptions: the CLI flags and the INPUT_* names come from it, and go generate writes
// action.yml and docs/inputs.md from it (and docs/outputs.md from report.Outputs); a test
// fails when the committed files differ from what it would write. A rarely set input is a key
// of a map input (docker, triage, hooks, timeouts), checked as an input is.
//
// The package is pure. It never reads the process environment, never execs, and Load reads
// files only through the functions in Env, so the composition root decides what "the
// environment" is and tests need no real files; ReadRegular is Env.ReadFile for the real file
// system. Load reports every problem at once (errors.Join), each a *Problem
// naming its input and what would be valid, because a CI user who fixes one input per run waits
// minutes for each round trip. A misspelt input is named with the one most likely meant: an
// unknown flag is a Problem, and an INPUT_* variable that is no input (UnknownVariables) a
// warning, since the runner sets whatever a workflow's with: holds.
package inputs

//go:generate go run ./gen -root ../..
