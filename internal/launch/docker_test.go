package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

func TestCopyWorkspace(t *testing.T) {
	// seen is a daemon host that sees /runner only, as a container Action's daemon does.
	seen := func(p string) (string, error) {
		if rest, ok := strings.CutPrefix(p, "/runner/"); ok {
			return "/host/runner/" + rest, nil
		}
		return "", errors.New(p + " is not on a mount")
	}
	tests := []struct {
		name       string
		sync       inputs.SyncMode
		dirs       []string
		wantCopied bool
		wantUnseen string
		wantErr    bool
	}{
		{"copy_even_when_seen", inputs.SyncCopy, []string{"/runner/repo"}, true, "", false},
		{"auto_mounts_what_the_daemon_sees", inputs.SyncAuto, []string{"/runner/repo/wt", "/runner/repo/.git"}, false, "", false},
		{"auto_copies_when_one_is_unseen", inputs.SyncAuto, []string{"/runner/repo/wt", "/elsewhere/.git"}, true, "/elsewhere/.git", false},
		{"mount_mounts_what_the_daemon_sees", inputs.SyncMount, []string{"/runner/repo"}, false, "", false},
		{"mount_fails_when_unseen", inputs.SyncMount, []string{"/elsewhere/repo"}, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			copied, unseen, err := copyWorkspace(tt.sync, tt.dirs, seen)
			if got, want := err != nil, tt.wantErr; got != want {
				t.Fatalf("error = %v, want error: %v", err, want)
			}
			if got, want := copied, tt.wantCopied; got != want {
				t.Errorf("copied = %v, want %v", got, want)
			}
			if got, want := unseen, tt.wantUnseen; got != want {
				t.Errorf("unseen = %q, want %q", got, want)
			}
		})
	}
}
