package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// errHookTimeout is the cancel cause of a hook that ran past the timeouts input's hook-seconds.
var errHookTimeout = errors.New("hook timed out")

// Hooks runs the commands of one hook input in sb, one after another, or all at once when
// parallel; the first failure stops the rest. Each command is bounded by timeout and stopped
// when it runs over; errors name the input and the command.
func Hooks(ctx context.Context, sb sandbox.Sandbox, input string, cmds []string, timeout time.Duration, parallel bool) error {
	if !parallel {
		for _, c := range cmds {
			if err := hook(ctx, sb, input, c, timeout); err != nil {
				return err
			}
		}
		return nil
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, c := range cmds {
		g.Go(func() error { return hook(ctx, sb, input, c, timeout) })
	}
	return g.Wait()
}

func hook(ctx context.Context, sb sandbox.Sandbox, input, cmd string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errHookTimeout)
	defer cancel()
	r, err := sb.Exec(ctx, sandbox.Exec{Argv: []string{"sh", "-c", cmd}})
	switch {
	case errors.Is(err, errHookTimeout):
		return fmt.Errorf("%s: command %q timed out after %s and was stopped; raise the timeouts input's hook-seconds if it needs longer", input, cmd, timeout)
	case err != nil:
		return fmt.Errorf("%s: command %q: %w", input, cmd, err)
	case r.ExitCode != 0:
		msg := fmt.Sprintf("%s: command %q exited with code %d", input, cmd, r.ExitCode)
		if s := strings.TrimSpace(r.Stderr); s != "" {
			msg += ": " + lastLines(s, 10)
		}
		return errors.New(msg)
	}
	return nil
}

// SandboxReadyHooks runs the hooks of a started sandbox, the sandbox's and the host's, all at
// once.
func SandboxReadyHooks(ctx context.Context, sb, onHost sandbox.Sandbox, inSandbox, onHostCmds []string, timeout time.Duration) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return Hooks(ctx, sb, "hook sandbox-ready", inSandbox, timeout, true) })
	g.Go(func() error { return Hooks(ctx, onHost, "hook host-sandbox-ready", onHostCmds, timeout, true) })
	return g.Wait()
}
