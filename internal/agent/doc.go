// Package agent turns one iteration of an agent CLI into a command line and its stdout stream
// into events. It is pure: no exec, no Docker, no environment reads.
package agent
