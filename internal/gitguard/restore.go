package gitguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// restorer puts paths under one root back as recorded. Working through an os.Root, it cannot
// be led outside the root, and it looks at every path with Lstat: a link where a file or a
// directory was is removed, never followed.
type restorer struct {
	root    *os.Root
	name    func(rel string) string
	changes []Change
}

func (r *restorer) changed(rel, what string) {
	r.changes = append(r.changes, Change{Path: r.name(rel), What: what})
}

func (r *restorer) fail(rel string, err error) error {
	return fmt.Errorf("gitguard: put back %s: %w", r.name(rel), err)
}

// lstat returns rel's file info, nil when it does not exist.
func (r *restorer) lstat(rel string) (fs.FileInfo, error) {
	fi, err := r.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	return fi, err
}

// parents makes every directory above rel a real directory again: one the agent replaced
// with a link or a file is removed and made anew.
func (r *restorer) parents(rel string) error {
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for i := range parts {
		dir := filepath.Join(parts[:i+1]...)
		if dir == "." {
			return nil
		}
		fi, err := r.lstat(dir)
		switch {
		case err != nil:
			return r.fail(dir, err)
		case fi != nil && fi.IsDir():
			continue
		case fi != nil:
			r.changed(dir, "changed")
			if err := r.root.Remove(dir); err != nil {
				return r.fail(dir, err)
			}
		}
		if err := r.root.Mkdir(dir, 0o755); err != nil {
			return r.fail(dir, err)
		}
	}
	return nil
}

// fix makes rel what want says, recording each difference.
func (r *restorer) fix(rel string, want *node) error {
	fi, err := r.lstat(rel)
	if err != nil {
		return r.fail(rel, err)
	}
	switch {
	case want.absent():
		if fi == nil {
			return nil
		}
		r.changed(rel, "added")
		return r.remove(rel)
	case fi == nil:
		r.changed(rel, "removed")
		return r.make(rel, want)
	case want.mode.IsDir() && fi.IsDir():
		return r.fixDir(rel, want, fi)
	}
	have, err := r.node(rel, fi)
	if err != nil {
		return r.fail(rel, err)
	}
	if same(want, have) {
		return nil
	}
	r.changed(rel, "changed")
	if err := r.remove(rel); err != nil {
		return err
	}
	return r.make(rel, want)
}

// fixDir fixes a directory's mode and owner, removes what was added to it and fixes what it held.
func (r *restorer) fixDir(rel string, want *node, fi fs.FileInfo) error {
	if have := attrs(fi); !same(want, have) {
		r.changed(rel, "changed")
		if err := r.attrs(rel, want); err != nil {
			return err
		}
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return r.fail(rel, err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return r.fail(rel, err)
	}
	var errs []error
	for _, name := range names {
		if _, ok := want.children[name]; !ok {
			r.changed(filepath.Join(rel, name), "added")
			errs = append(errs, r.remove(filepath.Join(rel, name)))
		}
	}
	for name, child := range want.children {
		errs = append(errs, r.fix(filepath.Join(rel, name), child))
	}
	return errors.Join(errs...)
}

// node reads what rel is now, a file or a link, fi being its Lstat.
func (r *restorer) node(rel string, fi fs.FileInfo) (*node, error) {
	n := attrs(fi)
	var err error
	switch {
	case fi.Mode().IsRegular():
		n.data, err = r.root.ReadFile(rel)
	case fi.Mode()&fs.ModeSymlink != 0:
		var target string
		target, err = r.root.Readlink(rel)
		n.data = []byte(target)
	}
	return n, err
}

// attrs is the node of fi without its content.
func attrs(fi fs.FileInfo) *node {
	n := &node{mode: fi.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		n.uid, n.gid = int(st.Uid), int(st.Gid)
	}
	return n
}

func (r *restorer) remove(rel string) error {
	if err := r.root.RemoveAll(rel); err != nil {
		return r.fail(rel, err)
	}
	return nil
}

// make creates rel, which does not exist, as want, with everything in it.
func (r *restorer) make(rel string, want *node) error {
	var err error
	switch {
	case want.mode.IsRegular():
		var f *os.File
		if f, err = r.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			_, err = f.Write(want.data)
			err = errors.Join(err, f.Close())
		}
	case want.mode&fs.ModeSymlink != 0:
		err = r.root.Symlink(string(want.data), rel)
	case want.mode.IsDir():
		err = r.root.Mkdir(rel, 0o700)
	default:
		return nil // a device or a socket was never ours to make
	}
	if err != nil {
		return r.fail(rel, err)
	}
	if err := r.attrs(rel, want); err != nil {
		return err
	}
	for name, child := range want.children {
		if err := r.make(filepath.Join(rel, name), child); err != nil {
			return err
		}
	}
	return nil
}

// attrs gives rel want's owner and, unless it is a link, its mode.
func (r *restorer) attrs(rel string, want *node) error {
	if err := r.root.Lchown(rel, want.uid, want.gid); err != nil && !errors.Is(err, fs.ErrPermission) {
		return r.fail(rel, err)
	}
	if want.mode&fs.ModeSymlink != 0 {
		return nil
	}
	mode := want.mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if err := r.root.Chmod(rel, mode); err != nil {
		return r.fail(rel, err)
	}
	return nil
}
