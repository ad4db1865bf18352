package git

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// CurrentBranch returns the short name of the checked-out branch, or "" when HEAD is detached.
func (r Repo) CurrentBranch(ctx context.Context) (string, error) {
	ref, err := r.Run(ctx, "symbolic-ref", "--quiet", "HEAD")
	if ExitCode(err) == 1 { // not a symbolic ref: detached
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(ref, "refs/heads/"), nil
}

// Head returns the commit HEAD points at.
func (r Repo) Head(ctx context.Context) (string, error) {
	return r.Resolve(ctx, "HEAD")
}

// Resolve returns the commit a revision names.
func (r Repo) Resolve(ctx context.Context, rev string) (string, error) {
	return r.Run(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
}

// BranchExists reports whether refs/heads/<name> exists.
func (r Repo) BranchExists(ctx context.Context, name string) (bool, error) {
	_, err := r.Run(ctx, "show-ref", "--verify", "--quiet", "refs/heads/"+name)
	switch ExitCode(err) {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, err
}

// RevList returns the commits in a revision range (such as "base..tip"), oldest first.
func (r Repo) RevList(ctx context.Context, rng string) ([]string, error) {
	out, err := r.Run(ctx, "rev-list", "--reverse", "--end-of-options", rng, "--")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Log returns the commits in a revision range with their subjects, oldest first.
func (r Repo) Log(ctx context.Context, rng string) ([]gitref.Commit, error) {
	out, err := r.Run(ctx, "log", "--reverse", "--no-show-signature", "--no-color",
		"--format=%H%x1f%s", "--end-of-options", rng, "--")
	if err != nil {
		return nil, err
	}
	var commits []gitref.Commit
	for line := range strings.Lines(out) {
		sha, subject, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\x1f")
		if sha != "" {
			commits = append(commits, gitref.Commit{SHA: sha, Subject: subject})
		}
	}
	return commits, nil
}

// Status returns the paths with uncommitted changes: staged, unstaged and untracked files
// (ignored files are not changes). Renames report both paths.
func (r Repo) Status(ctx context.Context) ([]string, error) {
	out, err := r.Run(ctx, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths = append(paths, f[3:])
		if f[0] == 'R' || f[0] == 'C' { // the next field is the original path
			if i+1 < len(fields) {
				paths = append(paths, fields[i+1])
			}
			i++
		}
	}
	return paths, nil
}

// IsDirty reports whether the working tree has uncommitted changes. When git cannot tell, it
// reports true with the error: callers deciding whether to delete a worktree must keep it.
func (r Repo) IsDirty(ctx context.Context) (bool, error) {
	out, err := r.Run(ctx, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return true, err
	}
	return strings.TrimSpace(out) != "", nil
}

// TopLevel returns the absolute path of the working tree's top directory.
func (r Repo) TopLevel(ctx context.Context) (string, error) {
	return r.Run(ctx, "rev-parse", "--show-toplevel")
}

// CommonDir returns the absolute path of the git directory shared by all worktrees (where
// info/exclude lives).
func (r Repo) CommonDir(ctx context.Context) (string, error) {
	dir, err := r.Run(ctx, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.Dir, dir)
	}
	return filepath.Clean(dir), nil
}

// ConfigValue returns the effective value of a config key, and whether it is set.
func (r Repo) ConfigValue(ctx context.Context, key string) (string, bool, error) {
	v, err := r.Run(ctx, "config", "--get", "--end-of-options", key)
	switch ExitCode(err) {
	case 0:
		return v, true, nil
	case 1:
		return "", false, nil
	}
	return "", false, fmt.Errorf("read config %s: %w", key, err)
}

// Worktree is one entry of git worktree list.
type Worktree struct {
	Path     string
	Head     string
	Branch   string // short name; "" when detached or bare
	Detached bool
	Bare     bool
	Locked   bool
	Prunable bool
}

// WorktreeList returns the repository's worktrees, the main working tree first.
func (r Repo) WorktreeList(ctx context.Context) ([]Worktree, error) {
	out, err := r.Run(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return ParseWorktrees(out), nil
}

// ParseWorktrees parses the output of git worktree list --porcelain.
func ParseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		key, val, _ := strings.Cut(line, " ")
		if key == "worktree" {
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "detached":
			cur.Detached = true
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Prunable = true
		}
	}
	return list
}
