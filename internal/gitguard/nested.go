package gitguard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// A repository nested in a working tree has a git directory of its own, which the sandbox can
// write like any file of the working tree. Git goes into it as soon as it is a gitlink of the
// index: a plain git status then runs git in it, with its config (a core.fsmonitor, say). An
// untracked one becomes a gitlink with the next git add -A of a later step. So the nested
// repositories the agent made are moved out of the working tree once the run is over; those
// that were there before are the user's, and their config, hooks and info/ are kept like a
// submodule's.

// quarantineDir is where the nested repositories the agent made go, under the common directory:
// out of every working tree, so no git add can pick them up, and still there to look at.
const quarantineDir = "sandcastle-quarantine"

// nestedRepos returns the .git (a directory or a gitfile) of each repository nested in the
// working tree that g runs in: at a gitlink of its index, or anywhere in a directory git does
// not track and does not ignore, where git add would make one.
func nestedRepos(ctx context.Context, g git.Repo) ([]string, error) {
	staged, err := g.Run(ctx, "ls-files", "-z", "--stage")
	if err != nil {
		return nil, fmt.Errorf("gitguard: list the index of %s: %w", g.Dir, err)
	}
	var found []string
	for entry := range strings.SplitSeq(staged, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			if dotgit := filepath.Join(g.Dir, path, ".git"); exists(dotgit) {
				found = append(found, dotgit)
			}
		}
	}
	untracked, err := g.Run(ctx, "ls-files", "-z", "--others", "--exclude-standard", "--directory")
	if err != nil {
		return nil, fmt.Errorf("gitguard: list the untracked files of %s: %w", g.Dir, err)
	}
	for path := range strings.SplitSeq(untracked, "\x00") {
		if !strings.HasSuffix(path, "/") {
			continue
		}
		err := filepath.WalkDir(filepath.Join(g.Dir, path), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // gone meanwhile, or unreadable: git cannot go into it either
			}
			if d.Name() == ".git" {
				found = append(found, p)
				if d.IsDir() {
					return filepath.SkipDir
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("gitguard: %w", err)
		}
	}
	slices.Sort(found)
	return slices.Compact(found), nil
}

// has reports whether Take keeps path already.
func (gd *Guard) has(path string) bool {
	return slices.ContainsFunc(gd.points, func(p point) bool { return p.path() == path })
}

// linked reports whether dotgit is the .git file of a worktree of this repository (another
// run's, made since Take): it shares the config kept here, and is no repository of its own.
func (gd *Guard) linked(dotgit string) bool {
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return false // a directory
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dotgit), dir)
	}
	_, ok = inside(filepath.Join(gd.common, "worktrees"), dir)
	return ok
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// addNested records the repositories nested in the working trees at Take: a git directory's
// config, hooks and info like a submodule's (a gitfile is kept as it is), and each as known, so
// that Close leaves it where it is.
func (gd *Guard) addNested(ctx context.Context, g git.Repo, trees []string) error {
	gd.trees, gd.known = trees, map[string]bool{}
	for _, dir := range trees {
		nested, err := nestedRepos(ctx, g.At(dir))
		if err != nil {
			return err
		}
		for _, dotgit := range nested {
			gd.known[dotgit] = true
			if gd.has(dotgit) {
				continue // a submodule's .git file, kept already
			}
			fi, err := os.Lstat(dotgit)
			if err != nil || !fi.IsDir() {
				gd.points = append(gd.points, point{base: filepath.Dir(dotgit), rel: ".git"})
				continue
			}
			for _, rel := range []string{"config", "config.worktree", "commondir", "hooks", "info"} {
				gd.points = append(gd.points, point{base: dotgit, rel: rel})
			}
		}
	}
	return nil
}

// quarantine moves the repositories nested in the working trees since Take into the common
// directory's quarantine, and says where each went.
func (gd *Guard) quarantine(ctx context.Context) ([]Change, error) {
	var changes []Change
	var errs []error
	for _, dir := range gd.trees {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			continue // a worktree removed since
		}
		nested, err := nestedRepos(ctx, gd.git.At(dir))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, dotgit := range nested {
			if gd.known[dotgit] || gd.linked(dotgit) {
				continue
			}
			to, err := gd.moveAway(dotgit)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			changes = append(changes, Change{Path: gd.display(filepath.Dir(dotgit), ".git"), What: "moved to " + to})
		}
	}
	return changes, errors.Join(errs...)
}

// moveAway renames dotgit into the quarantine under a name of its own.
func (gd *Guard) moveAway(dotgit string) (string, error) {
	dir := filepath.Join(gd.common, quarantineDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("gitguard: %w", err)
	}
	b := make([]byte, 4)
	rand.Read(b)
	name := strings.ReplaceAll(gd.display(filepath.Dir(dotgit), ""), string(filepath.Separator), "_")
	to := filepath.Join(dir, strings.Trim(name, "_.")+"-"+hex.EncodeToString(b))
	if err := os.Rename(dotgit, to); err != nil {
		return "", fmt.Errorf("gitguard: move the repository the agent nested at %s out of the working tree: %w", dotgit, err)
	}
	return gd.display(to, ""), nil
}
