package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// CopyIn copies the host directory hostDir into the container at containerDir, through the
// Engine API rather than a mount: directories, regular files and symbolic links with their
// permission bits (hard links become copies; sockets, pipes and devices are skipped). Everything
// copied, and every missing parent directory created for it, is owned by the container's user,
// so the agent can write the copy; an existing containerDir (such as the working directory,
// which the daemon creates) is given to that user too. A file that grows while it is copied is
// copied as long as it was when first seen.
func (s *Sandbox) CopyIn(ctx context.Context, hostDir, containerDir string) error {
	if !filepath.IsAbs(hostDir) || !path.IsAbs(containerDir) {
		return fmt.Errorf("docker: copy %s into %s: both paths must be absolute", hostDir, containerDir)
	}
	containerDir = path.Clean(containerDir)
	if containerDir == "/" {
		return fmt.Errorf("docker: copy %s into %s: refusing to replace the container's root", hostDir, containerDir)
	}
	if fi, err := os.Stat(hostDir); err != nil {
		return fmt.Errorf("docker: copy %s into %s: %w", hostDir, containerDir, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("docker: copy %s into %s: not a directory", hostDir, containerDir)
	}
	// The archive is extracted under the deepest directory that exists, so that the missing
	// ones in between are created by it, owned by the user, instead of by root.
	dest, err := s.existingParent(ctx, containerDir)
	if err != nil {
		return fmt.Errorf("docker: copy %s into %s: %w", hostDir, containerDir, err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(s.writeTree(pw, hostDir, dest, containerDir)) }()
	_, err = s.api.CopyToContainer(ctx, s.id, client.CopyToContainerOptions{DestinationPath: dest, Content: pr})
	pr.CloseWithError(errors.New("copy ended")) // stops writeTree when the daemon gave up early
	if err != nil {
		return fmt.Errorf("docker: copy %s into %s in container %s: %w", hostDir, containerDir, s.name, err)
	}
	return nil
}

// existingParent is the deepest directory above dir that exists in the container.
func (s *Sandbox) existingParent(ctx context.Context, dir string) (string, error) {
	for p := path.Dir(dir); ; p = path.Dir(p) {
		if p == "/" {
			return p, nil
		}
		_, err := s.api.ContainerStatPath(ctx, s.id, client.ContainerStatPathOptions{Path: p})
		if err == nil {
			return p, nil
		}
		if !cerrdefs.IsNotFound(err) {
			return "", fmt.Errorf("stat %s: %w", p, err)
		}
	}
}

// writeTree writes the tar archive of hostDir, to be extracted at dest so that hostDir lands at
// target.
func (s *Sandbox) writeTree(w io.Writer, hostDir, dest, target string) error {
	tw := tar.NewWriter(w)
	rel := strings.TrimPrefix(strings.TrimPrefix(target, dest), "/")
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		if err := tw.WriteHeader(s.header(tar.TypeDir, strings.Join(parts[:i+1], "/")+"/", 0o755)); err != nil {
			return err
		}
	}
	err := filepath.WalkDir(hostDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name, _ := filepath.Rel(hostDir, p)
		name = path.Join(rel, filepath.ToSlash(name))
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := int64(fi.Mode().Perm() | fi.Mode()&(fs.ModeSetgid|fs.ModeSticky))
		switch {
		case fi.IsDir():
			return tw.WriteHeader(s.header(tar.TypeDir, name+"/", mode))
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			h := s.header(tar.TypeSymlink, name, 0o777)
			h.Linkname = link
			return tw.WriteHeader(h)
		case fi.Mode().IsRegular():
			return s.writeFile(tw, p, name, mode, fi.Size())
		}
		return nil // sockets, pipes, devices: nothing an agent's checkout needs
	})
	if err != nil {
		return fmt.Errorf("archive %s: %w", hostDir, err)
	}
	return tw.Close()
}

func (s *Sandbox) writeFile(tw *tar.Writer, p, name string, mode, size int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	h := s.header(tar.TypeReg, name, mode)
	h.Size = size
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	// CopyN, not Copy: a file still being appended to (a log) must not outgrow its header.
	if _, err := io.CopyN(tw, f, size); err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	return nil
}

func (s *Sandbox) header(typ byte, name string, mode int64) *tar.Header {
	return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Uid: s.uid, Gid: s.gid, Format: tar.FormatPAX}
}

// CopyOut writes the content of the regular file at containerPath in the container to w.
func (s *Sandbox) CopyOut(ctx context.Context, containerPath string, w io.Writer) error {
	res, err := s.api.CopyFromContainer(ctx, s.id, client.CopyFromContainerOptions{SourcePath: containerPath})
	if err != nil {
		return fmt.Errorf("docker: copy %s out of container %s: %w", containerPath, s.name, err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(res.Content)
	h, err := tr.Next()
	if err != nil {
		return fmt.Errorf("docker: copy %s out of container %s: read archive: %w", containerPath, s.name, err)
	}
	if h.Typeflag != tar.TypeReg {
		return fmt.Errorf("docker: copy %s out of container %s: not a regular file", containerPath, s.name)
	}
	if _, err := io.Copy(w, tr); err != nil {
		return fmt.Errorf("docker: copy %s out of container %s: %w", containerPath, s.name, err)
	}
	return nil
}
