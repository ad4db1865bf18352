package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func TestHead_works_in_the_host_checkout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sub := filepath.Join(f.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	o := f.opts(inputs.StrategyHead)
	o.RepoDir = sub
	w := f.prepare(o)
	if got, want := w.Dir, f.dir; got != want {
		t.Errorf("Dir = %q, want the top level %q", got, want)
	}
	if w.Source != "main" || w.Target != "main" || w.Worktree {
		t.Errorf("Source, Target, Worktree = %q, %q, %v; want main, main, false", w.Source, w.Target, w.Worktree)
	}
	base, err := w.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sha := f.commit(f.dir, "a", "a\n", "agent work")
	commits, err := w.Commits(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []gitref.Commit{{SHA: sha, Subject: "agent work"}}; !slices.Equal(commits, want) {
		t.Errorf("Commits = %+v, want %+v", commits, want)
	}
	out, err := w.Finish(t.Context(), true)
	if err != nil || out != (workspace.Outcome{}) {
		t.Errorf("Finish = %+v, %v; want nothing to do", out, err)
	}
	if exists(filepath.Join(f.dir, ".sandcastle", "worktrees")) {
		t.Error("head strategy created .sandcastle/worktrees")
	}
}

func TestHead_detached_collects_on_HEAD(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "checkout", "-q", "--detach")
	w := f.prepare(f.opts(inputs.StrategyHead))
	if w.Source != "" || w.Target != "" {
		t.Errorf("Source, Target = %q, %q; want empty on a detached HEAD", w.Source, w.Target)
	}
	base, err := w.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sha := f.commit(f.dir, "a", "a\n", "detached work")
	commits, err := w.Commits(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 1 || commits[0].SHA != sha {
		t.Errorf("Commits = %+v, want the one commit %s", commits, sha)
	}
}

func TestPrepare_excludes_managed_dirs_once(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	exclude := filepath.Join(f.dir, ".git", "info", "exclude")
	write(t, exclude, "*.log") // no trailing newline
	f.finish(f.prepare(f.opts(inputs.StrategyHead)))
	first := read(t, exclude)
	f.finish(f.prepare(f.opts(inputs.StrategyHead)))
	if got := read(t, exclude); got != first {
		t.Errorf("second Prepare changed info/exclude:\n%s\nwas:\n%s", got, first)
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	want := []string{"*.log", "/.sandcastle/worktrees/", "/.sandcastle/logs/", "/.sandcastle/locks/"}
	if !slices.Equal(lines, want) {
		t.Errorf("info/exclude lines = %q, want %q", lines, want)
	}
	write(t, filepath.Join(f.dir, ".sandcastle", "logs", "run.log"), "x")
	if got := f.status(f.dir); got != "" {
		t.Errorf("host status = %q, want the log directory hidden", got)
	}
}

func TestPrepare_rejects_bad_branch_names(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		modify func(*workspace.Options)
		want   string
	}{
		{"branch_without_name", func(o *workspace.Options) { o.Strategy = inputs.StrategyBranch }, "not a valid git branch name"},
		{"branch_like_option", func(o *workspace.Options) { o.Strategy, o.Branch = inputs.StrategyBranch, "--force" }, `starts with "-"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := f.opts(inputs.StrategyHead)
			tt.modify(&o)
			_, err := workspace.Prepare(t.Context(), f.env, o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Prepare error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if got := f.branches(); !slices.Equal(got, []string{"main"}) {
		t.Errorf("branches = %q, want only main", got)
	}
}
