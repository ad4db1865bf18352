package gitguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// Guard is the record of one repository. Its methods are not safe for concurrent use.
type Guard struct {
	top    string // the main working tree
	common string // the git directory the worktrees share
	points []point
	// placeholders are the mount targets Binds made; Close removes them.
	placeholders []point
	// git runs in the repository; trees are its working trees, and known the repositories
	// nested in them at Take (see nested.go); worktrees the directories of worktrees/ at Take,
	// and worktreeConfig whether git reads a config.worktree.
	git            git.Repo
	trees          []string
	known          map[string]bool
	worktrees      map[string]bool
	worktreeConfig bool
	// modules are the directories under modules/ at Take, each true when it is a submodule's
	// git directory (and false on the way to one, modules/a of the submodule a/b).
	modules map[string]bool
}

// point is one path at rel under base (the common directory or the main working tree): kept
// (recorded in want, and compared), mounted, or both.
type point struct {
	base, rel string
	want      *node // nil: not kept, only mounted on itself
	// bind says how a sandbox mounts it: read-only over the repository, or on itself (rw) so
	// that it cannot be renamed. placeholder allows making an empty one to mount over.
	bind        bindKind
	placeholder fs.FileMode // 0: never made; fs.ModeDir: an empty directory; else an empty file
	// worktree, for the points of a linked worktree, is its directory under the common one
	// (worktrees/<id>). When that is gone, git worktree remove took the worktree away (the
	// sandbox cannot: it is a mount point there), and its points are no longer kept.
	worktree string
}

type bindKind int

const (
	noBind   bindKind = iota
	readOnly          // kept, and mounted read-only
	onItself          // not kept (the agent writes in it), mounted on itself
	// shut is a directory that is not kept, since runs on the host add to it and remove from
	// it while the sandbox lives, but mounted read-only: the agent can add, remove or rename
	// nothing in it. What is in it may be mounted writable again.
	shut
)

func (p point) kept() bool { return p.bind == noBind || p.bind == readOnly }

// node is the state of a path: absent, or a file, directory or symbolic link with its mode and
// owner; a directory with everything in it.
type node struct {
	mode     fs.FileMode // type and permission bits; 0 for absent
	uid, gid int
	data     []byte           // a file's content, a link's target
	children map[string]*node // a directory's
}

func (n *node) absent() bool { return n.mode == 0 }

// Change is one path the agent changed and Check put back.
type Change struct {
	// Path is relative to the main working tree when it is inside it (.git/config), else
	// absolute.
	Path string
	What string // added, changed or removed
}

func (c Change) String() string { return c.Path + " (" + c.What + ")" }

// Take records the repository that git g works in. g runs in the workspace, a worktree or the
// main working tree.
func Take(ctx context.Context, g git.Repo) (*Guard, error) {
	common, err := g.CommonDir(ctx)
	if err != nil {
		return nil, fmt.Errorf("gitguard: %w", err)
	}
	list, err := g.WorktreeList(ctx)
	if err != nil {
		return nil, fmt.Errorf("gitguard: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("gitguard: git lists no working tree for %s", g.Dir)
	}
	gd := &Guard{top: filepath.Clean(list[0].Path), common: common}
	// A config.worktree is read only with extensions.worktreeConfig, which is in the config the
	// sandbox cannot change: without it, a planted one is inert and needs no mount target.
	worktreeConfig := fs.FileMode(0)
	switch on, err := g.Run(ctx, "config", "--type=bool", "--get", "extensions.worktreeConfig"); {
	case err == nil && on == "true":
		worktreeConfig = 0o644
		gd.worktreeConfig = true
	case err != nil && git.ExitCode(err) != 1: // 1: not set
		return nil, fmt.Errorf("gitguard: %w", err)
	}
	for _, p := range []point{
		{rel: "config", bind: readOnly},
		{rel: "config.worktree", bind: readOnly, placeholder: worktreeConfig},
		{rel: "commondir"}, // a main git directory has none; one would send git elsewhere
		{rel: "hooks", bind: readOnly, placeholder: fs.ModeDir | 0o755},
		{rel: "info", bind: readOnly, placeholder: fs.ModeDir | 0o755},
		// Alternates lend their objects and, in a fetch, their refs: git lists those by running
		// a git in each alternate's repository, with that repository's config.
		{rel: filepath.Join("objects", "info", "alternates")},
	} {
		p.base = common
		gd.points = append(gd.points, p)
	}
	if err := gd.addWorktrees(worktreeConfig); err != nil {
		return nil, err
	}
	// modules/ is shut like worktrees/: a git directory the agent made there would be taken up,
	// hooks and config and all, by a later git submodule update --init on the host.
	gd.modules = map[string]bool{}
	gd.points = append(gd.points, point{base: common, rel: "modules", bind: shut, placeholder: fs.ModeDir | 0o755})
	if err := gd.addModules(ctx, g, "modules"); err != nil {
		return nil, err
	}
	gd.git = g
	var trees []string
	for _, w := range list {
		if !w.Bare {
			trees = append(trees, filepath.Clean(w.Path))
		}
	}
	if err := gd.addNested(ctx, g, trees); err != nil {
		return nil, err
	}
	for i := range gd.points {
		p := &gd.points[i]
		if !p.kept() {
			continue
		}
		if p.want, err = read(p.path()); err != nil {
			return nil, fmt.Errorf("gitguard: record %s: %w", p.path(), err)
		}
	}
	return gd, nil
}

func (p point) path() string { return filepath.Join(p.base, p.rel) }

// addWorktrees adds worktrees/, shut (made empty when there is none), and every linked
// worktree in it: its directory, mounted on itself, its commondir, gitdir and config.worktree
// (which gets a mount target when config says so), and the .git file its gitdir names, when
// that is inside the main working tree.
func (gd *Guard) addWorktrees(config fs.FileMode) error {
	gd.worktrees = map[string]bool{}
	gd.points = append(gd.points, point{base: gd.common, rel: "worktrees", bind: shut, placeholder: fs.ModeDir | 0o755})
	entries, err := os.ReadDir(filepath.Join(gd.common, "worktrees"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("gitguard: %w", err)
	}
	for _, e := range entries {
		gd.worktrees[e.Name()] = true
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join("worktrees", e.Name())
		gd.points = append(gd.points,
			point{base: gd.common, rel: dir, bind: onItself},
			point{base: gd.common, rel: filepath.Join(dir, "commondir"), bind: readOnly, worktree: dir},
			point{base: gd.common, rel: filepath.Join(dir, "gitdir"), bind: readOnly, worktree: dir},
			point{base: gd.common, rel: filepath.Join(dir, "config.worktree"), bind: readOnly, placeholder: config, worktree: dir})
		gitfile, err := os.ReadFile(filepath.Join(gd.common, dir, "gitdir"))
		if err != nil {
			continue // a broken worktree: git prune will forget it
		}
		gd.addGitfile(strings.TrimSpace(string(gitfile)), dir)
	}
	return nil
}

// addGitfile adds the .git file at path, when it lies inside the main working tree; worktree
// is the linked worktree's directory under the common one, "" for a submodule.
func (gd *Guard) addGitfile(path, worktree string) {
	if rel, ok := inside(gd.top, path); ok {
		gd.points = append(gd.points, point{base: gd.top, rel: rel, bind: readOnly, worktree: worktree})
	}
}

// addModules adds the git directory of every submodule under rel, and the .git file of its
// working tree, recursively.
func (gd *Guard) addModules(ctx context.Context, g git.Repo, rel string) error {
	entries, err := os.ReadDir(filepath.Join(gd.common, rel))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("gitguard: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(rel, e.Name())
		if _, err := os.Stat(filepath.Join(gd.common, dir, "HEAD")); err != nil {
			// Not a git directory: a submodule named a/b has its under modules/a/b.
			gd.modules[dir] = false
			if err := gd.addModules(ctx, g, dir); err != nil {
				return err
			}
			continue
		}
		gd.modules[dir] = true
		// Writable again inside the shut modules/: the agent commits in the submodule.
		gd.points = append(gd.points, point{base: gd.common, rel: dir, bind: onItself})
		for _, p := range []point{
			{rel: "config", bind: readOnly},
			{rel: "config.worktree"},
			{rel: "commondir"},
			{rel: "hooks", bind: readOnly},
			{rel: "info", bind: readOnly},
		} {
			p.base, p.rel = gd.common, filepath.Join(dir, p.rel)
			gd.points = append(gd.points, p)
		}
		// Its working tree is core.worktree, relative to the git directory.
		gitDir := filepath.Join(gd.common, dir)
		wt, err := g.Run(ctx, "config", "--file", filepath.Join(gitDir, "config"), "--get", "core.worktree")
		if err == nil && wt != "" {
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(gitDir, wt)
			}
			gd.addGitfile(filepath.Join(wt, ".git"), "")
		}
		if err := gd.addModules(ctx, g, filepath.Join(dir, "modules")); err != nil {
			return err
		}
	}
	return nil
}

// inside returns path relative to root when it lies under it.
func inside(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, filepath.Clean(path))
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// CommonDir is the git directory the worktrees share.
func (gd *Guard) CommonDir() string { return gd.common }

// Bind is a path a sandbox mounts at the same place: read-only, or on itself.
type Bind struct {
	Path     string
	ReadOnly bool
}

// Binds returns the mounts that keep the sandbox from changing what Take recorded, for the
// paths under the directories the sandbox sees (visible): the files and directories read-only,
// and the directories on the way to them on themselves, so they cannot be renamed away and
// replaced. A target that does not exist and may be empty is made so (an empty hooks directory,
// an empty config.worktree), for Close to remove. Mount the visible directories first: parents
// before children.
func (gd *Guard) Binds(visible ...string) ([]Bind, error) {
	var binds []Bind
	for i := range gd.points {
		p := &gd.points[i]
		if p.bind == noBind || !seen(visible, p.path()) {
			continue
		}
		if absent := (p.kept() && p.want.absent()) || (!p.kept() && !exists(p.path())); absent {
			if p.placeholder == 0 {
				continue
			}
			if err := gd.placehold(p); err != nil {
				return nil, err
			}
		}
		binds = append(binds, Bind{Path: p.path(), ReadOnly: p.bind == readOnly || p.bind == shut})
	}
	return binds, nil
}

func seen(visible []string, path string) bool {
	for _, v := range visible {
		if _, ok := inside(v, path); ok {
			return true
		}
	}
	return false
}

// placehold makes the empty file or directory p.placeholder says and, when p is kept, records
// it as what the sandbox must leave.
func (gd *Guard) placehold(p *point) error {
	path := p.path()
	var err error
	if p.placeholder.IsDir() {
		err = os.Mkdir(path, p.placeholder.Perm())
	} else {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, p.placeholder.Perm()); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("gitguard: make a mount target: %w", err)
	}
	// Owned like the git directory, so a placeholder a killed run leaves is not root's.
	if fi, err := os.Stat(gd.common); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			_ = os.Lchown(path, int(st.Uid), int(st.Gid))
		}
	}
	if p.kept() {
		want, err := read(path)
		if err != nil {
			return fmt.Errorf("gitguard: %w", err)
		}
		p.want = want
	}
	gd.placeholders = append(gd.placeholders, *p)
	return nil
}

// Check compares everything Take recorded with what is there now, puts back what differs and
// returns it, sorted. It never follows a symbolic link the agent made: it removes it.
func (gd *Guard) Check() ([]Change, error) {
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			r.Close()
		}
	}()
	var changes []Change
	var errs []error
	for _, p := range gd.points {
		if !p.kept() || gd.removed(p) {
			continue
		}
		root, ok := roots[p.base]
		if !ok {
			var err error
			if root, err = os.OpenRoot(p.base); err != nil {
				errs = append(errs, fmt.Errorf("gitguard: %w", err))
				continue
			}
			roots[p.base] = root
		}
		r := restorer{root: root, name: func(rel string) string { return gd.display(p.base, rel) }}
		if err := r.parents(p.rel); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := r.fix(p.rel, p.want); err != nil {
			errs = append(errs, err)
		}
		changes = append(changes, r.changes...)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	changes = slices.Compact(changes)
	return changes, errors.Join(errs...)
}

// removed reports whether p belongs to a linked worktree that git worktree remove took away
// since Take: another run's, on the host. Its directory is gone, and so is the worktrees
// directory (git removes it with its last worktree) or that is still a directory, not a link.
func (gd *Guard) removed(p point) bool {
	if p.worktree == "" {
		return false
	}
	fi, err := os.Lstat(filepath.Join(gd.common, filepath.Dir(p.worktree)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil || !fi.IsDir():
		return false
	}
	_, err = os.Lstat(filepath.Join(gd.common, p.worktree))
	return errors.Is(err, fs.ErrNotExist)
}

// Close checks a last time, once nothing can write the repository any more, moves out of the
// working trees the repositories the agent nested in them, and removes the mount targets Binds
// made.
func (gd *Guard) Close(ctx context.Context) ([]Change, error) {
	changes, err := gd.Check()
	moved, qerr := gd.quarantine(ctx)
	changes = append(changes, moved...)
	errs := []error{qerr}
	for _, p := range slices.Backward(gd.placeholders) {
		rerr := os.Remove(p.path())
		if p.bind == shut && (errors.Is(rerr, syscall.ENOTEMPTY) || errors.Is(rerr, syscall.EEXIST)) {
			rerr = nil // another run's worktree is in it now: it is theirs
		}
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("gitguard: remove the mount target %s: %w", p.path(), rerr))
		}
		for i := range gd.points {
			if gd.points[i].base == p.base && gd.points[i].rel == p.rel {
				gd.points[i].want = &node{}
			}
		}
	}
	gd.placeholders = nil
	return changes, errors.Join(append([]error{err}, errs...)...)
}

// display names a path for people: relative to the main working tree when inside it.
func (gd *Guard) display(base, rel string) string {
	path := filepath.Join(base, rel)
	if r, ok := inside(gd.top, path); ok {
		return r
	}
	return path
}

// read records the state of path, not following a final symbolic link.
func read(path string) (*node, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return &node{}, nil
	}
	if err != nil {
		return nil, err
	}
	n := attrs(fi)
	switch {
	case fi.Mode().IsRegular():
		n.data, err = os.ReadFile(path)
	case fi.Mode()&fs.ModeSymlink != 0:
		var target string
		target, err = os.Readlink(path)
		n.data = []byte(target)
	case fi.IsDir():
		var entries []fs.DirEntry
		entries, err = os.ReadDir(path)
		n.children = map[string]*node{}
		for _, e := range entries {
			if err != nil {
				break
			}
			n.children[e.Name()], err = read(filepath.Join(path, e.Name()))
		}
	}
	return n, err
}

// same reports whether a and b are the same node, not looking into directories.
func same(a, b *node) bool {
	return a.mode == b.mode && a.uid == b.uid && a.gid == b.gid && bytes.Equal(a.data, b.data)
}
