package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/hostfs"
)

// dirName maps a branch to its worktree directory name. Flattening alone is not injective
// (a/b and a-b would share a directory, and case-insensitive file systems merge Feat and feat),
// so a hash of the exact branch name is appended.
func dirName(branch string) string {
	flat := []byte(branch)
	for i, c := range flat {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			flat[i] = '-'
		}
	}
	if len(flat) > 80 { // file names have a length limit; the hash keeps it unique
		flat = flat[:80]
	}
	sum := sha256.Sum256([]byte(branch))
	return string(flat) + "-" + hex.EncodeToString(sum[:4])
}

// createTemp creates the merge-to-head worktree on a new branch at the host's HEAD.
func (w *Workspace) createTemp(ctx context.Context, top string) error {
	path := filepath.Join(managedRoot(top), dirName(w.Source))
	if err := w.acquire(top, path); err != nil {
		return err
	}
	start, err := w.host.Head(ctx)
	if err != nil {
		return fmt.Errorf("workspace: read HEAD of %s: %w", top, err)
	}
	if err := w.add(ctx, path, "-b", w.Source, path, start); err != nil {
		return err
	}
	w.createdBranch = true
	w.start = start
	return nil
}

// checkoutBranch gives the branch strategy its worktree: the managed one already holding the
// branch, or a new one.
func (w *Workspace) checkoutBranch(ctx context.Context, top string) error {
	branch := w.Source
	path := filepath.Join(managedRoot(top), dirName(branch))
	list, err := w.host.WorktreeList(ctx)
	if err != nil {
		return fmt.Errorf("workspace: list worktrees of %s: %w", top, err)
	}
	found, err := worktreeFor(list, branch, top)
	if err != nil {
		return err
	}
	if found >= 0 {
		return w.reuse(ctx, top, list[found])
	}

	if err := w.acquire(top, path); err != nil {
		return err
	}
	remote, err := w.fetch(ctx, branch)
	if err != nil {
		return err
	}
	exists, err := w.host.BranchExists(ctx, branch)
	if err != nil {
		return fmt.Errorf("workspace: look up branch %s: %w", branch, err)
	}
	switch {
	case exists:
		if err := w.add(ctx, path, path, branch); err != nil {
			return err
		}
		if remote {
			w.fastForward(ctx, branch)
		}
	case remote:
		// The branch exists only on origin, e.g. a re-run continuing a pushed branch: continue it
		// rather than start a second history that could not be pushed.
		if err := w.add(ctx, path, "-b", branch, path, "refs/remotes/origin/"+branch); err != nil {
			return err
		}
		w.createdBranch = true
	default:
		start, err := w.startOfNew(ctx)
		if err != nil {
			return err
		}
		if err := w.add(ctx, path, "-b", branch, path, start); err != nil {
			return err
		}
		w.createdBranch = true
	}
	w.log.Info("created worktree", "path", path, "branch", branch)
	return nil
}

// startOfNew is where a branch the repository and origin lack starts: HEAD, or the head of the
// pull request the run works on, fetched now, which must still be the one it was asked about.
func (w *Workspace) startOfNew(ctx context.Context) (string, error) {
	if w.pull == 0 {
		return "HEAD", nil
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	sha, err := w.fetchPull(ctx, w.pull)
	if err != nil {
		return "", fmt.Errorf("workspace: the head of pull request #%d, which %s starts from: %w", w.pull, w.Source, err)
	}
	if w.pullHead != "" && sha != w.pullHead {
		return "", fmt.Errorf("workspace: the head of pull request #%d moved from %s to %s since the run looked it up; "+
			"the run works only on the head it was asked about: ask again to run on the new one", w.pull, gitref.ShortSHA(w.pullHead), gitref.ShortSHA(sha))
	}
	return sha, nil
}

// reuse takes over the managed worktree t, which holds the branch (or its directory).
func (w *Workspace) reuse(ctx context.Context, top string, t git.Worktree) error {
	branch := w.Source
	if err := w.acquire(top, t.Path); err != nil {
		return err
	}
	w.Dir, w.wt = t.Path, w.host.At(t.Path)
	if dirty, err := w.wt.IsDirty(ctx); dirty {
		w.log.Warn("reusing worktree with uncommitted changes as it is", statusAttrs(err, "path", t.Path, "branch", branch)...)
		return nil
	}
	head, err := w.wt.Run(ctx, "symbolic-ref", "--quiet", "HEAD")
	if err != nil || head != "refs/heads/"+branch {
		w.log.Info("reusing worktree; HEAD is not on the branch, skipping origin refresh", "path", t.Path, "branch", branch)
		return nil
	}
	remote, err := w.fetch(ctx, branch)
	if err != nil {
		return err
	}
	if !remote {
		w.log.Info("reusing worktree as it is", "path", t.Path, "branch", branch)
		return nil
	}
	w.fastForward(ctx, branch)
	return nil
}

// statusAttrs are the log attributes of a note about a worktree's status: args, and the error
// when the status could not be read (it then counts as dirty).
func statusAttrs(err error, args ...any) []any {
	if err != nil {
		args = append(args, "status_error", err)
	}
	return args
}

// add runs git worktree add with args and records that the worktree at path exists.
func (w *Workspace) add(ctx context.Context, path string, args ...string) error {
	// git follows links: the managed root must be the directory of the checkout it was.
	dir, err := hostfs.Dir(w.host.Dir, managedRel, 0o755)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	dir.Close()
	if _, err := w.host.Run(ctx, append([]string{"worktree", "add", "--quiet"}, args...)...); err != nil {
		return fmt.Errorf("workspace: create worktree for %s: %w", w.Source, err)
	}
	w.createdWorktree = true
	w.Dir, w.wt = path, w.host.At(path)
	return nil
}

// fetch updates origin/<branch> and reports whether origin has the branch. A branch that is not
// on origin, or no origin at all, just means there is nothing to follow. A failed fetch is an
// error: going on without origin's copy would start the branch afresh, or continue a stale one,
// and the push at the end would be refused or go to a recovery branch.
func (w *Workspace) fetch(ctx context.Context, branch string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	found, err := w.fetchRemote(ctx, branch)
	if err != nil {
		return false, fmt.Errorf("workspace: could not read branch %s on origin, so the run cannot tell whether to continue it: %w", branch, err)
	}
	return found, nil
}

// fastForward moves the clean worktree's branch to origin/<branch> when that is a fast-forward,
// and otherwise leaves it: unpushed or diverged commits are never clobbered.
func (w *Workspace) fastForward(ctx context.Context, branch string) {
	before, _ := w.wt.Head(ctx)
	if _, err := w.wt.Run(ctx, "merge", "--ff-only", "--quiet", "--no-autostash", "refs/remotes/origin/"+branch); err != nil {
		w.log.Info("branch has diverged from origin; using it as it is", "branch", branch, "err", err)
		return
	}
	if after, _ := w.wt.Head(ctx); after != before {
		w.log.Info("fast-forwarded branch to origin", "branch", branch, "from", before, "to", after)
	}
}

// prune forgets worktrees whose directories are gone and deletes directories under the managed
// root that git no longer knows, unless another run holds their lock. It is best effort.
func prune(ctx context.Context, host git.Repo, top string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, pruneTimeout)
	defer cancel()
	if _, err := host.Run(ctx, "worktree", "prune"); err != nil {
		log.Warn("could not prune stale worktrees", "err", err)
		return
	}
	// Reached without following a link: in a checkout the agent had (branch-strategy head), it
	// may have made the managed root one, to have us delete what it names.
	root := managedRoot(top)
	dir, err := hostfs.Dir(top, managedRel, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("could not prune stale worktrees", "err", err)
		}
		return
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		log.Warn("could not prune stale worktrees", "err", err)
		return
	}
	list, err := host.WorktreeList(ctx)
	if err != nil {
		log.Warn("could not prune stale worktrees", "err", err)
		return
	}
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if !e.IsDir() || registered(list, path) {
			continue
		}
		l, err := acquire(top, filepath.Join(lockDir(top), e.Name()+".lock"))
		if err != nil {
			continue // in use, or being created, by another run
		}
		if err := os.RemoveAll(hostfs.Path(dir, e.Name())); err != nil {
			log.Warn("could not delete stale worktree directory", "path", path, "err", err)
		} else {
			log.Info("deleted stale worktree directory", "path", path)
		}
		l.release()
	}
}

func registered(list []git.Worktree, path string) bool {
	for _, t := range list {
		if samePath(t.Path, path) {
			return true
		}
	}
	return false
}

// samePath compares paths as written and, failing that, with symlinks resolved (git records
// the path it was given; /tmp and /private/tmp name one directory on macOS).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// under reports whether path is inside root.
func under(path, root string) bool {
	inside := func(p, r string) bool {
		rel, err := filepath.Rel(r, p)
		return err == nil && rel != "." && filepath.IsLocal(rel)
	}
	if inside(filepath.Clean(path), filepath.Clean(root)) {
		return true
	}
	rp, err1 := filepath.EvalSymlinks(path)
	rr, err2 := filepath.EvalSymlinks(root)
	return err1 == nil && err2 == nil && inside(rp, rr)
}

// excludeManaged lists the directories we create inside the host repository in its
// info/exclude, once, which keeps them out of git status without adding a file to the user's
// tree. undo puts the file back as it was, for a Prepare that fails; it leaves a file someone
// else changed since alone.
func excludeManaged(ctx context.Context, host git.Repo) (undo func(), err error) {
	undo = func() {}
	common, err := host.CommonDir(ctx)
	if err != nil {
		return undo, err
	}
	path := filepath.Join(common, "info", "exclude")
	data, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return undo, err
	}
	have := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		have[strings.TrimSpace(line)] = true
	}
	var add strings.Builder
	for _, p := range []string{"/.sandcastle/worktrees/", "/.sandcastle/logs/", "/.sandcastle/locks/"} {
		if !have[p] {
			add.WriteString(p + "\n")
		}
	}
	if add.Len() == 0 {
		return undo, nil
	}
	written := data
	if len(written) > 0 && !strings.HasSuffix(string(written), "\n") {
		written = append(written, '\n')
	}
	written = append(written, add.String()...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return undo, err
	}
	if err := os.WriteFile(path, written, 0o644); err != nil {
		return undo, err
	}
	return func() {
		if now, err := os.ReadFile(path); err != nil || string(now) != string(written) {
			return
		}
		if existed {
			os.WriteFile(path, data, 0o644)
		} else {
			os.Remove(path)
		}
	}, nil
}
