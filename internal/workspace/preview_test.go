package workspace_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// TestPrepare_works_on_the_previewed_branch: merge-to-head's temporary branch is the one the
// preview named, so the prompt rendered with it names the branch the agent works on.
func TestPrepare_works_on_the_previewed_branch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.opts(inputs.StrategyMergeToHead)
	preview, err := workspace.Preview(t.Context(), f.env, o)
	if err != nil {
		t.Fatal(err)
	}
	o.TempBranch = preview.Source
	o.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) } // a later time, which would name another branch
	w := f.prepare(o)
	if w.Source != preview.Source || w.Top() != f.dir || preview.Top() != f.dir || w.Dir == f.dir {
		t.Errorf("Prepare works on %q in %s of %s, the preview named %q in %s", w.Source, w.Dir, w.Top(), preview.Source, preview.Top())
	}
	f.finish(w)
	o.TempBranch = "-x"
	if _, err := workspace.Prepare(t.Context(), f.env, o); err == nil || !strings.Contains(err.Error(), `starts with "-"`) {
		t.Errorf("Prepare with temporary branch -x: %v, want it refused", err)
	}
}
