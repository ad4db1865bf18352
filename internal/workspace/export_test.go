package workspace

// Abandon drops the workspace's lock without finishing, as if its process had died.
func (w *Workspace) Abandon() {
	w.lock.release()
	w.lock = nil
	w.finished = true
}

// HoldLock takes the lock of the managed worktree directory name, as another run would.
func HoldLock(top, name string) (release func(), err error) {
	l, err := acquire(top, lockDir(top)+"/"+name+".lock")
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// DirName exposes the worktree directory naming.
var DirName = dirName

// Reown exposes handing files over with a chosen effective uid.
var Reown = reown
