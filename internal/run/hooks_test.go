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
	tests := []struct {
		name     string
		cmds     []string
		parallel bool
		want     string // "" = success
	}{
		{"all_pass", []string{"true", "echo ok"}, false, ""},
		{"failure_names_input_command_code_stderr", []string{"true", "echo broken >&2; exit 4"}, false, `hook-x: command "echo broken >&2; exit 4" exited with code 4: broken`},
		{"timeout_is_stopped", []string{"sleep 30"}, false, "timed out after 200ms and was stopped; raise hook-timeout-seconds"},
		{"parallel_first_failure", []string{"sleep 30", "exit 2"}, true, "exited with code 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Hooks(t.Context(), sb, "hook-x", tt.cmds, 200*time.Millisecond, tt.parallel)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Hooks = %v, want success", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Hooks = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
