package workspace_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// TestPreview_touches_nothing: a preview names the branches as Prepare would and works in the
// checkout, without a worktree, a branch, a lock, a log directory or an info/exclude line.
func TestPreview_touches_nothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	exclude := filepath.Join(f.dir, ".git", "info", "exclude")
	before := read(t, exclude)
	branches := f.git(f.dir, "branch", "--list")
	for _, tt := range []struct {
		strategy inputs.BranchStrategy
		branch   string
		source   string // a regular expression
	}{
		{inputs.StrategyHead, "", "^main$"},
		{inputs.StrategyBranch, "agent/new", "^agent/new$"},
		{inputs.StrategyMergeToHead, "", `^sandcastle/20250102-030405-[0-9a-f]{6}$`},
	} {
		o := f.opts(tt.strategy)
		o.Branch = tt.branch
		w, err := workspace.Preview(t.Context(), f.env, o)
		if err != nil {
			t.Fatalf("Preview(%s): %v", tt.strategy, err)
		}
		if w.Dir != f.dir || w.Target != "main" || w.Worktree || !regexp.MustCompile(tt.source).MatchString(w.Source) {
			t.Errorf("Preview(%s) = Dir %q, Source %q, Target %q, Worktree %v; want the checkout, %s, main, no worktree", tt.strategy, w.Dir, w.Source, w.Target, w.Worktree, tt.source)
		}
	}
	if got := read(t, exclude); got != before {
		t.Errorf("info/exclude changed:\n%s\nwas:\n%s", got, before)
	}
	if got := f.git(f.dir, "branch", "--list"); got != branches {
		t.Errorf("branches = %q, were %q", got, branches)
	}
	if exists(filepath.Join(f.dir, ".sandcastle")) {
		t.Error(".sandcastle was created")
	}
	f.git(f.dir, "checkout", "-q", "--detach")
	if _, err := workspace.Preview(t.Context(), f.env, f.opts(inputs.StrategyMergeToHead)); err == nil {
		t.Error("Preview of merge-to-head on a detached HEAD succeeded; want the error Prepare gives")
	}
}
