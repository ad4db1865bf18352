package run

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
)

func TestHooks(t *testing.T) {
	t.Parallel()
	sb := host.New(t.TempDir(), []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(func() { sb.Close(context.Background()) })
	// Only the case about the timeout has a short one: a loaded machine may take longer than
	// that to start a shell.
	tests := []struct {
		name     string
		cmds     []string
		parallel bool
		timeout  time.Duration
		want     string // "" = success
	}{
		{"all_pass", []string{"true", "echo ok"}, false, time.Minute, ""},
		{"failure_names_input_command_code_stderr", []string{"true", "echo broken >&2; exit 4"}, false, time.Minute, `hook-x: command "echo broken >&2; exit 4" exited with code 4: broken`},
		{"timeout_is_stopped", []string{"sleep 30"}, false, 200 * time.Millisecond, "timed out after 200ms and was stopped; raise the timeouts input's hook-seconds"},
		{"parallel_first_failure", []string{"sleep 30", "exit 2"}, true, time.Minute, "exited with code 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Hooks(t.Context(), sb, "hook-x", tt.cmds, tt.timeout, tt.parallel)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Hooks = %v, want success", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Hooks = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestSandboxReadyHooks: the sandbox's hooks and the host's run together, and a failure names
// the input it came from.
func TestSandboxReadyHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sb := host.New(dir, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(func() { sb.Close(context.WithoutCancel(t.Context())) })
	if err := SandboxReadyHooks(t.Context(), sb, sb, []string{"touch in-sandbox"}, []string{"touch on-host"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"in-sandbox", "on-host"} {
		if _, err := os.Stat(dir + "/" + f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := SandboxReadyHooks(t.Context(), sb, sb, nil, []string{"exit 3"}, time.Minute); err == nil || !strings.HasPrefix(err.Error(), "hook host-sandbox-ready: ") {
		t.Errorf("SandboxReadyHooks = %v, want the host hook's failure", err)
	}
}

// TestErrorsSayWhatToChange: the errors that end a run name the input to change.
func TestErrorsSayWhatToChange(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&IdleTimeoutError{Timeout: time.Minute}, "printed nothing for 1m0s and was stopped; raise the timeouts input's idle-seconds"},
		{&OutputError{Err: context.DeadlineExceeded, Retries: 1}, "after 1 retry; see output-tag, output-schema, output-max-retries"},
	} {
		if !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%T: %q, want %q", tt.err, tt.err, tt.want)
		}
	}
}
