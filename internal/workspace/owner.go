package workspace

import (
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
	if err := giveBack(dir, uid, gid, os.Geteuid); err != nil {
		return fmt.Errorf("handing files to the workspace owner: %w", err)
	}
	return nil
}

// giveBack hands every file under top that belongs to root over to uid and gid. It does nothing
// unless we are root and the owner is not.
func giveBack(top string, uid, gid int, geteuid func() int) error {
	if geteuid() != 0 || uid <= 0 {
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
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == 0 {
			if err := os.Lchown(path, uid, gid); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	})
}
