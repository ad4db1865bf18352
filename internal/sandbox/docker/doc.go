// Package docker runs sandboxes as Docker containers through the Engine API: it is the
// `sandbox: docker` implementation of sandbox.Sandbox, and the only importer of the Docker client.
//
// One container serves a whole run. It keeps itself alive with its own command (never the image's
// entrypoint), has an init process as PID 1 to reap orphans, and is hardened by default: a
// non-root numeric user, no capabilities, no-new-privileges, pids and memory limits, and never
// the Docker socket. HOME (/home/agent) is a fresh tmpfs owned by that user, so an image needs no
// matching user entry; it hides whatever the image put there (see Options.ImageHome).
//
// The Engine API cannot signal an exec'd process, so every Exec runs under a small shell wrapper
// that starts the command in a new session, and so a new process group, and records the group's
// id in a tmpfs private to the container user; stopping an Exec is another exec that signals
// that group. An image therefore needs /bin/sh, setsid (util-linux or busybox), sleep and cat;
// Start checks for them. A process that leaves the group (setsid, a daemon) is not stopped with it;
// when it keeps the Exec's output open, the daemon closes that output about two seconds after
// the Exec's process exits, and also delays the next exec by as much.
//
// Where the daemon cannot mount the workspace (it runs beside us and cannot see our files),
// CopyIn puts a directory into the container as a tar archive owned by the container user, and
// CopyOut brings a single file back.
//
// The Engine API reports a process killed by signal N as exit code 128+N, as a shell does, so
// Result.Signaled is a reading of the exit code: 129 to 192 count as signals, including from a
// process that exits with such a code itself.
package docker
