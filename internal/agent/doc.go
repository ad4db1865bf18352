// Package agent turns one iteration of an agent CLI into a command line and its stdout stream
// into events. It is pure: no exec, no Docker, no environment reads.
//
// Each CLI is a Provider: a Spec, the facts a caller checks inputs against (program, models,
// efforts, permission modes, credentials, prompt limit, sessions), plus Command and Parse, the
// two things that differ from one CLI to the next. Callers declare the methods they call.
package agent
