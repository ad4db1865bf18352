package hostfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ReplacedError is a path the host expected to be a directory it can work beneath, found to be
// a symbolic link or another file: something in the agent's reach replaced it.
type ReplacedError struct {
	Path string
	What string // "a symbolic link", "a file"
}

func (e *ReplacedError) Error() string {
	return fmt.Sprintf("%s is %s, not a directory: the agent may have replaced it, and nothing is written where it leads", e.Path, e.What)
}

// Dir opens the directory rel beneath base, one component at a time without following a
// link. With perm other than 0 it makes the directories that are missing, with perm. base
// itself is the host's and is opened as it is.
func Dir(base, rel string, perm fs.FileMode) (*os.File, error) {
	f, err := os.Open(base)
	if err != nil {
		return nil, err
	}
	if rel == "" || rel == "." {
		return f, nil
	}
	if !filepath.IsLocal(rel) {
		f.Close()
		return nil, fmt.Errorf("open %s beneath %s: not a local path", rel, base)
	}
	done := base
	for part := range strings.SplitSeq(filepath.Clean(rel), string(filepath.Separator)) {
		done = filepath.Join(done, part)
		next, err := openDir(f, part, perm)
		f.Close()
		if err != nil {
			return nil, wrap(done, err)
		}
		f = next
	}
	return f, nil
}

// openDir opens the directory name in dir, making it with perm when missing and perm is not 0.
func openDir(dir *os.File, name string, perm fs.FileMode) (*os.File, error) {
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fd, err := syscall.Openat(int(dir.Fd()), name, flags, 0)
	if errors.Is(err, syscall.ENOENT) && perm != 0 {
		if err = syscall.Mkdirat(int(dir.Fd()), name, uint32(perm.Perm())); err == nil || errors.Is(err, syscall.EEXIST) {
			fd, err = syscall.Openat(int(dir.Fd()), name, flags, 0)
		}
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
}

// wrap turns the errors of a link or a file where a directory should be into a *ReplacedError.
func wrap(path string, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &ReplacedError{Path: path, What: "a symbolic link"}
	case errors.Is(err, syscall.ENOTDIR):
		return &ReplacedError{Path: path, What: "a file"}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

// OpenFile opens the file name in dir as os.OpenFile would, but never through a link.
func OpenFile(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := syscall.Openat(int(dir.Fd()), name, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(perm.Perm()))
	path := filepath.Join(dir.Name(), name)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &ReplacedError{Path: path, What: "a symbolic link"}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Remove removes the file or link name in dir, never what a link names.
func Remove(dir *os.File, name string) error {
	if err := syscall.Unlinkat(int(dir.Fd()), name); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return nil
}

// Rename moves name in from to newName in to, reaching neither through a link.
func Rename(from *os.File, name string, to *os.File, newName string) error {
	if err := syscall.Renameat(int(from.Fd()), name, int(to.Fd()), newName); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(from.Name(), name), New: filepath.Join(to.Name(), newName), Err: err}
	}
	return nil
}

// Path names name in dir for code that takes a path, a process of our own or a library: through
// the descriptor, it reaches the directory dir is whatever its path has become. Valid while dir
// is open, and in this process only.
func Path(dir *os.File, name string) string {
	return filepath.Join("/proc/self/fd", strconv.Itoa(int(dir.Fd())), name)
}
