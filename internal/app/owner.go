package app

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// handBack gives the files under top that we created as root to top's owner.
func handBack(top string) error {
	uid, gid := ownerOf(top)
	if err := giveBack(top, uid, gid, os.Geteuid); err != nil {
		return fmt.Errorf("handing files to the workspace owner: %w", err)
	}
	return nil
}

// giveBack hands every file under top that belongs to root over to the workspace's owner. The
// Action runs as root on a checkout owned by the runner's user; worktrees, logs, git objects
// and merges we wrote would otherwise be root's, and later steps could not change or delete
// them. It does nothing unless we are root and the owner is not.
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
