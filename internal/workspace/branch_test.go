package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func (f *fixture) branchOpts(name string) workspace.Options {
	o := f.opts(inputs.StrategyBranch)
	o.Branch = name
	return o
}

func TestBranch_new_branch_from_HEAD(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mainTip := f.git(f.dir, "rev-parse", "main")
	w := f.prepare(f.branchOpts("feature/x"))
	if w.Source != "feature/x" || w.Target != "main" || !w.Worktree {
		t.Errorf("Source, Target, Worktree = %q, %q, %v", w.Source, w.Target, w.Worktree)
	}
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != mainTip {
		t.Errorf("new branch starts at %s, want HEAD %s", got, mainTip)
	}
	if got := f.git(w.Dir, "symbolic-ref", "--short", "HEAD"); got != "feature/x" {
		t.Errorf("worktree on %q", got)
	}
	if got := f.git(f.dir, "config", "--list", "--local"); strings.Contains(got, "branch.feature/x") {
		t.Errorf("upstream config written:\n%s", got)
	}
	sha := f.commit(w.Dir, "a", "a\n", "agent work")
	out, err := w.Finish(t.Context(), true)
	if err != nil || out != (workspace.Outcome{}) {
		t.Errorf("Finish = %+v, %v; want nothing kept", out, err)
	}
	if exists(w.Dir) {
		t.Error("clean worktree not removed")
	}
	if got := f.git(f.dir, "rev-parse", "feature/x"); got != sha {
		t.Errorf("feature/x = %s, want the agent's commit %s", got, sha)
	}
}

func TestBranch_existing_local_branch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "checkout", "-q", "-b", "feature")
	tip := f.commit(f.dir, "f", "f\n", "feature work")
	f.git(f.dir, "checkout", "-q", "main")

	w := f.prepare(f.branchOpts("feature"))
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != tip {
		t.Errorf("worktree at %s, want the branch tip %s", got, tip)
	}
	if _, err := w.Finish(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	if !f.branchExists("feature") {
		t.Error("a failed run deleted the user's branch")
	}
}

func TestBranch_only_on_origin_continues_it(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := f.clone()
	f.git(other, "checkout", "-q", "-b", "pushed")
	tip := f.commit(other, "p", "p\n", "pushed work")
	f.git(other, "push", "-q", "origin", "pushed")

	w := f.prepare(f.branchOpts("pushed"))
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != tip {
		t.Errorf("worktree at %s, want origin's tip %s", got, tip)
	}
}

func TestBranch_reuse_dirty_worktree_as_is(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.branchOpts("feature"))
	write(t, filepath.Join(w.Dir, "wip.txt"), "work in progress\n")
	out, err := w.Finish(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	if out.PreservedPath != w.Dir || out.KeptBranch != "" {
		t.Errorf("Outcome = %+v, want PreservedPath %s", out, w.Dir)
	}

	again := f.prepare(f.branchOpts("feature"))
	if again.Dir != w.Dir {
		t.Errorf("second Dir = %q, want the preserved %q", again.Dir, w.Dir)
	}
	if got := read(t, filepath.Join(again.Dir, "wip.txt")); got != "work in progress\n" {
		t.Errorf("wip.txt = %q", got)
	}
	if !strings.Contains(f.logs.String(), "reusing worktree with uncommitted changes") {
		t.Errorf("no reuse warning logged:\n%s", f.logs)
	}
	if strings.Contains(f.logs.String(), "status_error") {
		t.Errorf("a status error is logged though the status was read:\n%s", f.logs)
	}
}

// pushedBranch makes branch "feature" on origin and in the host, and a worktree for it that
// was abandoned clean, as by a run that died.
func pushedBranch(t *testing.T, f *fixture) (dir, other string) {
	t.Helper()
	f.git(f.dir, "branch", "feature")
	f.git(f.dir, "push", "-q", "origin", "feature")
	w := f.prepare(f.branchOpts("feature"))
	w.Abandon()
	other = f.clone()
	f.git(other, "checkout", "-q", "feature")
	return w.Dir, other
}

func TestBranch_reuse_clean_fast_forwards_from_origin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir, other := pushedBranch(t, f)
	remoteTip := f.commit(other, "r", "r\n", "remote work")
	f.git(other, "push", "-q", "origin", "feature")

	w := f.prepare(f.branchOpts("feature"))
	if w.Dir != dir {
		t.Errorf("Dir = %q, want the reused %q", w.Dir, dir)
	}
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != remoteTip {
		t.Errorf("reused worktree at %s, want fast-forwarded to %s", got, remoteTip)
	}
}

func TestBranch_reuse_diverged_is_left_alone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir, other := pushedBranch(t, f)
	f.commit(other, "r", "r\n", "remote work")
	f.git(other, "push", "-q", "origin", "feature")
	local := f.commit(dir, "l", "l\n", "unpushed local work")

	w := f.prepare(f.branchOpts("feature"))
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != local {
		t.Errorf("reused worktree at %s, want its own unpushed commit %s", got, local)
	}
	if got := f.status(w.Dir); got != "" {
		t.Errorf("worktree status = %q, want clean (no merge attempted)", got)
	}
	if !strings.Contains(f.logs.String(), "diverged") {
		t.Errorf("no divergence logged:\n%s", f.logs)
	}
}

func TestBranch_reuse_without_origin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "remote", "remove", "origin")
	first := f.prepare(f.branchOpts("feature"))
	sha := f.commit(first.Dir, "a", "a\n", "work")
	first.Abandon()
	w := f.prepare(f.branchOpts("feature"))
	if got := f.git(w.Dir, "rev-parse", "HEAD"); w.Dir != first.Dir || got != sha {
		t.Errorf("reuse = %s at %s, want %s at %s", w.Dir, got, first.Dir, sha)
	}
}

func TestBranch_in_use_by_another_run(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.prepare(f.branchOpts("feature"))
	_, err := workspace.Prepare(t.Context(), f.env, f.branchOpts("feature"))
	if err == nil || !strings.Contains(err.Error(), "is in use by another sandcastle run (pid ") || strings.Count(err.Error(), "in use") != 1 {
		t.Fatalf("second Prepare error = %v, want it to say once that the worktree is in use, naming the pid", err)
	}
	if !exists(first.Dir) {
		t.Fatal("the failed second Prepare removed the first run's worktree")
	}
	if _, err := first.Finish(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	f.prepare(f.branchOpts("feature"))
}

func TestBranch_similar_names_get_separate_worktrees(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ab := f.prepare(f.branchOpts("a/b"))
	dash := f.prepare(f.branchOpts("a-b"))
	if ab.Dir == dash.Dir {
		t.Fatalf("a/b and a-b share %s", ab.Dir)
	}
	for _, w := range []*workspace.Workspace{ab, dash} {
		if got := f.git(w.Dir, "symbolic-ref", "--short", "HEAD"); got != w.Source {
			t.Errorf("worktree %s is on %q, want %q", w.Dir, got, w.Source)
		}
	}
}

func TestPrune_deletes_only_unregistered_unlocked_dirs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := f.prepare(f.branchOpts("live"))
	root := filepath.Join(f.dir, ".sandcastle", "worktrees")
	stale := filepath.Join(root, "stale")
	busy := filepath.Join(root, "busy")
	write(t, filepath.Join(stale, "x"), "x")
	write(t, filepath.Join(busy, "x"), "x")
	release, err := workspace.HoldLock(f.dir, "busy")
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	f.prepare(f.branchOpts("next")) // prunes first
	if exists(stale) {
		t.Error("stale directory not deleted")
	}
	if !exists(busy) {
		t.Error("directory locked by another run was deleted")
	}
	if !exists(live.Dir) {
		t.Error("registered worktree was deleted")
	}
}

// TestBranch_failed_fetch_stops_the_run: when origin cannot be read, the run cannot tell a
// branch that is not on origin from one it failed to fetch; starting it afresh from HEAD would
// make a second history that the push must refuse. Prepare fails naming the branch and origin,
// and leaves no worktree, branch or lock behind, whether the fetch is git's own or the caller's.
func TestBranch_failed_fetch_stops_the_run(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(f *fixture, o *workspace.Options)
	}{
		{"origin_unreachable", func(f *fixture, o *workspace.Options) {
			f.git(f.dir, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
		}},
		{"callers_fetch_fails", func(f *fixture, o *workspace.Options) {
			o.Fetch = func(context.Context, string) (bool, error) {
				return false, errors.New("fetch pushed from origin: authentication failed")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			o := f.branchOpts("pushed")
			tt.setup(f, &o)
			before := f.branches()
			exclude := filepath.Join(f.dir, ".git", "info", "exclude")
			excludeBefore, _ := os.ReadFile(exclude)
			_, err := workspace.Prepare(t.Context(), f.env, o)
			if err == nil || !strings.Contains(err.Error(), "could not read branch pushed on origin") {
				t.Fatalf("Prepare err = %v, want it to say the branch could not be read on origin", err)
			}
			if got := f.branches(); !slices.Equal(got, before) {
				t.Errorf("branches = %v, want %v: nothing created", got, before)
			}
			if got := f.worktrees(); len(got) != 1 {
				t.Errorf("worktrees = %v, want the checkout only", got)
			}
			if got, _ := os.ReadFile(exclude); string(got) != string(excludeBefore) {
				t.Errorf("info/exclude = %q, want it as it was: %q", got, excludeBefore)
			}
			if _, err := os.Lstat(filepath.Join(f.dir, ".sandcastle")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf(".sandcastle was left behind (%v)", err)
			}
			if _, err := workspace.Prepare(t.Context(), f.env, f.opts(inputs.StrategyHead)); err != nil {
				t.Errorf("a lock or worktree was left behind: %v", err)
			}
		})
	}
}

// TestBranch_not_on_origin_is_quiet: a branch origin does not have yet, or a repository
// without origin, is the ordinary first run: nothing about fetching is logged.
func TestBranch_not_on_origin_is_quiet(t *testing.T) {
	t.Parallel()
	for _, noOrigin := range []bool{false, true} {
		f := newFixture(t)
		if noOrigin {
			f.git(f.dir, "remote", "remove", "origin")
		}
		w := f.prepare(f.branchOpts("feature"))
		if got := f.git(w.Dir, "rev-parse", "HEAD"); got != f.git(f.dir, "rev-parse", "main") {
			t.Errorf("no origin %v: new branch at %s, want HEAD", noOrigin, got)
		}
		if logs := f.logs.String(); strings.Contains(logs, "fetch") {
			t.Errorf("no origin %v: a fetch was logged:\n%s", noOrigin, logs)
		}
	}
}

// TestBranch_of_a_pull_request starts a branch neither the repository nor origin has from the
// pull request's head, refs/pull/<n>/head on origin, which a fork's head is known as alone;
// a branch origin has (an earlier run's) is continued instead, and the head is not fetched.
func TestBranch_of_a_pull_request(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := f.clone()
	head := f.commit(other, "fork.txt", "a stranger's change\n", "Fork work")
	f.git(other, "push", "-q", "origin", "HEAD:refs/pull/7/head")

	o := f.branchOpts("sandcastle/pr-7-" + head[:7])
	o.Pull = 7
	w := f.prepare(o)
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("new branch starts at %s, want the pull request's head %s", got, head)
	}
	if got := f.git(f.dir, "rev-parse", "refs/pull/7/head"); got != head {
		t.Errorf("refs/pull/7/head = %s, want %s", got, head)
	}
	f.finish(w)

	// An earlier run pushed the branch: it goes on from there, and the head is not read again.
	f.git(other, "push", "-q", "origin", "HEAD:refs/heads/continued")
	pushed := f.commit(other, "more.txt", "more\n", "Earlier run")
	f.git(other, "push", "-q", "origin", "HEAD:refs/heads/continued")
	o = f.branchOpts("continued")
	o.Pull = 8 // origin has no refs/pull/8/head: fetching it would fail
	w = f.prepare(o)
	if got := f.git(w.Dir, "rev-parse", "HEAD"); got != pushed {
		t.Errorf("branch on origin: worktree at %s, want origin's tip %s", got, pushed)
	}
	f.finish(w)

	o = f.branchOpts("sandcastle/pr-9")
	o.Pull = 9
	before := f.branches()
	if _, err := workspace.Prepare(t.Context(), f.env, o); err == nil || !strings.Contains(err.Error(), "the head of pull request #9, which sandcastle/pr-9 starts from") {
		t.Errorf("Prepare with a pull request origin lacks = %v, want the fetch's error", err)
	}
	if got := f.branches(); !slices.Equal(got, before) || len(f.managedDirs()) != 0 {
		t.Errorf("a failed Prepare left branches %q (before %q) or worktrees %q", got, before, f.managedDirs())
	}
}
