package docker

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"

	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// Build says which image a sandbox uses and how to get it.
type Build struct {
	Image      string            // name[:tag] to use, and to tag a build with
	Dockerfile string            // path of the Dockerfile on this machine; "" = nothing to build
	Context    string            // build context directory on this machine; "" = the Dockerfile's directory
	Args       map[string]string // build arguments
	// Policy is when to build: "auto" (or "") when the image is missing or was built from
	// another Dockerfile or other Args, "always", or "never".
	Policy string
	// Pull allows fetching from a registry: a missing image that is not built here is pulled,
	// and a build pulls a newer base image. Nothing is ever pulled otherwise.
	Pull   bool
	OnLine func(line string) // receives the build's output lines; may be nil
}

// buildTail is how many lines of build output a build error quotes.
const buildTail = 20

// EnsureImage makes b.Image available as b.Policy says and returns its ID.
//
// Auto builds are skipped while the image's labelDockerfile matches the Dockerfile and Args: a
// change to another file of the build context is not noticed (use "always"). The context is sent
// whole: .dockerignore is not read, so keep the context directory small.
func (e *Engine) EnsureImage(ctx context.Context, b Build) (string, error) {
	if b.Image == "" {
		return "", errors.New("docker: ensure image: no image name")
	}
	policy := b.Policy
	if policy == "" {
		policy = "auto"
	}
	if policy != "auto" && policy != "always" && policy != "never" {
		return "", fmt.Errorf("docker: ensure image %s: policy %q: want auto, always or never", b.Image, b.Policy)
	}
	if policy != "never" && b.Dockerfile != "" {
		sum, err := dockerfileSum(b)
		if err != nil {
			return "", fmt.Errorf("docker: ensure image %s: %w", b.Image, err)
		}
		if policy == "auto" {
			img, ok, err := e.inspectImage(ctx, b.Image)
			if err != nil {
				return "", err
			}
			if ok && img.Config != nil && img.Config.Labels[labelDockerfile] == sum {
				return img.ID, nil
			}
		}
		return e.build(ctx, b, sum)
	}
	if policy == "always" {
		return "", fmt.Errorf("docker: ensure image %s: build-image always needs a Dockerfile", b.Image)
	}
	img, ok, err := e.inspectImage(ctx, b.Image)
	if err != nil || ok {
		return img.ID, err
	}
	if !b.Pull {
		return "", fmt.Errorf("docker: image %s not found locally, and it is never pulled unless asked: "+
			"name an existing image with the input image, or build it with the docker input's key build-image and a Dockerfile", b.Image)
	}
	return e.pull(ctx, b.Image)
}

func (e *Engine) inspectImage(ctx context.Context, name string) (client.ImageInspectResult, bool, error) {
	img, err := e.api.ImageInspect(ctx, name)
	if cerrdefs.IsNotFound(err) {
		return img, false, nil
	}
	if err != nil {
		return img, false, fmt.Errorf("docker: inspect image %s: %w", name, err)
	}
	return img, true, nil
}

func (e *Engine) pull(ctx context.Context, name string) (string, error) {
	resp, err := e.api.ImagePull(ctx, name, client.ImagePullOptions{})
	if err != nil {
		return "", fmt.Errorf("docker: pull image %s: %w", name, err)
	}
	defer resp.Close()
	if err := resp.Wait(ctx); err != nil {
		return "", fmt.Errorf("docker: pull image %s: %w", name, err)
	}
	img, ok, err := e.inspectImage(ctx, name)
	if err == nil && !ok {
		err = fmt.Errorf("docker: pull image %s: not found after pulling", name)
	}
	return img.ID, err
}

// dockerfileSum hashes what an auto build depends on: the Dockerfile and the build arguments.
func dockerfileSum(b Build) (string, error) {
	data, err := os.ReadFile(b.Dockerfile)
	if err != nil {
		return "", fmt.Errorf("read Dockerfile: %w", err)
	}
	h := sha256.New()
	h.Write(data)
	for _, k := range slices.Sorted(maps.Keys(b.Args)) {
		fmt.Fprintf(h, "\x00%s=%s", k, b.Args[k])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// build builds b through the API (the daemon's classic builder), labelled with sum.
func (e *Engine) build(ctx context.Context, b Build, sum string) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("docker: build image %s from %s: %w", b.Image, b.Dockerfile, err)
	}
	dir := b.Context
	if dir == "" {
		dir = filepath.Dir(b.Dockerfile)
	}
	dockerfile, extra, err := dockerfileInContext(b.Dockerfile, dir)
	if err != nil {
		return fail(err)
	}
	args := map[string]*string{}
	for k, v := range b.Args {
		args[k] = &v
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContext(pw, dir, extra)) }()
	defer pr.Close() // ends the writer if the daemon stops reading
	resp, err := e.api.ImageBuild(ctx, pr, client.ImageBuildOptions{
		Tags:        []string{b.Image},
		Dockerfile:  dockerfile,
		BuildArgs:   args,
		Labels:      map[string]string{labelDockerfile: sum},
		PullParent:  b.Pull,
		Remove:      true,
		ForceRemove: true,
	})
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()

	var tail []string
	lines := stream.NewLineWriter(stream.MaxOutput, func(l []byte) {
		line := strings.TrimRight(string(l), "\r")
		if b.OnLine != nil {
			b.OnLine(line)
		}
		tail = append(tail, line)
		if len(tail) > buildTail {
			tail = tail[1:]
		}
	})
	var buildErr error
	dec := json.NewDecoder(resp.Body)
	for buildErr == nil {
		var m jsonstream.Message
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			lines.Flush()
			return fail(fmt.Errorf("read output: %w", err))
		}
		lines.Write([]byte(m.Stream))
		if m.Error != nil {
			buildErr = m.Error
		}
	}
	lines.Flush()
	if buildErr != nil {
		return fail(fmt.Errorf("%w\n%s", buildErr, strings.Join(tail, "\n")))
	}
	img, ok, err := e.inspectImage(ctx, b.Image)
	if err == nil && !ok {
		err = errors.New("not found after building")
	}
	if err != nil {
		return fail(err)
	}
	return img.ID, nil
}

// dockerfileInContext returns the Dockerfile's name in the context archive. A Dockerfile outside
// the context directory is added to the archive under a name of its own; extra is its path then.
func dockerfileInContext(dockerfile, dir string) (name, extra string, err error) {
	absFile, err := filepath.Abs(dockerfile)
	if err != nil {
		return "", "", err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel), "", nil
	}
	return extraDockerfile, absFile, nil
}

// extraDockerfile names a Dockerfile from outside the context in the context archive.
const extraDockerfile = ".sandcastle.Dockerfile"

// writeContext writes dir as a tar archive to w: directories, regular files and symbolic links,
// owned by root; extra, when set, is added as extraDockerfile.
func writeContext(w io.Writer, dir, extra string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return addFile(tw, p, filepath.ToSlash(rel), info)
	})
	if err != nil {
		return fmt.Errorf("archive build context %s: %w", dir, err)
	}
	if extra != "" {
		info, err := os.Stat(extra)
		if err != nil {
			return fmt.Errorf("archive Dockerfile: %w", err)
		}
		if err := addFile(tw, extra, extraDockerfile, info); err != nil {
			return fmt.Errorf("archive Dockerfile %s: %w", extra, err)
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, p, name string, info fs.FileInfo) error {
	link := ""
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		var err error
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	case !info.IsDir() && !info.Mode().IsRegular():
		return nil // sockets, devices and pipes have no place in an image
	}
	hdr, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}
