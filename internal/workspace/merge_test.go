package workspace_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func TestMergeToHead_fast_forward(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.opts(inputs.StrategyMergeToHead)
	o.Name = "My Run"
	w := f.prepare(o)

	if !regexp.MustCompile(`^sandcastle/my-run/20250102-030405-[0-9a-f]{6}$`).MatchString(w.Source) {
		t.Errorf("Source = %q, want sandcastle/my-run/20250102-030405-<hex6>", w.Source)
	}
	if w.Target != "main" || !w.Worktree {
		t.Errorf("Target, Worktree = %q, %v; want main, true", w.Target, w.Worktree)
	}
	if got, want := filepath.Dir(w.Dir), filepath.Join(f.dir, ".sandcastle", "worktrees"); got != want {
		t.Errorf("Dir = %q, want it under %q", w.Dir, want)
	}
	if got := f.git(w.Dir, "symbolic-ref", "--short", "HEAD"); got != w.Source {
		t.Errorf("worktree is on %q, want the Source branch %q", got, w.Source)
	}
	if got := f.status(f.dir); got != "" {
		t.Errorf("host status with a worktree = %q, want clean", got)
	}

	base, err := w.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	first := f.commit(w.Dir, "a", "a\n", "one")
	second := f.commit(w.Dir, "b", "b\n", "two")
	commits, err := w.Commits(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	want := []gitref.Commit{{SHA: first, Subject: "one"}, {SHA: second, Subject: "two"}}
	if !slices.Equal(commits, want) {
		t.Errorf("Commits = %+v, want %+v", commits, want)
	}

	out, err := w.Finish(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := (workspace.Outcome{Merged: true}); out != want {
		t.Errorf("Outcome = %+v, want %+v (a fast-forward has no merge commit)", out, want)
	}
	if got := f.git(f.dir, "rev-parse", "main"); got != second {
		t.Errorf("main = %s, want the agent's tip %s", got, second)
	}
	if exists(w.Dir) || len(f.worktrees()) != 1 {
		t.Errorf("worktree %s still there: %q", w.Dir, f.worktrees())
	}
	if f.branchExists(w.Source) {
		t.Errorf("temporary branch %s was not deleted", w.Source)
	}
	if got := f.status(f.dir); got != "" {
		t.Errorf("host status = %q, want clean", got)
	}
}

func TestMergeToHead_host_moved_makes_merge_commit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	base, err := w.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	hostTip := f.commit(f.dir, "host", "host\n", "host work")
	agent := f.commit(w.Dir, "agent", "agent\n", "agent work")

	commits, err := w.Commits(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []gitref.Commit{{SHA: agent, Subject: "agent work"}}; !slices.Equal(commits, want) {
		t.Errorf("Commits = %+v, want only the agent's %+v", commits, want)
	}
	out, err := w.Finish(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	head := f.git(f.dir, "rev-parse", "HEAD")
	if !out.Merged || out.MergeCommit != head {
		t.Errorf("Outcome = %+v, want Merged with MergeCommit %s", out, head)
	}
	if got, want := f.git(f.dir, "log", "-1", "--format=%P"), hostTip+" "+agent; got != want {
		t.Errorf("merge parents = %q, want %q", got, want)
	}
	if got, want := f.git(f.dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>"), "sandcastle <sandcastle@localhost>|sandcastle <sandcastle@localhost>"; got != want {
		t.Errorf("merge identity = %q, want %q", got, want)
	}
	if got, want := f.git(f.dir, "log", "-1", "--format=%s"), "Merge branch '"+w.Source+"'"; got != want {
		t.Errorf("merge subject = %q, want %q", got, want)
	}
	if f.branchExists(w.Source) {
		t.Errorf("temporary branch %s was not deleted", w.Source)
	}
	if strings.Contains(read(t, filepath.Join(f.dir, ".git", "config")), "sandcastle") {
		t.Error("the identity was written to .git/config")
	}
}

func TestMergeToHead_uses_repository_identity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "config", "user.name", "Repo Person")
	f.git(f.dir, "config", "user.email", "repo@example.com")
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	f.commit(f.dir, "host", "host\n", "host work")
	f.commit(w.Dir, "agent", "agent\n", "agent work")
	if _, err := w.Finish(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if got, want := f.git(f.dir, "log", "-1", "--format=%cn <%ce>"), "Repo Person <repo@example.com>"; got != want {
		t.Errorf("merge committer = %q, want %q", got, want)
	}
}

func TestMergeToHead_conflict_is_aborted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	hostTip := f.commit(f.dir, "README", "host version\n", "host edit")
	f.commit(w.Dir, "README", "agent version\n", "agent edit")

	out, err := w.Finish(t.Context(), true)
	var me *workspace.MergeError
	if !errors.As(err, &me) {
		t.Fatalf("Finish error = %v, want *MergeError", err)
	}
	for _, want := range []string{"git merge " + w.Source, "git branch -D " + w.Source, "git switch main", "CONFLICT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if want := (workspace.Outcome{KeptBranch: w.Source}); out != want {
		t.Errorf("Outcome = %+v, want %+v", out, want)
	}
	if f.try(f.dir, "rev-parse", "--quiet", "--verify", "MERGE_HEAD") {
		t.Error("host checkout left mid-merge (MERGE_HEAD exists)")
	}
	if got := f.git(f.dir, "rev-parse", "HEAD"); got != hostTip {
		t.Errorf("host HEAD = %s, want unchanged %s", got, hostTip)
	}
	if got := read(t, filepath.Join(f.dir, "README")); got != "host version\n" {
		t.Errorf("host README = %q, want untouched", got)
	}
	if got := f.status(f.dir); got != "" {
		t.Errorf("host status = %q, want clean", got)
	}
	if !f.branchExists(w.Source) {
		t.Errorf("branch %s with the agent's commit was deleted", w.Source)
	}
	if exists(w.Dir) {
		t.Error("clean worktree was not removed")
	}
}

func TestMergeToHead_host_switched_branch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	mainTip := f.git(f.dir, "rev-parse", "main")
	f.git(f.dir, "checkout", "-q", "-b", "elsewhere")
	f.commit(w.Dir, "agent", "agent\n", "agent work")

	out, err := w.Finish(t.Context(), true)
	if err == nil || !strings.Contains(err.Error(), `now on "elsewhere", not on "main"`) {
		t.Errorf("Finish error = %v, want it to say the host moved to elsewhere", err)
	}
	if out.Merged || out.KeptBranch != w.Source {
		t.Errorf("Outcome = %+v, want not merged and branch kept", out)
	}
	for _, b := range []string{"main", "elsewhere"} {
		if got := f.git(f.dir, "rev-parse", b); got != mainTip {
			t.Errorf("%s = %s, want unchanged %s", b, got, mainTip)
		}
	}
}

func TestMergeToHead_dirty_host(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		dirtyFile string
		wantErr   bool
	}{
		{"same_file_refused", "agent", true},
		{"unrelated_file_merged", "README", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			w := f.prepare(f.opts(inputs.StrategyMergeToHead))
			f.commit(f.dir, "host", "host\n", "host work") // so the merge is not a fast-forward
			f.commit(w.Dir, "agent", "agent\n", "agent work")
			write(t, filepath.Join(f.dir, tt.dirtyFile), "uncommitted\n")

			out, err := w.Finish(t.Context(), true)
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("Finish error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr && !strings.Contains(err.Error(), "uncommitted changes in the host checkout (agent)") {
				t.Errorf("error = %v, want it to name the file", err)
			}
			if out.Merged == tt.wantErr {
				t.Errorf("Merged = %v, want %v", out.Merged, !tt.wantErr)
			}
			if got := read(t, filepath.Join(f.dir, tt.dirtyFile)); got != "uncommitted\n" {
				t.Errorf("uncommitted host change = %q, want kept", got)
			}
		})
	}
}

func TestMergeToHead_finish_without_merge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		commit     bool
		ok         bool
		cancel     bool
		wantKept   bool
		wantMerged bool
	}{
		{"failed_run_with_commits_keeps_branch", true, false, false, true, false},
		{"failed_run_without_commits_deletes_branch", false, false, false, false, false},
		{"ok_run_without_commits_deletes_branch", false, true, false, false, false},
		{"cancelled_run_is_not_merged", true, true, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			w := f.prepare(f.opts(inputs.StrategyMergeToHead))
			mainTip := f.git(f.dir, "rev-parse", "main")
			if tt.commit {
				f.commit(w.Dir, "agent", "agent\n", "agent work")
			}
			ctx := t.Context()
			if tt.cancel {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			out, err := w.Finish(ctx, tt.ok)
			if err != nil {
				t.Fatal(err)
			}
			if out.Merged != tt.wantMerged || (out.KeptBranch != "") != tt.wantKept || out.PreservedPath != "" {
				t.Errorf("Outcome = %+v, want Merged %v, kept %v, nothing preserved", out, tt.wantMerged, tt.wantKept)
			}
			if got := f.branchExists(w.Source); got != tt.wantKept {
				t.Errorf("branch exists = %v, want %v", got, tt.wantKept)
			}
			if got := f.git(f.dir, "rev-parse", "main"); got != mainTip {
				t.Errorf("main moved to %s", got)
			}
			if exists(w.Dir) {
				t.Error("clean worktree was not removed")
			}
			if again, err := w.Finish(t.Context(), true); err != nil || again != (workspace.Outcome{}) {
				t.Errorf("second Finish = %+v, %v; want a no-op", again, err)
			}
		})
	}
}

func TestFinish_preserves_dirty_worktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	f.commit(w.Dir, "agent", "agent\n", "agent work")
	write(t, filepath.Join(w.Dir, "notes.txt"), "unfinished\n")

	out, err := w.Finish(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	want := workspace.Outcome{PreservedPath: w.Dir, KeptBranch: w.Source, Merged: true}
	if out != want {
		t.Errorf("Outcome = %+v, want %+v", out, want)
	}
	if got := read(t, filepath.Join(w.Dir, "notes.txt")); got != "unfinished\n" {
		t.Errorf("uncommitted file = %q", got)
	}
	if !strings.Contains(f.logs.String(), "uncommitted changes") {
		t.Errorf("no warning logged:\n%s", f.logs)
	}
}
