package prompt

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Runner runs one command where the agent will run: c.Shell by sh -c, with c.Env added to its
// environment. It returns an error only when the command could not be run or waited for, or
// when ctx ended; a non-zero exit is an Output.
type Runner func(ctx context.Context, c Command) (Output, error)

// Expansion is one command that ran: its Source and the size of what replaced it.
type Expansion struct {
	Command string
	Bytes   int
}

// Output is how a command ended.
type Output struct {
	Stdout   string
	Stderr   string
	ExitCode int
}

// ExpansionError is a command block that failed: it exited non-zero, timed out, or could not
// be run (Err).
type ExpansionError struct {
	Command  string // the command's Source
	ExitCode int
	Stderr   string
	Timeout  time.Duration // the budget it exceeded; zero unless it timed out
	Err      error
}

func (e *ExpansionError) Error() string {
	switch {
	case e.Timeout > 0:
		return fmt.Sprintf("prompt: command `%s` timed out after %s", e.Command, e.Timeout)
	case e.Err != nil:
		return fmt.Sprintf("prompt: command `%s`: %v", e.Command, e.Err)
	}
	msg := fmt.Sprintf("prompt: command `%s` exited with code %d", e.Command, e.ExitCode)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *ExpansionError) Unwrap() error { return e.Err }

// Expand runs every command block in parallel, each with its own timeout (none when timeout
// <= 0), and returns the prompt with each block replaced by its stdout, trailing whitespace
// trimmed, and what each command gave, in order. Output is never rescanned. The first failure
// cancels the other commands, waits for them to return, and is returned as an
// *ExpansionError. A prompt without commands is returned as is and run is not called.
func (p *Prompt) Expand(ctx context.Context, run Runner, timeout time.Duration) (string, []Expansion, error) {
	cmds := p.Commands()
	if len(cmds) == 0 {
		return p.Text(), nil, nil
	}

	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	outs := make([]string, len(cmds))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i, cmd := range cmds {
		wg.Go(func() {
			out, err := runOne(gctx, run, cmd, timeout)
			if err != nil {
				once.Do(func() { first = err; cancel(err) })
				return
			}
			outs[i] = out
		})
	}
	wg.Wait()
	if first != nil {
		return "", nil, first
	}

	var b strings.Builder
	done := make([]Expansion, 0, len(cmds))
	for _, s := range p.segments {
		if s.cmd == nil {
			b.WriteString(s.text)
			continue
		}
		out := outs[len(done)]
		b.WriteString(out)
		done = append(done, Expansion{Command: s.cmd.Source, Bytes: len(out)})
	}
	return b.String(), done, nil
}

// runOne runs one command and returns its trimmed stdout.
func runOne(gctx context.Context, run Runner, cmd Command, timeout time.Duration) (string, error) {
	cctx := gctx
	if timeout > 0 {
		var stop context.CancelFunc
		cctx, stop = context.WithTimeout(gctx, timeout)
		defer stop()
	}
	out, err := run(cctx, cmd)
	failed := err != nil || out.ExitCode != 0
	switch {
	case failed && cctx.Err() != nil && gctx.Err() == nil:
		// Only its own deadline can end cctx while gctx lives. A runner that reports the kill
		// as an exit code rather than an error still timed out.
		if err == nil {
			err = context.DeadlineExceeded
		}
		return "", &ExpansionError{Command: cmd.Source, Timeout: timeout, Err: err}
	case failed && gctx.Err() != nil:
		// The caller gave up or another command failed first (then this error is dropped).
		if err == nil {
			err = context.Cause(gctx)
		}
		return "", &ExpansionError{Command: cmd.Source, Err: err}
	case err != nil:
		return "", &ExpansionError{Command: cmd.Source, Err: err}
	case out.ExitCode != 0:
		return "", &ExpansionError{Command: cmd.Source, ExitCode: out.ExitCode, Stderr: out.Stderr}
	}
	return strings.TrimRightFunc(out.Stdout, unicode.IsSpace), nil
}
