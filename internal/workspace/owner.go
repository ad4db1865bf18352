package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Owner is the owner of path; -1 when unknown.
func Owner(path string) (uid, gid int) {
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return int(st.Uid), int(st.Gid)
		}
	}
	return -1, -1
}

// HandBack gives the files under dir that we created as root to the owner of owned (dir
// itself, or the checkout dir lies in). The Action runs as root on a checkout owned by the
// runner's user; worktrees, logs, git objects, merges and bundles we wrote would otherwise be
// root's, and later steps could not change or delete them.
func HandBack(dir, owned string) error {
	uid, gid := Owner(owned)
	if uid <= 0 {
		return nil
	}
	if err := reown(dir, 0, uid, gid, os.Geteuid); err != nil {
		return fmt.Errorf("handing files to the workspace owner: %w", err)
	}
	return nil
}

// Lend gives every file under top that belongs to root to uid:gid, for a run whose agent works
// as that user in a checkout that belongs to root (act, and the runners built on it, copy the
// repository in as root). The function it returns gives them back: every file under top that
// then belongs to uid, the agent's new ones included, goes to the owner top had. Lend does
// nothing unless we are root, top belongs to root and uid is not root.
func Lend(top string, uid, gid int) (giveBack func() error, err error) {
	ouid, ogid := Owner(top)
	if ouid != 0 || uid <= 0 || os.Geteuid() != 0 {
		return func() error { return nil }, nil
	}
	giveBack = func() error {
		if err := reown(top, uid, ouid, ogid, os.Geteuid); err != nil {
			return fmt.Errorf("handing the checkout back to its owner: %w", err)
		}
		return nil
	}
	if err := reown(top, 0, uid, gid, os.Geteuid); err != nil {
		return nil, errors.Join(fmt.Errorf("lending the checkout to the agent's user %d: %w", uid, err), giveBack())
	}
	return giveBack, nil
}

// reown hands every file under top that belongs to the user from over to uid and gid. It does
// nothing unless we are root and uid is another user.
func reown(top string, from, uid, gid int, geteuid func() int) error {
	if geteuid() != 0 || uid < 0 || uid == from {
		return nil
	}
	return filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == from {
			if err := os.Lchown(path, uid, gid); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	})
}
