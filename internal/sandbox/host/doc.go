// Package host runs sandbox processes directly on the host, with no isolation: it is the
// `sandbox: none` implementation of sandbox.Sandbox.
//
// Each process leads its own process group, so stopping it reaches everything it started.
// A process's background children do not outlive its Exec: on the host nothing would ever clean
// them up (the reference leaks them). A command that must leave a daemon running has to detach it
// from the group itself (setsid). Linux only.
package host
