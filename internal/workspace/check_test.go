package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// snapshot is every file under dir with its content, .git included: what a refused Prepare must
// leave exactly as it was.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			files[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCheck_refuses_unusable_repositories: a repository that cannot host the workspace is
// refused by Preview and by Prepare alike, with a CheckError that names the input to change,
// and nothing in it changes: not even info/exclude.
func TestCheck_refuses_unusable_repositories(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(f *fixture) workspace.Options
		reason workspace.Reason
		want   string
		input  string
	}{
		{"not_a_repository", func(f *fixture) workspace.Options {
			o := f.opts(inputs.StrategyHead)
			o.RepoDir = filepath.Join(f.dir, "..")
			return o
		}, workspace.NotARepository, "is not in a git working tree", inputs.InputWorkingDirectory},
		{"bare_repository", func(f *fixture) workspace.Options {
			o := f.opts(inputs.StrategyHead)
			o.RepoDir = f.origin
			return o
		}, workspace.NotARepository, "is not in a git working tree", inputs.InputWorkingDirectory},
		{"no_commits", func(f *fixture) workspace.Options {
			f.git(f.dir, "checkout", "-q", "--orphan", "fresh")
			f.git(f.dir, "rm", "-rfq", "--cached", ".")
			f.git(f.dir, "branch", "-D", "main")
			return f.opts(inputs.StrategyHead)
		}, workspace.NoCommits, "has no commits yet", inputs.InputWorkingDirectory},
		{"merge_to_head_detached", func(f *fixture) workspace.Options {
			f.git(f.dir, "checkout", "-q", "--detach")
			return f.opts(inputs.StrategyMergeToHead)
		}, workspace.DetachedHead, "HEAD in " + "%s is detached; check out a branch, or use branch-strategy branch", inputs.InputBranchStrategy},
		{"branch_in_main_tree", func(f *fixture) workspace.Options {
			return f.branchOpts("main")
		}, workspace.BranchCheckedOut, `branch "main" is checked out in the main working tree %s`, inputs.InputBranch},
		{"branch_in_foreign_worktree", func(f *fixture) workspace.Options {
			f.git(f.dir, "worktree", "add", "-q", "-b", "theirs", filepath.Join(f.dir, "..", "foreign"))
			return f.branchOpts("theirs")
		}, workspace.BranchCheckedOut, `branch "theirs" is checked out in worktree`, inputs.InputBranch},
		{"managed_worktree_on_another_branch", func(f *fixture) workspace.Options {
			dir := filepath.Join(f.dir, ".sandcastle", "worktrees", workspace.DirName("feature"))
			f.git(f.dir, "worktree", "add", "-q", "-b", "other", dir)
			return f.branchOpts("feature")
		}, workspace.WorktreeOnOtherBranch, `meant for branch "feature", has branch "other" checked out`, inputs.InputBranch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			o := tt.setup(f)
			want := strings.ReplaceAll(tt.want, "%s", f.dir)
			before := snapshot(t, filepath.Dir(f.dir))
			branches := f.git(f.origin, "for-each-ref")

			for name, err := range map[string]error{
				"Preview": previewErr(t, f, o),
				"Prepare": prepareErr(t, f, o),
			} {
				var ce *workspace.CheckError
				if !errors.As(err, &ce) || ce.Reason != tt.reason {
					t.Errorf("%s error = %v, want a CheckError with reason %d", name, err, tt.reason)
				} else if !strings.Contains(err.Error(), want) {
					t.Errorf("%s error = %q, want it to contain %q", name, err, want)
				} else if p := ce.Problem(true); p.Input != tt.input || !strings.Contains(p.Message, want) {
					t.Errorf("%s problem = %+v, want input %q", name, p, tt.input)
				}
			}
			after := snapshot(t, filepath.Dir(f.dir))
			for path, content := range after {
				if was, ok := before[path]; !ok || was != content {
					t.Errorf("%s was created or changed", path)
				}
			}
			for path := range before {
				if _, ok := after[path]; !ok {
					t.Errorf("%s was deleted", path)
				}
			}
			if got := f.git(f.origin, "for-each-ref"); got != branches {
				t.Errorf("origin's refs changed")
			}
		})
	}
}

func previewErr(t *testing.T, f *fixture, o workspace.Options) error {
	_, err := workspace.Preview(t.Context(), f.env, o)
	return err
}

func prepareErr(t *testing.T, f *fixture, o workspace.Options) error {
	w, err := workspace.Prepare(t.Context(), f.env, o)
	if err == nil {
		f.finish(w)
	}
	return err
}

// TestHead_one_run_at_a_time: a second head run in a checkout is refused while the first works
// there, so each run's commits are its own; it says "in use" once and names the holder; the
// lock goes with the first run's end, even when that run died.
func TestHead_one_run_at_a_time(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.prepare(f.opts(inputs.StrategyHead))
	_, err := workspace.Prepare(t.Context(), f.env, f.opts(inputs.StrategyHead))
	if err == nil {
		t.Fatal("a second head run in the same checkout was prepared")
	}
	msg := err.Error()
	if n := strings.Count(msg, "in use"); n != 1 || !strings.Contains(msg, "the checkout "+f.dir+" is in use by another sandcastle run (pid ") {
		t.Errorf("error = %q, want it to say once that the checkout is in use, naming the pid", msg)
	}
	f.finish(first)

	second := f.prepare(f.opts(inputs.StrategyHead))
	second.Abandon() // as if its process had died
	f.finish(f.prepare(f.opts(inputs.StrategyHead)))
}

// TestMergeToHead_waits_for_no_head_run: merge-to-head does not merge into a checkout a head run
// works in (that run would report the merged commits as its own): the branch is kept and the
// checkout left alone.
func TestMergeToHead_waits_for_no_head_run(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyMergeToHead))
	f.commit(w.Dir, "agent", "agent\n", "agent work")
	head := f.prepare(f.opts(inputs.StrategyHead))
	mainTip := f.git(f.dir, "rev-parse", "main")

	out, err := w.Finish(t.Context(), true)
	var me *workspace.MergeError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "in use by another sandcastle run") {
		t.Errorf("Finish error = %v, want a MergeError saying the checkout is in use", err)
	}
	if out.Merged || out.KeptBranch != w.Source {
		t.Errorf("Outcome = %+v, want not merged and the branch kept", out)
	}
	if got := f.git(f.dir, "rev-parse", "main"); got != mainTip {
		t.Errorf("main = %s, want it unchanged at %s", got, mainTip)
	}
	f.finish(head)
	if !slices.Contains(f.branches(), w.Source) {
		t.Errorf("branch %s is gone", w.Source)
	}
}
