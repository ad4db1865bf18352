package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/hostfs"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// TestPrepare_never_follows_a_swapped_directory: an agent that had the checkout (branch-strategy
// head) can replace .sandcastle/worktrees or .sandcastle/locks with a link or a file. The next
// run's Prepare, as root in an Action, must neither delete what a link names (prune), nor make
// a worktree or a lock there: it refuses, naming what it found, and the link's target is as it
// was.
func TestPrepare_never_follows_a_swapped_directory(t *testing.T) {
	for _, dir := range []string{"worktrees", "locks"} {
		for _, kind := range []string{"link", "file"} {
			t.Run(dir+"_"+kind, func(t *testing.T) {
				f := newFixture(t)
				outside := t.TempDir()
				victim := filepath.Join(outside, "victim")
				write(t, filepath.Join(victim, "kept"), "kept\n")
				swapped := filepath.Join(f.dir, ".sandcastle", dir)
				if err := os.MkdirAll(filepath.Dir(swapped), 0o755); err != nil {
					t.Fatal(err)
				}
				if kind == "link" {
					if err := os.Symlink(outside, swapped); err != nil {
						t.Fatal(err)
					}
				} else {
					write(t, swapped, "planted\n")
				}
				strategy := inputs.StrategyBranch
				if dir == "locks" {
					strategy = inputs.StrategyHead
				}
				o := f.opts(strategy)
				o.Branch = "agent/x"
				w, err := workspace.Prepare(t.Context(), f.env, o)
				var replaced *hostfs.ReplacedError
				if !errors.As(err, &replaced) || replaced.Path != swapped {
					t.Errorf("Prepare = %v, %v; want a *hostfs.ReplacedError naming %s", w, err, swapped)
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 || read(t, filepath.Join(victim, "kept")) != "kept\n" {
					t.Errorf("outside the checkout is now %v", entries)
				}
			})
		}
	}
}
