package prompt

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// safetyNet bounds tests whose correct outcome never waits for it: an implementation that runs
// commands one after another, or does not cancel, fails with a timeout instead of hanging.
const safetyNet = time.Minute

func mustTemplate(t *testing.T, text string, args map[string]string) *Prompt {
	t.Helper()
	p, _, err := Template(text, args, branches)
	if err != nil {
		t.Fatalf("Template(%q) error: %v", text, err)
	}
	return p
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name     string
		template string
		args     map[string]string
		outputs  map[string]Output
		want     string
		wantRuns []string // sorted
	}{
		{
			name:     "no_commands_is_text",
			template: "Fix {{ISSUE}}.",
			args:     map[string]string{"ISSUE": "1"},
			want:     "Fix 1.",
		},
		{
			name:     "replaced_by_position",
			template: "A=!`a` B=!`b` A=!`a`.",
			outputs:  map[string]Output{"a": {Stdout: "1"}, "b": {Stdout: "2"}},
			want:     "A=1 B=2 A=1.",
			wantRuns: []string{"a", "a", "b"},
		},
		{
			name:     "trailing_whitespace_trimmed_leading_kept",
			template: "[!`x`]",
			outputs:  map[string]Output{"x": {Stdout: "\n  line 1\nline 2 \t\r\n\n"}},
			want:     "[\n  line 1\nline 2]",
			wantRuns: []string{"x"},
		},
		{
			name:     "stderr_discarded_on_success",
			template: "!`x`",
			outputs:  map[string]Output{"x": {Stdout: "out", Stderr: "warning: noise"}},
			want:     "out",
			wantRuns: []string{"x"},
		},
		{
			name:     "empty_output",
			template: "a!`x`b",
			outputs:  map[string]Output{"x": {Stdout: " \n"}},
			want:     "ab",
			wantRuns: []string{"x"},
		},
		{
			name:     "output_never_rescanned",
			template: "!`x` {{A}}",
			args:     map[string]string{"A": "a"},
			outputs:  map[string]Output{"x": {Stdout: "!`y` {{A}} {{SOURCE_BRANCH}}"}},
			want:     "!`y` {{A}} {{SOURCE_BRANCH}} a",
			wantRuns: []string{"x"},
		},
		{
			name:     "placeholders_substituted_into_commands",
			template: "!`gh issue view {{ISSUE}}` !`git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}`",
			args:     map[string]string{"ISSUE": "42"},
			outputs: map[string]Output{
				"gh issue view 42":               {Stdout: "issue"},
				"git log main..sandcastle/fix-1": {Stdout: "log"},
			},
			want:     "issue log",
			wantRuns: []string{"gh issue view 42", "git log main..sandcastle/fix-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustTemplate(t, tt.template, tt.args)
			r := &recorder{answer: func(cmd string) Output {
				out, ok := tt.outputs[cmd]
				if !ok {
					t.Errorf("unexpected command %q", cmd)
				}
				return out
			}}
			got, err := p.Expand(t.Context(), r.run, safetyNet)
			if err != nil {
				t.Fatalf("Expand() error: %v", err)
			}
			if got != tt.want {
				t.Errorf("Expand() = %q, want %q", got, tt.want)
			}
			slices.Sort(r.calls)
			if !slices.Equal(r.calls, tt.wantRuns) {
				t.Errorf("runs = %q, want %q", r.calls, tt.wantRuns)
			}
		})
	}
}

// TestExpandRunsInParallel: each command waits for the other to start, which only completes
// when both run at once.
func TestExpandRunsInParallel(t *testing.T) {
	started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	other := map[string]string{"a": "b", "b": "a"}
	run := func(ctx context.Context, cmd string) (Output, error) {
		close(started[cmd])
		select {
		case <-started[other[cmd]]:
			return Output{Stdout: cmd}, nil
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
	got, err := mustTemplate(t, "!`a`+!`b`", nil).Expand(t.Context(), run, safetyNet)
	if err != nil {
		t.Fatalf("Expand() error: %v", err)
	}
	if want := "a+b"; got != want {
		t.Errorf("Expand() = %q, want %q", got, want)
	}
}

// TestExpandDuplicatesRunSeparately: three identical blocks are three concurrent runs.
func TestExpandDuplicatesRunSeparately(t *testing.T) {
	var n atomic.Int32
	all := make(chan struct{})
	run := func(ctx context.Context, cmd string) (Output, error) {
		if n.Add(1) == 3 {
			close(all)
		}
		select {
		case <-all:
			return Output{Stdout: "x"}, nil
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
	got, err := mustTemplate(t, "!`d`!`d`!`d`", nil).Expand(t.Context(), run, safetyNet)
	if err != nil {
		t.Fatalf("Expand() error: %v", err)
	}
	if got, want := got, "xxx"; got != want {
		t.Errorf("Expand() = %q, want %q", got, want)
	}
}

func TestExpandFirstFailureCancelsOthers(t *testing.T) {
	blockStarted := make(chan struct{})
	var blockSaw error
	run := func(ctx context.Context, cmd string) (Output, error) {
		switch cmd {
		case "block":
			close(blockStarted)
			<-ctx.Done()
			blockSaw = ctx.Err()
			return Output{}, ctx.Err()
		case "fail":
			<-blockStarted
			return Output{ExitCode: 3, Stderr: "boom\n"}, nil
		}
		t.Errorf("unexpected command %q", cmd)
		return Output{}, nil
	}
	_, err := mustTemplate(t, "!`block` !`fail`", nil).Expand(t.Context(), run, safetyNet)
	var ee *ExpansionError
	if !errors.As(err, &ee) {
		t.Fatalf("Expand() error = %v, want *ExpansionError", err)
	}
	if got, want := ee.Command, "fail"; got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
	if got, want := ee.ExitCode, 3; got != want {
		t.Errorf("ExitCode = %d, want %d", got, want)
	}
	// Expand waits for the canceled command, so blockSaw is set without further synchronisation.
	if !errors.Is(blockSaw, context.Canceled) {
		t.Errorf("other command saw %v, want context.Canceled", blockSaw)
	}
}

func TestExpandTimeout(t *testing.T) {
	tests := []struct {
		name string
		run  Runner
	}{
		{"runner_returns_ctx_error", func(ctx context.Context, _ string) (Output, error) {
			<-ctx.Done()
			return Output{}, ctx.Err()
		}},
		{"runner_reports_kill_as_exit_code", func(ctx context.Context, _ string) (Output, error) {
			<-ctx.Done()
			return Output{ExitCode: 137}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mustTemplate(t, "!`sleep 99`", nil).Expand(t.Context(), tt.run, time.Millisecond)
			var ee *ExpansionError
			if !errors.As(err, &ee) {
				t.Fatalf("Expand() error = %v, want *ExpansionError", err)
			}
			if got, want := ee.Timeout, time.Millisecond; got != want {
				t.Errorf("Timeout = %v, want %v", got, want)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
			}
			if got, want := err.Error(), "prompt: command `sleep 99` timed out after 1ms"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func TestExpandExitCode(t *testing.T) {
	run := func(context.Context, string) (Output, error) {
		return Output{Stdout: "partial", Stderr: "\nfatal: bad revision 'x'\n", ExitCode: 128}, nil
	}
	_, err := mustTemplate(t, "log: !`git log x`", nil).Expand(t.Context(), run, safetyNet)
	var ee *ExpansionError
	if !errors.As(err, &ee) {
		t.Fatalf("Expand() error = %v, want *ExpansionError", err)
	}
	if ee.ExitCode != 128 || ee.Timeout != 0 || ee.Err != nil || ee.Stderr != "\nfatal: bad revision 'x'\n" {
		t.Errorf("error fields = %+v", *ee)
	}
	if got, want := err.Error(), "prompt: command `git log x` exited with code 128: fatal: bad revision 'x'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestExpandTransportError(t *testing.T) {
	gone := errors.New("sandbox gone")
	run := func(context.Context, string) (Output, error) { return Output{}, gone }
	_, err := mustTemplate(t, "!`date`", nil).Expand(t.Context(), run, safetyNet)
	if !errors.Is(err, gone) {
		t.Fatalf("Expand() error = %v, want it to wrap %v", err, gone)
	}
	if got, want := err.Error(), "prompt: command `date`: sandbox gone"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestExpandCallerCanceled(t *testing.T) {
	tests := []struct {
		name string
		run  Runner
	}{
		{"runner_returns_ctx_error", func(ctx context.Context, _ string) (Output, error) {
			<-ctx.Done()
			return Output{}, ctx.Err()
		}},
		{"runner_reports_kill_as_exit_code", func(ctx context.Context, _ string) (Output, error) {
			<-ctx.Done()
			return Output{ExitCode: 143}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err := mustTemplate(t, "!`date`", nil).Expand(ctx, tt.run, safetyNet)
			var ee *ExpansionError
			if !errors.As(err, &ee) || !errors.Is(err, context.Canceled) {
				t.Fatalf("Expand() error = %v, want *ExpansionError wrapping context.Canceled", err)
			}
			if ee.Timeout != 0 {
				t.Errorf("Timeout = %v, want 0: the caller canceled, nothing timed out", ee.Timeout)
			}
		})
	}
}

func TestExpansionErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  ExpansionError
		want string
	}{
		{"exit_with_stderr", ExpansionError{Command: "git log", ExitCode: 2, Stderr: "  usage\n"}, "prompt: command `git log` exited with code 2: usage"},
		{"exit_without_stderr", ExpansionError{Command: "false", ExitCode: 1, Stderr: " \n"}, "prompt: command `false` exited with code 1"},
		{"timeout", ExpansionError{Command: "sleep 99", Timeout: 30 * time.Second, Err: context.DeadlineExceeded}, "prompt: command `sleep 99` timed out after 30s"},
		{"transport", ExpansionError{Command: "date", Err: errors.New("exec: no such container")}, "prompt: command `date`: exec: no such container"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}
