package launch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// TestLend: a checkout of root's is lent to AgentUID for the run and handed back after; one of
// another user's is left as it is, since the agent runs as that user.
func TestLend(t *testing.T) {
	testkit.RequireRoot(t, "lending a checkout of root's")
	owner := func(t *testing.T, p string) int {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return int(fi.Sys().(*syscall.Stat_t).Uid)
	}
	for _, tt := range []struct {
		name             string
		uid, during, end int
	}{
		{"root's", 0, AgentUID, 0},
		{"another user's", 1234, 1234, 1234},
	} {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			file := filepath.Join(top, "a.txt")
			if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{top, file} {
				if err := os.Chown(p, tt.uid, tt.uid); err != nil {
					t.Fatal(err)
				}
			}
			giveBack, err := Docker{Workspace: top}.Lend(top)
			if err != nil {
				t.Fatal(err)
			}
			if got := owner(t, file); got != tt.during {
				t.Errorf("during the run a.txt is %d's, want %d's", got, tt.during)
			}
			if err := giveBack(); err != nil {
				t.Fatal(err)
			}
			if got := owner(t, file); got != tt.end {
				t.Errorf("after the run a.txt is %d's, want %d's", got, tt.end)
			}
		})
	}
}
