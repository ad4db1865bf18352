package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Repo runs git commands in one directory. The zero Env is an empty base environment; use New
// to inherit the process environment.
type Repo struct {
	Dir string
	// Env is the base environment, KEY=VALUE. Repository-locating variables are removed from it
	// before every command, and the hermetic settings are added.
	Env []string
	// Config holds key=value pairs handed to every command through GIT_CONFIG_COUNT (git 2.31+),
	// as if given with -c: no config file is written and values never appear in argv. The
	// hardened settings (harden.go) come after them, so no caller can switch hooks back on.
	Config []string
}

// New returns a Repo for dir. A nil env means the environment of this process.
func New(dir string, env []string) Repo {
	if env == nil {
		env = os.Environ()
	}
	return Repo{Dir: dir, Env: env}
}

// At returns the same git (environment and config) working in another directory.
func (r Repo) At(dir string) Repo {
	r.Dir = dir
	return r
}

// WithConfig returns a copy of r that passes the extra key=value pairs to every command.
func (r Repo) WithConfig(kv ...string) Repo {
	r.Config = append(append([]string(nil), r.Config...), kv...)
	return r
}

// Error is a git command that ran and exited non-zero.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
	Stdout   string // kept because some failures (merge conflicts) are only explained on stdout
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("git %s: exit %d", strings.Join(e.Args, " "), e.ExitCode)
	detail := firstLines(e.Stderr, 3)
	if detail == "" {
		detail = firstLines(e.Stdout, 3)
	}
	if detail != "" {
		msg += ": " + detail
	}
	return msg
}

// ExitCode returns the exit status of a git command from its error: 0 for nil, -1 when err is
// not an *Error (git did not start, or the context ended).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// firstLines returns up to n non-blank lines of s joined on one line, for error messages.
func firstLines(s string, n int) string {
	var out []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

// waitDelay bounds how long Run waits for output pipes after git is killed, in case a process
// outside its group still holds them.
const waitDelay = 2 * time.Second

// Run runs git with args in r.Dir and returns its stdout without the trailing newline. A non-zero
// exit is an *Error (stdout is still returned); when ctx ends the process group is killed and
// the error wraps context.Cause(ctx). Every command is hardened against the repository's own
// config (see harden.go): it first lists the settings the command would read, and is refused
// with an *UnsafeConfigError when one of them cannot be taken back; a command that compares the
// working tree with the index gets --ignore-submodules=dirty, so that it starts no git in a
// submodule.
func (r Repo) Run(ctx context.Context, args ...string) (string, error) {
	config, env, err := r.countermands(ctx, args)
	if err != nil {
		return "", err
	}
	return r.exec(ctx, args, config, env)
}

// exec runs git with args (hardened as withSubmodulesIgnored says; errors name args as given),
// the hardened settings and the extra config pairs and environment.
func (r Repo) exec(ctx context.Context, args, config, env []string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", withSubmodulesIgnored(args)...)
	cmd.Dir = r.Dir
	cmd.Env = append(r.environ(config), env...)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = waitDelay
	killGroup(cmd)

	err := cmd.Run()
	out := strings.TrimSuffix(stdout.String(), "\n")
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("git %s: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 { // killed by a signal from outside
			code = 128 + signalNumber(ee)
		}
		return out, &Error{Args: args, ExitCode: code, Stderr: stderr.String(), Stdout: stdout.String()}
	}
	return out, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
}

// dropped reports whether an inherited variable is removed: those that make git look somewhere
// other than the working directory (git rev-parse --local-env-vars, plus discovery limits), which
// would silently redirect our commands to another repository, e.g. when run from a git hook, and
// those the hermetic settings replace.
func dropped(key string) bool {
	switch key {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
		"GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE", "GIT_REPLACE_REF_BASE",
		"GIT_NO_REPLACE_OBJECTS", "GIT_INTERNAL_SUPER_PREFIX", "GIT_QUARANTINE_PATH",
		"GIT_CEILING_DIRECTORIES",
		"LC_ALL", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "GIT_OPTIONAL_LOCKS":
		return true
	}
	return false
}

// environ builds the environment of one command from the base environment: r.Config, then the
// hardened settings and extra, which so come last and win.
func (r Repo) environ(extra []string) []string {
	// Stable messages, no prompts, no editor, and no optional index locks that would race with
	// the user's or the agent's own git.
	fixed := []string{"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=:", "GIT_OPTIONAL_LOCKS=0"}
	config := append(append(append([]string(nil), r.Config...), hardened...), extra...)
	env := make([]string, 0, len(r.Env)+len(fixed))
	for _, kv := range r.Env {
		if k, _, _ := strings.Cut(kv, "="); !dropped(k) {
			env = append(env, kv)
		}
	}
	return ConfigEnv(append(env, fixed...), config...)
}

// ConfigEnv returns env, KEY=VALUE, with the git configuration pairs config (key=value) added
// as GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n and GIT_CONFIG_COUNT, as if each were given with -c.
// The pairs are numbered after those env already holds, so an inherited GIT_CONFIG_COUNT keeps
// applying: this is the one encoder of git configuration into an environment, for our own git
// commands and for the agent's.
func ConfigEnv(env []string, config ...string) []string {
	out := make([]string, 0, len(env)+2*len(config)+1)
	count := 0
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_COUNT" {
			count, _ = strconv.Atoi(v)
			continue
		}
		out = append(out, kv)
	}
	for _, kv := range config {
		k, v, _ := strings.Cut(kv, "=")
		out = append(out,
			fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", count, k),
			fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", count, v))
		count++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(count))
}
