package sandbox

import "context"

// Exec describes one process to run in a sandbox. Argv is never passed through a shell;
// use []string{"sh", "-c", cmd} for shell text.
type Exec struct {
	Argv  []string
	Dir   string            // working directory inside the sandbox; "" = RepoDir()
	Env   map[string]string // added to the sandbox environment for this process only
	Stdin string            // written to the process's stdin, then closed
	// OnLine, when set, receives each stdout line (without the newline) as it arrives, in order,
	// from a single goroutine. When nil, stdout is returned in Result.Stdout.
	OnLine func(line []byte)
}

// Result is how a process ended.
type Result struct {
	ExitCode int    // the exit status; 128+N when killed by signal N
	Signaled bool   // the process was ended by a signal
	Stdout   string // only when Exec.OnLine is nil
	Stderr   string // the last 64 KiB of stderr
}

// Sandbox runs processes against the workspace.
type Sandbox interface {
	// Exec runs e and waits for it. When ctx ends first, the process and everything it started are
	// killed, and Exec returns the Result so far with an error wrapping context.Cause(ctx).
	Exec(ctx context.Context, e Exec) (Result, error)
	// RepoDir is the workspace path as seen inside the sandbox.
	RepoDir() string
	// Close stops everything still running and releases the sandbox. It is idempotent.
	Close(ctx context.Context) error
}

// StderrTail is how much of stderr a Result keeps.
const StderrTail = 64 << 10
