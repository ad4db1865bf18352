package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
)

// Options describe the container of a sandbox. The zero value of every field but Image and User
// is a safe default.
type Options struct {
	Image string // image name or ID; it must exist (see EnsureImage)
	Name  string // container name; "" = sandcastle-<random>

	Run   string // the run's id, stored in labelRun
	Owner string // the process that starts it, stored in labelOwner for Sweep
	// Repo identifies the repository on the daemon's host (its absolute host path); it is hashed
	// into labelRepo. See Sweep.
	Repo string

	Mounts  []Mount
	WorkDir string            // working directory of every Exec and RepoDir(); "" = Workspace
	Env     map[string]string // the container's environment; HOME is always Home
	// ImageHome keeps the image's Home directory, which must then be writable by User, instead
	// of mounting a fresh tmpfs over it: for images that install tools under it.
	ImageHome bool

	User      string // "uid:gid", both numeric, so that HOME can be owned by it
	AllowRoot bool   // allow uid 0; refused otherwise

	Network   string   // "" = the default bridge; "none"; "host"; or a network's name
	CPUs      float64  // 0 = no limit
	Memory    int64    // bytes; 0 = defaultMemory (4 GiB); -1 = no limit
	PidsLimit int64    // 0 = defaultPidsLimit (4096); -1 = no limit
	Devices   []string // host[:container[:permissions]], as docker run --device
	Groups    []string // supplementary groups, as docker run --group-add

	// SELinuxLabel relabels bind mounts: "" not at all, "z" shared, "Z" private to the container.
	SELinuxLabel string
	Labels       map[string]string // added to the container's labels
}

// Mount is a bind mount. Source is a path on the daemon's host: inside a container, translate
// it with Self.
type Mount struct {
	Source, Target string
	ReadOnly       bool
}

// Start creates and starts a container for o, labelled with labelRun, labelRepo and o.Labels,
// and checks that it can run Execs. When it fails after the container may exist, it removes the
// container.
func (e *Engine) Start(ctx context.Context, o Options) (*Sandbox, error) {
	if o.WorkDir == "" {
		o.WorkDir = Workspace
	}
	if o.Name == "" {
		o.Name = "sandcastle-" + randomHex(6)
	}
	uid, gid, err := o.check(e.sockets())
	if err != nil {
		return nil, fmt.Errorf("docker: start sandbox: %w", err)
	}
	cfg, host := o.config(uid, gid)
	created, err := e.api.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:       o.Name,
		Config:     cfg,
		HostConfig: host,
	})
	if err != nil {
		if ctx.Err() != nil {
			// The daemon may have created it before the request was cut short.
			err = errors.Join(err, newSandbox(e.api, o.Name, o.Name, "").remove(ctx))
		}
		return nil, fmt.Errorf("docker: create container %s from image %s: %w", o.Name, o.Image, err)
	}
	s := newSandbox(e.api, created.ID, o.Name, o.WorkDir)
	s.uid, s.gid = uid, gid
	if err := s.start(ctx); err != nil {
		// ctx may be what ended: removal must still happen.
		return nil, errors.Join(err, s.remove(ctx))
	}
	return s, nil
}

// start starts the container and proves that Execs work in it.
func (s *Sandbox) start(ctx context.Context) error {
	if _, err := s.api.ContainerStart(ctx, s.id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("docker: start container %s: %w", s.name, err)
	}
	// An exec needs a running container, so a keep-alive that died at once fails here.
	code, out, err := s.run(ctx, []string{"/bin/sh", "-c", probe})
	if err != nil {
		return fmt.Errorf("docker: check container %s: %w", s.name, err)
	}
	if code != 0 {
		return fmt.Errorf("docker: check container %s: exit code %d: %s", s.name, code, strings.TrimSpace(out))
	}
	return nil
}

// probe checks what the exec wrapper needs.
const probe = `for c in setsid sleep cat; do
	command -v "$c" >/dev/null || { echo "the image has no $c, which the sandbox needs to run and stop processes" >&2; exit 127; }
done
[ -w ` + stateDir + ` ] || { echo "` + stateDir + ` is not writable" >&2; exit 1; }`

// check validates o and returns the numeric user and group. sockets are the daemon's socket
// paths that no mount may expose.
func (o *Options) check(sockets []string) (uid, gid int, err error) {
	var errs []error
	if o.Image == "" {
		errs = append(errs, errors.New("no image"))
	}
	uid, gid, uerr := parseUser(o.User)
	switch {
	case uerr != nil:
		errs = append(errs, uerr)
	case uid == 0 && !o.AllowRoot:
		errs = append(errs, fmt.Errorf("user %q is root: the sandbox runs as the workspace owner unless root is allowed", o.User))
	}
	if !path.IsAbs(o.WorkDir) {
		errs = append(errs, fmt.Errorf("working directory %q is not absolute", o.WorkDir))
	}
	for _, m := range o.Mounts {
		if !filepath.IsAbs(m.Source) || !path.IsAbs(m.Target) {
			errs = append(errs, fmt.Errorf("mount %s:%s: both paths must be absolute", m.Source, m.Target))
			continue
		}
		if sock, ok := exposes(m.Source, sockets); ok {
			errs = append(errs, fmt.Errorf("mount %s:%s would expose the Docker socket %s to the agent", m.Source, m.Target, sock))
		}
		if o.SELinuxLabel != "" && (strings.Contains(m.Source, ":") || strings.Contains(m.Target, ":")) {
			errs = append(errs, fmt.Errorf("mount %s:%s: a relabelled mount cannot have ':' in a path", m.Source, m.Target))
		}
	}
	if o.SELinuxLabel != "" && o.SELinuxLabel != "z" && o.SELinuxLabel != "Z" {
		errs = append(errs, fmt.Errorf("SELinux label %q: want \"\", \"z\" or \"Z\"", o.SELinuxLabel))
	}
	for _, d := range o.Devices {
		if _, err := device(d); err != nil {
			errs = append(errs, err)
		}
	}
	return uid, gid, errors.Join(errs...)
}

// parseUser parses "uid:gid". Names are refused: HOME's tmpfs needs numbers, and a name would
// depend on the image's /etc/passwd.
func parseUser(user string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(user, ":")
	uid, uerr := strconv.Atoi(u)
	gid, gerr := strconv.Atoi(g)
	if !ok || uerr != nil || gerr != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("user %q: want numeric uid:gid", user)
	}
	return uid, gid, nil
}

// exposes reports which of sockets the host path src is, or contains. It compares paths only,
// both as given and with symbolic links resolved where src exists here, so it also works for
// host paths that this process cannot see.
func exposes(src string, sockets []string) (string, bool) {
	paths := []string{filepath.Clean(src)}
	if real, err := filepath.EvalSymlinks(src); err == nil {
		paths = append(paths, real)
	}
	for _, p := range paths {
		if filepath.Base(p) == "docker.sock" {
			return p, true
		}
		for _, sock := range sockets {
			if rel, err := filepath.Rel(p, sock); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return sock, true
			}
		}
	}
	return "", false
}

// sockets lists the daemon's usual socket paths and the one this client talks to.
func (e *Engine) sockets() []string {
	s := []string{"/var/run/docker.sock", "/run/docker.sock"}
	if p, ok := strings.CutPrefix(e.api.DaemonHost(), "unix://"); ok {
		s = append(s, p)
	}
	return s
}

// device parses host[:container[:permissions]].
func device(spec string) (container.DeviceMapping, error) {
	parts := strings.Split(spec, ":")
	d := container.DeviceMapping{PathOnHost: parts[0], PathInContainer: parts[0], CgroupPermissions: "rwm"}
	if len(parts) > 1 && parts[1] != "" {
		d.PathInContainer = parts[1]
	}
	if len(parts) > 2 {
		d.CgroupPermissions = parts[2]
	}
	if len(parts) > 3 || !path.IsAbs(d.PathOnHost) || !path.IsAbs(d.PathInContainer) || strings.Trim(d.CgroupPermissions, "rwm") != "" {
		return d, fmt.Errorf("device %q: want host[:container[:permissions]] with absolute paths", spec)
	}
	return d, nil
}

// config builds the container's configuration from checked options.
func (o *Options) config(uid, gid int) (*container.Config, *container.HostConfig) {
	env := make([]string, 0, len(o.Env)+1)
	for _, k := range slices.Sorted(maps.Keys(o.Env)) {
		if k != "HOME" {
			env = append(env, k+"="+o.Env[k])
		}
	}
	env = append(env, "HOME="+Home)

	labels := maps.Clone(o.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[labelRun] = o.Run
	if o.Owner != "" {
		labels[labelOwner] = o.Owner
	}
	if o.Repo != "" {
		labels[labelRepo] = repoKey(o.Repo)
	}

	cfg := &container.Config{
		Image:      o.Image,
		User:       fmt.Sprintf("%d:%d", uid, gid),
		Env:        env,
		WorkingDir: o.WorkDir,
		// Our own keep-alive, whatever the image's entrypoint does; the image's CMD is not used
		// when an entrypoint is given.
		Entrypoint: []string{"sleep", "infinity"},
		Labels:     labels,
	}

	memory, pids := o.Memory, o.PidsLimit
	if memory == 0 {
		memory = defaultMemory
	}
	if pids == 0 {
		pids = defaultPidsLimit
	}
	init := true
	owner := fmt.Sprintf("uid=%d,gid=%d", uid, gid)
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(o.Network),
		GroupAdd:    o.Groups,
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"},
		Init:        &init, // reaps the orphans of killed process groups
		Tmpfs:       map[string]string{stateDir: owner + ",mode=0700,size=1m"},
		Resources: container.Resources{
			Memory:    max(memory, 0),
			NanoCPUs:  int64(o.CPUs * 1e9),
			PidsLimit: &pids,
		},
	}
	if !o.ImageHome {
		host.Tmpfs[Home] = owner + ",mode=0755,exec" // exec: the agent may install tools there
	}
	for _, d := range o.Devices {
		dm, _ := device(d) // checked
		host.Devices = append(host.Devices, dm)
	}
	for _, m := range o.Mounts {
		if o.SELinuxLabel == "" {
			// A mount, unlike a bind string, fails when the source is missing instead of
			// creating it as an empty root-owned directory.
			host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
			continue
		}
		opts := o.SELinuxLabel
		if m.ReadOnly {
			opts = "ro," + opts
		}
		host.Binds = append(host.Binds, m.Source+":"+m.Target+":"+opts)
	}
	return cfg, host
}

// remove removes the container and its anonymous volumes, killing what runs in it. It runs on
// its own deadline even when ctx has ended. A container that is already gone is not an error.
func (s *Sandbox) remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	_, err := s.api.ContainerRemove(ctx, s.id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("docker: remove container %s: %w", s.name, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
