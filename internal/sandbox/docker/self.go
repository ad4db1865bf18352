package docker

import (
	"context"
	"fmt"
	"path"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Self is the container this process runs in, as the daemon sees it.
type Self struct {
	ID string
	// Mounts maps each mount's destination in this container to its source on the daemon's
	// host.
	Mounts map[string]string
}

// HostPath translates p, a path in this container, into the path of the same file on the
// daemon's host, through the mount that contains it most closely. It reports false when no
// mount contains p: the file then lives only in this container's own filesystem.
func (s Self) HostPath(p string) (string, bool) {
	p = path.Clean(p)
	best, src := "", ""
	for dst, source := range s.Mounts {
		if (p == dst || strings.HasPrefix(p, strings.TrimSuffix(dst, "/")+"/")) && len(dst) > len(best) {
			best, src = dst, source
		}
	}
	if best == "" {
		return "", false
	}
	return path.Join(src, strings.TrimPrefix(p, best)), true
}

// Self finds the container this process runs in from its hostname, which Docker sets to the
// start of the container's ID, so that sibling containers can bind the same host paths (a
// container Action's workspace, say). It reports false when hostname is not such an ID (not in
// a container, or one given its own hostname) or the daemon does not know it (another daemon's
// container).
func (e *Engine) Self(ctx context.Context, hostname string) (Self, bool, error) {
	if len(hostname) < 12 || strings.Trim(hostname, "0123456789abcdef") != "" {
		return Self{}, false, nil
	}
	r, err := e.api.ContainerInspect(ctx, hostname, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return Self{}, false, nil
	}
	if err != nil {
		return Self{}, false, fmt.Errorf("docker: inspect own container %s: %w", hostname, err)
	}
	// The daemon also resolves names: only an ID that starts with the hostname is ours.
	if !strings.HasPrefix(r.Container.ID, hostname) {
		return Self{}, false, nil
	}
	self := Self{ID: r.Container.ID, Mounts: map[string]string{}}
	for _, m := range r.Container.Mounts {
		if m.Source != "" {
			self.Mounts[m.Destination] = m.Source
		}
	}
	return self, true, nil
}
