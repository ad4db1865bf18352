package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errBusy means another process holds a lock.
var errBusy = errors.New("in use by another run")

// acquire takes the lock for the worktree at path for the life of the Workspace.
func (w *Workspace) acquire(top, path string) error {
	l, err := acquire(filepath.Join(lockDir(top), filepath.Base(path)+".lock"))
	if errors.Is(err, errBusy) {
		return fmt.Errorf("workspace: worktree %s for branch %q is in use by another sandcastle run (%w); wait for it to finish", path, w.Source, err)
	}
	if err != nil {
		return fmt.Errorf("workspace: lock worktree %s: %w", path, err)
	}
	w.lock = l
	return nil
}

// lock is an exclusive lock on a file. The operating system drops it when the process dies, so
// a crashed run never blocks the next one.
type lock struct {
	f    *os.File
	path string
}

// acquire takes the lock at path without waiting; errBusy (wrapped with the holder's note) when
// another process has it.
func acquire(path string) (*lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := tryLock(f); err != nil {
			holder, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, errBusy) {
				return nil, fmt.Errorf("%w: %s", errBusy, strings.TrimSpace(string(holder)))
			}
			return nil, err
		}
		// The previous holder removes the file when it releases; a lock taken on the removed
		// file protects nothing, so try again on the current one.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(fi, pi) {
			if err := f.Truncate(0); err == nil {
				fmt.Fprintf(f, "pid %d\n", os.Getpid())
			}
			return &lock{f: f, path: path}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file keeps being replaced", path)
}

// release removes the lock file and unlocks; removing first means nobody can lock a file that
// is about to disappear. A nil lock is a no-op.
func (l *lock) release() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
}
