package workspace

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// MergeError means the agent's branch could not be merged into the host branch. The host
// checkout is left as it was before the merge and the branch is kept.
type MergeError struct {
	Branch string // the kept branch with the agent's commits
	Target string // the host branch it was to be merged into
	Err    error
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("merge %s into %s: %v; the branch %s was kept: to finish by hand run `git switch %s`, `git merge %s` (resolve any conflicts and commit), then `git branch -D %s`",
		e.Branch, e.Target, e.Err, e.Branch, e.Target, e.Branch, e.Branch)
}

func (e *MergeError) Unwrap() error { return e.Err }

// Finish ends the run in the workspace. ok says the run succeeded: only then, and only while
// ctx is live, are merge-to-head commits merged into Target. Cleanup runs even when ctx has
// ended. A worktree with uncommitted changes, or whose state cannot be read, is kept and named
// in PreservedPath; a clean one is removed. A merge-to-head branch is deleted once merged or
// when it has no commits, and otherwise kept and named in KeptBranch. The error is a
// *MergeError when the merge failed. Finish is idempotent.
func (w *Workspace) Finish(ctx context.Context, ok bool) (Outcome, error) {
	if w.finished {
		return Outcome{}, nil
	}
	w.finished = true
	defer func() {
		w.lock.release()
		w.lock = nil
	}()
	if !w.Worktree {
		return Outcome{}, nil
	}
	ok = ok && ctx.Err() == nil // a cancelled run is never merged

	var out Outcome
	var err error
	hasCommits := false
	if w.Strategy == inputs.StrategyMergeToHead {
		hasCommits = w.hasCommits(ctx)
		if ok && hasCommits {
			out.MergeCommit, err = w.merge(ctx)
			out.Merged = err == nil
		}
	}
	out.PreservedPath = w.removeWorktree(ctx)
	if w.Strategy == inputs.StrategyMergeToHead {
		if out.PreservedPath != "" || (hasCommits && !out.Merged) || !w.deleteBranch(ctx, out.Merged) {
			out.KeptBranch = w.Source
		}
	}
	return out, err
}

// hasCommits reports whether the temporary branch moved since it was created; when that cannot
// be read it answers true, so the branch is kept.
func (w *Workspace) hasCommits(ctx context.Context) bool {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	n, err := w.host.Run(ctx, "rev-list", "--count", w.start+".."+w.tip(), "--")
	if err != nil {
		w.log.Warn("could not count the agent's commits; keeping its branch", "branch", w.Source, "err", err)
		return true
	}
	return n != "0"
}

// merge merges the temporary branch into the host checkout, which must still be on Target, and
// returns the merge commit ("" for a fast-forward). Any failure leaves the host as it was.
func (w *Workspace) merge(ctx context.Context) (string, error) {
	// Once decided, the merge is not interrupted half-way by cancellation: only its own deadline
	// stops it, and a stopped merge is aborted.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mergeTimeout)
	defer cancel()
	fail := func(err error) (string, error) {
		return "", &MergeError{Branch: w.Source, Target: w.Target, Err: err}
	}
	// No run may work in the checkout while the merge changes it, nor another merge run at once.
	l, err := lockCheckout(w.host.Dir)
	if err != nil {
		return fail(err)
	}
	defer l.release()
	cur, err := w.host.CurrentBranch(ctx)
	if err != nil {
		return fail(err)
	}
	if cur != w.Target {
		now := strconv.Quote(cur)
		if cur == "" {
			now = "a detached HEAD"
		}
		return fail(fmt.Errorf("the host checkout is now on %s, not on %q where the run started", now, w.Target))
	}
	if err := w.checkUntouched(ctx); err != nil {
		return fail(err)
	}
	g := w.host
	if id := w.identity(ctx); len(id) > 0 {
		g = g.WithConfig(id...)
	}
	// Flags override any merge.ff, mergeOptions or autostash settings that would change what a
	// plain merge does.
	if _, err := g.Run(ctx, "merge", "--ff", "--no-edit", "--no-squash", "--no-autostash", "--quiet", w.Source); err != nil {
		w.abortMerge(ctx)
		return fail(err)
	}
	head, err := w.host.Head(ctx)
	if err != nil {
		return "", nil // merged; only the report of the commit is missing
	}
	if tip, _ := w.host.Resolve(ctx, w.tip()); tip == head {
		return "", nil // fast-forward
	}
	return head, nil
}

// checkUntouched refuses a merge that would change files with uncommitted changes in the host
// checkout: git would refuse most such merges anyway, but an abort after a conflict cannot
// always restore them.
func (w *Workspace) checkUntouched(ctx context.Context) error {
	dirty, err := w.host.Status(ctx)
	if err != nil {
		return fmt.Errorf("read status of the host checkout: %w", err)
	}
	if len(dirty) == 0 {
		return nil
	}
	base, err := w.host.Run(ctx, "merge-base", "HEAD", w.tip())
	if err != nil {
		return fmt.Errorf("find merge base: %w", err)
	}
	out, err := w.host.Run(ctx, "diff", "--name-only", "-z", "--no-renames", base, w.tip(), "--")
	if err != nil {
		return fmt.Errorf("list changed files: %w", err)
	}
	changed := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if both := overlap(dirty, changed); len(both) > 0 {
		if len(both) > 5 {
			both = append(both[:5], "...")
		}
		return fmt.Errorf("it would change files with uncommitted changes in the host checkout (%s); commit or stash them first", strings.Join(both, ", "))
	}
	return nil
}

// overlap returns the paths of a that are, contain or lie inside a path of b.
func overlap(a, b []string) []string {
	inB := map[string]bool{}
	for _, p := range b {
		if p == "" {
			continue
		}
		for q := p; q != "." && q != "/"; q = path.Dir(q) {
			inB[q] = true // b's paths and their parent directories
		}
	}
	exact := map[string]bool{}
	for _, p := range b {
		exact[p] = true
	}
	var both []string
	for _, p := range a {
		hit := inB[p]
		for q := path.Dir(p); !hit && q != "." && q != "/"; q = path.Dir(q) {
			hit = exact[q]
		}
		if hit {
			both = append(both, p)
		}
	}
	return both
}

// identity supplies a committer for a merge commit when the repository has none, without
// writing any config.
func (w *Workspace) identity(ctx context.Context) []string {
	var id []string
	if _, ok, _ := w.host.ConfigValue(ctx, "user.name"); !ok {
		id = append(id, "user.name=sandcastle")
	}
	if _, ok, _ := w.host.ConfigValue(ctx, "user.email"); !ok {
		id = append(id, "user.email=sandcastle@localhost")
	}
	return id
}

// abortMerge takes the host checkout out of a half-done merge.
func (w *Workspace) abortMerge(ctx context.Context) {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	if _, err := w.host.Run(ctx, "rev-parse", "--quiet", "--verify", "MERGE_HEAD"); err != nil {
		return // the merge never started
	}
	if _, err := w.host.Run(ctx, "merge", "--abort"); err != nil {
		w.log.Error("could not abort the failed merge; run `git merge --abort` in the host checkout", "dir", w.host.Dir, "err", err)
	}
}

// removeWorktree removes a clean worktree and returns "" or, when it is kept, its path.
func (w *Workspace) removeWorktree(ctx context.Context) string {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	if dirty, err := w.wt.IsDirty(ctx); dirty {
		w.log.Warn("worktree has uncommitted changes and was kept; to clean up run `git worktree remove --force "+w.Dir+"`",
			statusAttrs(err, "path", w.Dir, "branch", w.Source)...)
		return w.Dir
	}
	// Without --force git itself refuses to delete anything that appeared since our check.
	if _, err := w.host.Run(ctx, "worktree", "remove", w.Dir); err != nil {
		w.log.Warn("could not remove worktree; kept", "path", w.Dir, "err", err)
		return w.Dir
	}
	return ""
}

// deleteBranch deletes the temporary branch and reports whether it is gone. A merged branch is
// deleted with -d, so git double-checks that nothing is lost.
func (w *Workspace) deleteBranch(ctx context.Context, merged bool) bool {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	flag := "-D"
	if merged {
		flag = "-d"
	}
	if _, err := w.host.Run(ctx, "branch", flag, w.Source); err != nil {
		w.log.Warn("could not delete branch; kept", "branch", w.Source, "err", err)
		return false
	}
	return true
}
