package gitguard

import (
	"bytes"
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
	"github.com/sandcastle-action/sandcastle/internal/hostfs"
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

// A linked worktree's .git file names its directory under worktrees/, which names the .git file
// back (gitdir) and names the common directory (commondir): git reads the config, hooks and
// info/ kept here for that worktree, so it is no repository of its own. But the agent can write
// in worktrees/ too (its own worktree's directory at least), and there make a git directory of
// its own. So a .git file counts as a worktree's only when git lists that worktree and both
// names hold; and, where extensions.worktreeConfig makes git read a config.worktree, only when
// the worktree was there at Take (its config.worktree is kept) or its config.worktree is none
// or the copy of the main one that git worktree add makes.

// linked reports whether dotgit is the .git file of a worktree of this repository (another
// run's, made since Take), as listed says git lists them.
func (gd *Guard) linked(dotgit string, listed []string) bool {
	dir := gitfile(dotgit)
	if dir == "" || !sameFile(filepath.Dir(dir), filepath.Join(gd.common, "worktrees")) {
		return false
	}
	id := filepath.Base(dir)
	own, ok := gd.worktreeFile(id, listed)
	if !ok || !sameFile(own, dotgit) {
		return false
	}
	return !gd.worktreeConfig || gd.worktrees[id] || gd.copiedConfig(id)
}

// worktreeFile returns the .git file of worktrees/<id> when git would take that for a worktree
// of this repository: a directory, not a link, whose commondir names the common directory and
// whose gitdir names a .git file that names it back, and whose working tree git lists.
func (gd *Guard) worktreeFile(id string, listed []string) (string, bool) {
	dir := filepath.Join(gd.common, "worktrees", id)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	common, ok := readPath(filepath.Join(dir, "commondir"))
	if !ok || !sameFile(common, gd.common) {
		return "", false
	}
	dotgit, ok := readPath(filepath.Join(dir, "gitdir"))
	if !ok || !sameFile(gitfile(dotgit), dir) {
		return "", false
	}
	if !slices.ContainsFunc(listed, func(path string) bool { return sameFile(path, filepath.Dir(dotgit)) }) {
		return "", false
	}
	return dotgit, true
}

// copiedConfig reports whether worktrees/<id> has no config.worktree of its own: none, or a
// file just like the main one, which is kept.
func (gd *Guard) copiedConfig(id string) bool {
	path := filepath.Join(gd.common, "worktrees", id, "config.worktree")
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	own, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	main, err := os.ReadFile(filepath.Join(gd.common, "config.worktree"))
	if errors.Is(err, fs.ErrNotExist) {
		return len(own) == 0
	}
	return err == nil && bytes.Equal(own, main)
}

// strays returns the directories of worktrees/ made since Take that git would not take for a
// worktree (see worktreeFile), but for one git is still making: git locks a worktree while it
// makes it, and git worktree prune leaves a locked one alone too. A locked directory the agent
// made is inert: no .git file linked accepts names it.
func (gd *Guard) strays(listed []string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(gd.common, "worktrees"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gitguard: %w", err)
	}
	var strays []string
	for _, e := range entries {
		dir := filepath.Join(gd.common, "worktrees", e.Name())
		if gd.worktrees[e.Name()] {
			continue
		}
		if _, ok := gd.worktreeFile(e.Name(), listed); ok {
			continue
		}
		if e.IsDir() && exists(filepath.Join(dir, "locked")) {
			continue
		}
		strays = append(strays, dir)
	}
	return strays, nil
}

// gitfile returns the git directory that the .git file at path names, "" when path is no
// such file (a directory, a link, unreadable, another content).
func gitfile(path string) string {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok || dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	return filepath.Clean(dir)
}

// readPath reads the path that the file at path holds, as git writes commondir and gitdir: one
// line, absolute or relative to the file's directory.
func readPath(path string) (string, bool) {
	data, err := os.ReadFile(path)
	p := strings.TrimSpace(string(data))
	if err != nil || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(path), p)
	}
	return p, true
}

// sameFile reports whether a and b name the same file or directory, which exists.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
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

// quarantine moves into the common directory's quarantine the repositories nested in the
// working trees since Take, then what was added to worktrees/ that is no worktree and what was
// added to modules/, and says where each went.
func (gd *Guard) quarantine(ctx context.Context) ([]Change, error) {
	worktrees, err := gd.git.WorktreeList(ctx)
	if err != nil {
		return nil, fmt.Errorf("gitguard: %w", err)
	}
	var listed []string
	for _, w := range worktrees {
		listed = append(listed, w.Path)
	}
	var q *os.File
	defer func() {
		if q != nil {
			q.Close()
		}
	}()
	var changes []Change
	var errs []error
	move := func(base, rel string) {
		display := gd.display(base, rel)
		if q == nil {
			var made []Change
			if q, made, err = gd.openQuarantine(); err != nil {
				errs = append(errs, err)
				return
			}
			changes = append(changes, made...)
		}
		to, err := gd.moveAway(q, base, rel, display)
		if err != nil {
			errs = append(errs, err)
			return
		}
		changes = append(changes, Change{Path: display, What: "moved to " + to})
	}
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
			if !gd.known[dotgit] && !gd.linked(dotgit, listed) {
				rel, _ := filepath.Rel(dir, dotgit)
				move(dir, rel)
			}
		}
	}
	strays, err := gd.strays(listed)
	errs = append(errs, err)
	for _, dir := range strays {
		rel, _ := filepath.Rel(gd.common, dir)
		move(gd.common, rel)
	}
	for _, rel := range gd.strayModules() {
		move(gd.common, rel)
	}
	return changes, errors.Join(errs...)
}

// strayModules returns what was added under modules/ since Take: a git directory there is one a
// later git submodule update --init takes up, with whatever hooks and config it has.
func (gd *Guard) strayModules() []string {
	var strays []string
	var walk func(rel string)
	walk = func(rel string) {
		entries, _ := os.ReadDir(filepath.Join(gd.common, rel)) // none: nothing was added
		for _, e := range entries {
			dir := filepath.Join(rel, e.Name())
			gitDir, ok := gd.modules[dir]
			switch {
			case !ok:
				strays = append(strays, dir)
			case gitDir:
				walk(filepath.Join(dir, "modules"))
			default:
				walk(dir)
			}
		}
	}
	walk("modules")
	return strays
}

// openQuarantine opens the quarantine, making it when missing. The agent can write the common
// directory, so it may have put a link there, to have the host move repositories wherever it
// names, or a file, to keep them in the working tree: either is removed, said, and replaced
// with the directory.
func (gd *Guard) openQuarantine() (*os.File, []Change, error) {
	q, err := hostfs.Dir(gd.common, quarantineDir, 0o700)
	var replaced *hostfs.ReplacedError
	if !errors.As(err, &replaced) {
		if err != nil {
			err = fmt.Errorf("gitguard: open the quarantine: %w", err)
		}
		return q, nil, err
	}
	common, err := hostfs.Dir(gd.common, "", 0)
	if err != nil {
		return nil, nil, fmt.Errorf("gitguard: %w", err)
	}
	defer common.Close()
	if err := hostfs.Remove(common, quarantineDir); err != nil {
		return nil, nil, fmt.Errorf("gitguard: remove what is in the quarantine's place: %w", err)
	}
	change := Change{Path: gd.display(gd.common, quarantineDir), What: "replaced by " + replaced.What + ", which was removed for the quarantine"}
	if q, err = hostfs.Dir(gd.common, quarantineDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("gitguard: open the quarantine: %w", err)
	}
	return q, []Change{change}, nil
}

// moveAway renames rel under base, which people know as display, into the quarantine q under a
// name of its own, and returns where it went. Neither end is reached through a link.
func (gd *Guard) moveAway(q *os.File, base, rel, display string) (string, error) {
	from, err := hostfs.Dir(base, filepath.Dir(rel), 0)
	if err != nil {
		return "", fmt.Errorf("gitguard: move %s, which the agent made, out of the way: %w", display, err)
	}
	defer from.Close()
	b := make([]byte, 4)
	rand.Read(b)
	name := strings.TrimSuffix(display, string(filepath.Separator)+".git")
	name = strings.ReplaceAll(name, string(filepath.Separator), "_")
	name = strings.Trim(name, "_.") + "-" + hex.EncodeToString(b)
	if err := hostfs.Rename(from, filepath.Base(rel), q, name); err != nil {
		return "", fmt.Errorf("gitguard: move %s, which the agent made, out of the way: %w", display, err)
	}
	return gd.display(filepath.Join(gd.common, quarantineDir, name), ""), nil
}
