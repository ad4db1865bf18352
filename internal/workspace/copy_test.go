package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func TestCopyToWorktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.commit(f.dir, "config/tracked.txt", "tracked\n", "add config dir")
	// Files git does not carry into a new worktree.
	write(t, filepath.Join(f.dir, ".env"), "SECRET=1\n")
	write(t, filepath.Join(f.dir, "config", "local.json"), "{}\n")
	write(t, filepath.Join(f.dir, "deps", "pkg", "index.js"), "js\n")
	write(t, filepath.Join(f.dir, "deps", "bin", "tool"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(f.dir, "deps", "bin", "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pkg/index.js", filepath.Join(f.dir, "deps", "main.js")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.dir, "deep", "nested", "file.txt"), "deep\n")

	o := f.opts(inputs.StrategyMergeToHead)
	o.CopyToWorktree = []string{".env", "config", "deps", "deep/nested/file.txt", "missing/thing"}
	w := f.prepare(o)

	for file, want := range map[string]string{
		".env":                 "SECRET=1\n",
		"config/local.json":    "{}\n",
		"config/tracked.txt":   "tracked\n",
		"deps/pkg/index.js":    "js\n",
		"deep/nested/file.txt": "deep\n",
	} {
		if got := read(t, filepath.Join(w.Dir, file)); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if exists(filepath.Join(w.Dir, "config", "config")) {
		t.Error("directory copied into itself (cp -R nesting) instead of merged")
	}
	fi, err := os.Stat(filepath.Join(w.Dir, "deps", "bin", "tool"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o755 {
		t.Errorf("tool mode = %v, want 0755", got)
	}
	if target, err := os.Readlink(filepath.Join(w.Dir, "deps", "main.js")); err != nil || target != "pkg/index.js" {
		t.Errorf("symlink = %q, %v; want pkg/index.js", target, err)
	}
	if !strings.Contains(f.logs.String(), "missing/thing") {
		t.Errorf("missing source not logged:\n%s", f.logs)
	}
}

func TestCopyToWorktree_does_not_follow_planted_symlinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	outside := t.TempDir()
	first := f.prepare(f.branchOpts("feature"))
	// An earlier agent left a symlink pointing out of its worktree.
	if err := os.Symlink(outside, filepath.Join(first.Dir, "config")); err != nil {
		t.Fatal(err)
	}
	if out, _ := first.Finish(t.Context(), false); out.PreservedPath == "" {
		t.Fatal("dirty worktree was not preserved")
	}
	write(t, filepath.Join(f.dir, "config", ".env"), "SECRET=1\n")

	o := f.branchOpts("feature")
	o.CopyToWorktree = []string{"config/.env"}
	if _, err := workspace.Prepare(t.Context(), f.env, o); err == nil {
		t.Error("Prepare copied through a symlink leaving the worktree")
	}
	if exists(filepath.Join(outside, ".env")) {
		t.Error("file written outside the worktree")
	}
	if !exists(first.Dir) {
		t.Error("the failed Prepare removed a reused worktree with uncommitted changes")
	}
}

func TestPrepare_failure_leaves_nothing_behind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		opts           func(f *fixture) workspace.Options
		existingBranch bool
	}{
		{"merge_to_head", func(f *fixture) workspace.Options { return f.opts(inputs.StrategyMergeToHead) }, false},
		{"new_branch", func(f *fixture) workspace.Options { return f.branchOpts("feature") }, false},
		{"existing_branch", func(f *fixture) workspace.Options { return f.branchOpts("feature") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.existingBranch {
				f.git(f.dir, "branch", "feature")
			}
			// The host checkout turned the tracked file README into a directory; copying it onto
			// the worktree's README file fails after the worktree exists.
			if err := os.Remove(filepath.Join(f.dir, "README")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(f.dir, "README", "x"), "x")
			o := tt.opts(f)
			o.CopyToWorktree = []string{"README"}

			_, err := workspace.Prepare(t.Context(), f.env, o)
			if err == nil || !strings.Contains(err.Error(), "copy-to-worktree README") {
				t.Fatalf("Prepare error = %v, want the copy failure", err)
			}
			if got := f.managedDirs(); len(got) != 0 {
				t.Errorf("worktree directories left: %q", got)
			}
			if got := f.worktrees(); len(got) != 1 {
				t.Errorf("worktrees left registered: %q", got)
			}
			want := []string{"main"}
			if tt.existingBranch {
				want = []string{"feature", "main"}
			}
			if got := f.branches(); !slices.Equal(got, want) {
				t.Errorf("branches = %q, want %q", got, want)
			}
		})
	}
}

func TestCopyToWorktree_rejects_paths_outside_the_repository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.opts(inputs.StrategyMergeToHead)
	o.CopyToWorktree = []string{"../outside"}
	_, err := workspace.Prepare(t.Context(), f.env, o)
	if err == nil || !strings.Contains(err.Error(), "not a path inside the repository") {
		t.Errorf("Prepare error = %v, want the path refused", err)
	}
	if got := f.branches(); !slices.Equal(got, []string{"main"}) {
		t.Errorf("branches = %q, want only main", got)
	}
}
