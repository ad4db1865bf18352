package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// Verify is how verify-command ended after an iteration.
type Verify struct {
	Passed   bool
	ExitCode int
	TimedOut bool // it ran longer than the shell timeout and was stopped
	// Output is the end of what it printed, redacted, at most verifyLines lines and
	// verifyBytes bytes; "" when it passed.
	Output string
}

// What of a failed verify-command's output the next prompt carries: its end, where a test
// runner or a linter sums up, small enough to leave the prompt its room.
const (
	verifyLines = 60
	verifyBytes = 4 << 10
)

// verify runs c.Verify after iteration n, by sh in the sandbox's workspace, stderr joined to
// stdout so that the tail reads as a terminal shows it. Only the run's end (its context) or a
// sandbox that cannot run it is an error; a failure, a timeout included, is a Verify.
func verify(ctx context.Context, c Config, sb sandbox.Sandbox, log Log, n int) (*Verify, error) {
	vctx, cancel := ctx, context.CancelFunc(func() {})
	if c.ShellTimeout > 0 {
		vctx, cancel = context.WithTimeout(ctx, c.ShellTimeout)
	}
	defer cancel()
	var lines []string
	r, err := sb.Exec(vctx, sandbox.Exec{Argv: []string{"sh", "-c", "exec 2>&1\n" + c.Verify}, OnLine: func(line []byte) {
		if len(lines) == verifyLines {
			lines = append(lines[:0], lines[1:]...)
		}
		lines = append(lines, string(line))
	}})
	v := &Verify{ExitCode: r.ExitCode}
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case vctx.Err() != nil:
		v.TimedOut = true
		lines = append(lines, fmt.Sprintf("(stopped after the shell timeout, %s: the timeouts input's shell-seconds)", c.ShellTimeout))
	case err != nil:
		return nil, fmt.Errorf("iteration %d: run verify-command: %w", n, err)
	case r.ExitCode == 0:
		v.Passed = true
		log.Status("verify-command passed after iteration %d", n)
		return v, nil
	}
	out := strings.Join(lines, "\n")
	if c.Redact != nil {
		out = c.Redact(out) // before the cut, which could leave half a secret unrecognised
	}
	v.Output = tail(strings.ToValidUTF8(strings.ReplaceAll(out, "\x00", ""), "\uFFFD"), verifyBytes)
	if v.TimedOut {
		log.Warning("verify-command timed out after iteration %d (the timeouts input's shell-seconds, %s)", n, c.ShellTimeout)
	} else {
		log.Warning("verify-command failed after iteration %d (exit code %d); the next iteration's prompt carries the end of its output", n, v.ExitCode)
	}
	return v, nil
}

// withVerify is p with {{VERIFY_OUTPUT}} holding what verify-command printed when it failed
// after the iteration before, and empty when it did not.
func withVerify(p *prompt.Prompt, failed *Verify) *prompt.Prompt {
	if failed == nil || !p.Uses(prompt.VerifyOutput) {
		return p
	}
	return p.With(prompt.VerifyOutput, failed.Output)
}

// framed is what follows a prompt without {{VERIFY_OUTPUT}} when verify-command (cmd) failed:
// a line that says so, and the output fenced so that nothing in it reads as the prompt's own.
func (v *Verify) framed(cmd string) string {
	how := fmt.Sprintf("exited with code %d", v.ExitCode)
	if v.TimedOut {
		how = "timed out"
	}
	fence := event.Fence(v.Output)
	return fmt.Sprintf("\n\nThe check run after your last iteration, %s, %s. Fix what it reports; the end of its output:\n\n%s\n%s\n%s\n",
		event.CodeSpan(firstLine(cmd)), how, fence, v.Output, fence)
}

// firstLine names a command of several lines by its first, marked as cut.
func firstLine(cmd string) string {
	if first, _, cut := strings.Cut(cmd, "\n"); cut {
		return first + " ..."
	}
	return cmd
}
