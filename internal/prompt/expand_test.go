package prompt

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// safetyNet bounds tests whose correct outcome never waits for it: an implementation that runs
// commands one after another, or does not cancel, fails with a timeout instead of hanging.
const safetyNet = time.Minute

func TestExpand(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]string
		outputs  map[string]Output // by Source
		want     string
		wantRuns []string // sorted
		wantDone []Expansion
	}{
		{
			name:     "no_commands_is_text",
			template: "Fix {{ISSUE}}.",
			values:   map[string]string{"ISSUE": "1"},
			want:     "Fix 1.",
		},
		{
			name:     "replaced_by_position",
			template: "A=!`a` B=!`b` A=!`a`.",
			outputs:  map[string]Output{"a": {Stdout: "1"}, "b": {Stdout: "22"}},
			want:     "A=1 B=22 A=1.",
			wantRuns: []string{"a", "a", "b"},
			wantDone: []Expansion{{"a", 1}, {"b", 2}, {"a", 1}},
		},
		{
			name:     "trailing_whitespace_trimmed_leading_kept",
			template: "[!`x`]",
			outputs:  map[string]Output{"x": {Stdout: "\n  line 1\nline 2 \t\r\n\n"}},
			want:     "[\n  line 1\nline 2]",
			wantRuns: []string{"x"},
			wantDone: []Expansion{{"x", len("\n  line 1\nline 2")}},
		},
		{
			name:     "stderr_discarded_on_success",
			template: "!`x`",
			outputs:  map[string]Output{"x": {Stdout: "out", Stderr: "warning: noise"}},
			want:     "out",
			wantRuns: []string{"x"},
			wantDone: []Expansion{{"x", 3}},
		},
		{
			name:     "empty_output",
			template: "a!`x`b",
			outputs:  map[string]Output{"x": {Stdout: " \n"}},
			want:     "ab",
			wantRuns: []string{"x"},
			wantDone: []Expansion{{"x", 0}},
		},
		{
			name:     "output_never_rescanned",
			template: "!`x` {{A}}",
			values:   map[string]string{"A": "a"},
			outputs:  map[string]Output{"x": {Stdout: "!`y` {{A}} {{SOURCE_BRANCH}}"}},
			want:     "!`y` {{A}} {{SOURCE_BRANCH}} a",
			wantRuns: []string{"x"},
			wantDone: []Expansion{{"x", len("!`y` {{A}} {{SOURCE_BRANCH}}")}},
		},
		{
			name:     "runner_gets_references_and_values_apart",
			template: "!`gh issue view {{ISSUE}}` !`git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}`",
			values:   map[string]string{"ISSUE": "42"},
			outputs: map[string]Output{
				"gh issue view {{ISSUE}}":                      {Stdout: "issue"},
				"git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}": {Stdout: "log"},
			},
			want:     "issue log",
			wantRuns: []string{`gh issue view "${SANDCASTLE_ARG_ISSUE}" ISSUE=42`, `git log "${SANDCASTLE_ARG_TARGET_BRANCH}".."${SANDCASTLE_ARG_SOURCE_BRANCH}" SOURCE_BRANCH=sandcastle/fix-1 TARGET_BRANCH=main`},
			wantDone: []Expansion{{"gh issue view {{ISSUE}}", 5}, {"git log {{TARGET_BRANCH}}..{{SOURCE_BRANCH}}", 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := render(t, tt.template, tt.values)
			r := &recorder{answer: func(src string) Output {
				out, ok := tt.outputs[src]
				if !ok {
					t.Errorf("unexpected command %q", src)
				}
				return out
			}}
			got, done, err := p.Expand(t.Context(), r.run, safetyNet)
			if err != nil {
				t.Fatalf("Expand() error: %v", err)
			}
			if got != tt.want {
				t.Errorf("Expand() = %q, want %q", got, tt.want)
			}
			var runs []string
			for _, c := range r.calls {
				run := c.Shell
				for _, k := range slices.Sorted(maps.Keys(c.Env)) {
					run += " " + strings.TrimPrefix(k, varPrefix) + "=" + c.Env[k]
				}
				runs = append(runs, run)
			}
			slices.Sort(runs)
			if !slices.Equal(runs, tt.wantRuns) {
				t.Errorf("runs = %q, want %q", runs, tt.wantRuns)
			}
			if !slices.Equal(done, tt.wantDone) {
				t.Errorf("expansions = %v, want %v", done, tt.wantDone)
			}
		})
	}
}

// TestExpandRunsInParallel: each command waits for the other to start, which only completes
// when both run at once.
func TestExpandRunsInParallel(t *testing.T) {
	started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	other := map[string]string{"a": "b", "b": "a"}
	run := func(ctx context.Context, c Command) (Output, error) {
		close(started[c.Source])
		select {
		case <-started[other[c.Source]]:
			return Output{Stdout: c.Source}, nil
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}
	got, _, err := render(t, "!`a`+!`b`", nil).Expand(t.Context(), run, safetyNet)
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
	run := func(ctx context.Context, c Command) (Output, error) {
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
	got, _, err := render(t, "!`d`!`d`!`d`", nil).Expand(t.Context(), run, safetyNet)
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
	run := func(ctx context.Context, c Command) (Output, error) {
		switch c.Source {
		case "block":
			close(blockStarted)
			<-ctx.Done()
			blockSaw = ctx.Err()
			return Output{}, ctx.Err()
		case "fail":
			<-blockStarted
			return Output{ExitCode: 3, Stderr: "boom\n"}, nil
		}
		t.Errorf("unexpected command %q", c.Source)
		return Output{}, nil
	}
	_, _, err := render(t, "!`block` !`fail`", nil).Expand(t.Context(), run, safetyNet)
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
		{"runner_returns_ctx_error", func(ctx context.Context, _ Command) (Output, error) {
			<-ctx.Done()
			return Output{}, ctx.Err()
		}},
		{"runner_reports_kill_as_exit_code", func(ctx context.Context, _ Command) (Output, error) {
			<-ctx.Done()
			return Output{ExitCode: 137}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := render(t, "!`sleep 99`", nil).Expand(t.Context(), tt.run, time.Millisecond)
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
	run := func(context.Context, Command) (Output, error) {
		return Output{Stdout: "partial", Stderr: "\nfatal: bad revision 'x'\n", ExitCode: 128}, nil
	}
	_, _, err := render(t, "log: !`git log x`", nil).Expand(t.Context(), run, safetyNet)
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
	run := func(context.Context, Command) (Output, error) { return Output{}, gone }
	_, _, err := render(t, "!`date`", nil).Expand(t.Context(), run, safetyNet)
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
		{"runner_returns_ctx_error", func(ctx context.Context, _ Command) (Output, error) {
			<-ctx.Done()
			return Output{}, ctx.Err()
		}},
		{"runner_reports_kill_as_exit_code", func(ctx context.Context, _ Command) (Output, error) {
			<-ctx.Done()
			return Output{ExitCode: 143}, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, _, err := render(t, "!`date`", nil).Expand(ctx, tt.run, safetyNet)
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
