package sandboxtest_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/sandboxtest"
)

// execFunc runs e in s, the way a sandbox under test does.
type execFunc func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error)

// newHost makes the sandboxes the suite asks for on the host, with Exec replaced by exec when
// it is set.
func newHost(exec execFunc) sandboxtest.NewSandbox {
	return func(t *testing.T, o sandboxtest.Options) sandbox.Sandbox {
		env := []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range o.Env {
			env = append(env, k+"="+v)
		}
		s := host.New(t.TempDir(), env)
		s.KillGrace, s.DrainWindow = 50*time.Millisecond, o.DrainWindow
		t.Cleanup(func() {
			if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		if exec == nil {
			return s
		}
		return mutant{s, exec}
	}
}

// mutant is a host sandbox that breaks one promise of the contract.
type mutant struct {
	*host.Sandbox
	exec execFunc
}

func (m mutant) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	return m.exec(ctx, m.Sandbox, e)
}

// mutants break one promise each, and name the case of the suite that must then fail. Each
// breaks only what that case's own Execs rely on, so that the suite's other Execs (the ones
// that look around) still work and the case fails for the promise broken, not by accident.
var mutants = map[string]struct {
	failing string
	exec    execFunc
}{
	"drops_the_exec_env": {"environment", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		e.Env = maps.Clone(e.Env)
		delete(e.Env, "EXEC_VAR")
		return s.Exec(ctx, e)
	}},
	"ignores_a_relative_dir": {"working_directory", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		if e.Dir == "sub" {
			e.Dir = ""
		}
		return s.Exec(ctx, e)
	}},
	"cuts_stdin": {"stdin", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		e.Stdin = e.Stdin[:len(e.Stdin)/2]
		return s.Exec(ctx, e)
	}},
	"hides_signals": {"exit_status", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		r, err := s.Exec(ctx, e)
		r.Signaled = false
		return r, err
	}},
	"reports_a_missing_program_as_an_exit_code": {"start_errors", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		r, err := s.Exec(ctx, e)
		if errors.Is(err, exec.ErrNotFound) {
			return sandbox.Result{ExitCode: 127}, nil
		}
		return r, err
	}},
	"runs_after_the_context_ended": {"not_started_when_context_done", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		return s.Exec(context.WithoutCancel(ctx), e)
	}},
	"loses_the_cancel_cause": {"cancel_kills_the_group", func(ctx context.Context, s *host.Sandbox, e sandbox.Exec) (sandbox.Result, error) {
		r, err := s.Exec(ctx, e)
		if err != nil && ctx.Err() != nil {
			err = errors.New("stopped")
		}
		return r, err
	}},
}

// TestRun runs the suite against the host sandbox, which keeps the contract.
func TestRun(t *testing.T) {
	sandboxtest.Run(t, newHost(nil))
}

// TestMutant runs one case of the suite against the mutant named by SANDBOXTEST_MUTANT; only
// TestRunCatchesMutants runs it.
func TestMutant(t *testing.T) {
	name := os.Getenv("SANDBOXTEST_MUTANT")
	if name == "" {
		t.Skip("run by TestRunCatchesMutants")
	}
	sandboxtest.Run(t, newHost(mutants[name].exec))
}

// TestRunCatchesMutants checks that the suite fails a sandbox that breaks its contract: each
// mutant, run in a test process of its own, fails the case that checks the promise it breaks.
func TestRunCatchesMutants(t *testing.T) {
	if os.Getenv("SANDBOXTEST_MUTANT") != "" {
		t.Skip("this is a mutant's process")
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutant$/^"+m.failing+"$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "SANDBOXTEST_MUTANT="+name)
			out, err := cmd.CombinedOutput()
			if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
				t.Fatalf("the suite passed (or could not run: %v) a sandbox whose %s\n%s", err, strings.ReplaceAll(name, "_", " "), out)
			}
			if want := "--- FAIL: TestMutant/" + m.failing; !strings.Contains(string(out), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}
