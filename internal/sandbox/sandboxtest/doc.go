// Package sandboxtest tests that an implementation of sandbox.Sandbox keeps the interface's
// contract, in the way testing/fstest tests an fs.FS: each implementation's tests call Run with
// a function that makes a sandbox, and keep to themselves only what is theirs alone (the
// hardening of a container, the host's environment, sweeps).
//
// Everything the suite checks it checks through Exec, inside the sandbox: files, fifos and the
// liveness of processes are made and read by commands, so the same cases run where the sandbox's
// paths and process ids are not the test's (a container). The commands need a POSIX shell and
// the usual utilities: head, tr, cut, mkfifo, setsid, sleep with fractions of a second.
package sandboxtest
