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
// O_DIRECTORY meets a link as ENOTDIR, so which it is is asked again, only to say so.
func wrap(path string, err error) error {
	if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return &ReplacedError{Path: path, What: "a file"}
	}
	return &ReplacedError{Path: path, What: "a symbolic link"}
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

// Path names name in dir for code that takes a path, a library or a program we run: through
// the descriptor, it reaches the directory dir is whatever its path has become. Valid while dir
// is open, for this process and its children of the same user.
func Path(dir *os.File, name string) string {
	return filepath.Join("/proc", strconv.Itoa(os.Getpid()), "fd", strconv.Itoa(int(dir.Fd())), name)
}

// Beneath opens, making it with perm when missing, the directory of path, a file the host
// writes, and returns it with the file's name in it. A path inside top, the checkout, is
// reached from top without following a link; one outside it is the user's own choice (a
// log-file input) and is opened as it is.
func Beneath(top, path string, perm fs.FileMode) (*os.File, string, error) {
	dir, name := filepath.Split(filepath.Clean(path))
	rel, err := filepath.Rel(top, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		if err := os.MkdirAll(dir, perm); err != nil {
			return nil, "", err
		}
		f, err := os.Open(dir)
		return f, name, err
	}
	f, err := Dir(top, rel, perm)
	return f, name, err
}
