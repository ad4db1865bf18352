package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// copyPaths copies each path (relative to the repository) from src into the worktree dst:
// files, directories recursively, and symlinks as symlinks, keeping permission bits. Missing
// parents are created and directories merge into existing ones. A missing source is skipped
// with a warning. Writes go through an os.Root, so a symlink in the worktree (which an agent may
// have planted in an earlier run) can never redirect a copy outside it.
func copyPaths(ctx context.Context, src, dst string, paths []string, log *slog.Logger) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return fmt.Errorf("copy-to-worktree: %w", err)
	}
	defer root.Close()
	for _, p := range paths {
		rel := filepath.Clean(filepath.FromSlash(p))
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("copy-to-worktree %q: not a path inside the repository", p)
		}
		from := filepath.Join(src, rel)
		if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			log.Warn("copy-to-worktree: source does not exist, skipped", "path", p)
			continue
		}
		if err := copyTree(ctx, root, from, rel); err != nil {
			return fmt.Errorf("copy-to-worktree %s: %w", p, err)
		}
	}
	return nil
}

func copyTree(ctx context.Context, root *os.Root, from, rel string) error {
	if parent := filepath.Dir(rel); parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	// Directory modes are applied last, deepest first, so a read-only directory can still be
	// filled.
	type dirMode struct {
		name string
		mode fs.FileMode
	}
	var dirs []dirMode
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		sub, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		name := filepath.Join(rel, sub)
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode()
		switch {
		case mode.IsDir():
			dirs = append(dirs, dirMode{name, keptBits(mode)})
			return makeDir(root, name)
		case mode&fs.ModeSymlink != 0:
			return copySymlink(root, path, name)
		case mode.IsRegular():
			return copyFile(root, path, name, keptBits(mode))
		default:
			return fmt.Errorf("%s: cannot copy a %s", path, mode.Type())
		}
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := root.Chmod(dirs[i].name, dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}

func keptBits(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// makeDir creates name, or accepts an existing directory so copies merge into it.
func makeDir(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return root.Mkdir(name, 0o700)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s exists in the worktree and is not a directory", name)
	}
	return nil
}

// makeRoom removes an existing file or symlink at name so it is replaced, not written through;
// it refuses to replace a directory.
func makeRoom(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s exists in the worktree as a directory", name)
	}
	return root.Remove(name)
}

func copyFile(root *os.Root, from, name string, mode fs.FileMode) error {
	if err := makeRoom(root, name); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return root.Chmod(name, mode)
}

func copySymlink(root *os.Root, from, name string) error {
	target, err := os.Readlink(from)
	if err != nil {
		return err
	}
	if err := makeRoom(root, name); err != nil {
		return err
	}
	return root.Symlink(target, name)
}
