package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/hostfs"
)

// errBusy means another process holds a lock.
var errBusy = errors.New("in use by another run")

// busyError is errBusy with the holder's note, "pid 123".
type busyError struct{ holder string }

func (e *busyError) Error() string { return errBusy.Error() + e.by() }
func (e *busyError) Unwrap() error { return errBusy }

// by is " (pid 123)", or "" when the holder left no note.
func (e *busyError) by() string {
	if e.holder == "" {
		return ""
	}
	return " (" + e.holder + ")"
}

// acquire takes the lock for the worktree at path for the life of the Workspace.
func (w *Workspace) acquire(top, path string) error {
	l, err := acquire(top, filepath.Join(lockDir(top), filepath.Base(path)+".lock"))
	var busy *busyError
	if errors.As(err, &busy) {
		return fmt.Errorf("workspace: worktree %s for branch %q is in use by another sandcastle run%s; wait for it to finish", path, w.Source, busy.by())
	}
	if err != nil {
		return fmt.Errorf("workspace: lock worktree %s: %w", path, err)
	}
	w.lock = l
	return nil
}

// checkoutLock is the lock a run takes on the checkout itself while it works in it or merges
// into it, so that no other run's commits land there meanwhile (and none of its own in theirs).
// Worktree locks are named after directories that end in a hash, so the name is free.
func checkoutLock(top string) string { return filepath.Join(lockDir(top), "checkout.lock") }

// lockCheckout takes the checkout's lock.
func lockCheckout(top string) (*lock, error) {
	l, err := acquire(top, checkoutLock(top))
	var busy *busyError
	if errors.As(err, &busy) {
		return nil, fmt.Errorf("the checkout %s is in use by another sandcastle run%s, which works in it (branch-strategy head) or is merging into it (merge-to-head); wait for it to finish", top, busy.by())
	}
	if err != nil {
		return nil, fmt.Errorf("lock the checkout %s: %w", top, err)
	}
	return l, nil
}

// lock is an exclusive lock on a file. The operating system drops it when the process dies, so
// a crashed run never blocks the next one.
type lock struct {
	f    *os.File
	dir  *os.File // the lock's directory, where it is removed again
	name string
}

// acquire takes the lock at path, in the checkout top, without waiting; a *busyError when
// another process has it. Its directory is reached without following a link, since the agent
// may have replaced .sandcastle/locks with one (see hostfs).
func acquire(top, path string) (*lock, error) {
	dir, name, err := hostfs.Beneath(top, path, 0o755)
	if err != nil {
		return nil, err
	}
	l, err := lockIn(dir, name)
	if err != nil {
		dir.Close()
	}
	return l, err
}

func lockIn(dir *os.File, name string) (*lock, error) {
	path := hostfs.Path(dir, name)
	for range 10 {
		f, err := hostfs.OpenFile(dir, name, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := tryLock(f); err != nil {
			holder, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, errBusy) {
				return nil, &busyError{holder: strings.TrimSpace(string(holder))}
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
			return &lock{f: f, dir: dir, name: name}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file keeps being replaced", filepath.Join(dir.Name(), name))
}

// release removes the lock file and unlocks; removing first means nobody can lock a file that
// is about to disappear. A nil lock is a no-op.
func (l *lock) release() {
	if l == nil {
		return
	}
	hostfs.Remove(l.dir, l.name)
	l.f.Close()
	l.dir.Close()
}
