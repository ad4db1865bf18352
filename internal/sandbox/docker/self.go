package docker

import (
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
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

// Clues are what a process sees of the container it may run in: its /proc/self/cgroup, its
// /proc/self/mountinfo and its hostname.
type Clues struct {
	Cgroup, MountInfo, Hostname string
}

// OwnClues reads this process's clues; what cannot be read is empty.
func OwnClues() Clues {
	cgroup, _ := os.ReadFile("/proc/self/cgroup")
	mountInfo, _ := os.ReadFile("/proc/self/mountinfo")
	hostname, _ := os.Hostname()
	return Clues{Cgroup: string(cgroup), MountInfo: string(mountInfo), Hostname: hostname}
}

// Self finds the container this process runs in, so that sibling containers can bind the same
// host paths (a container Action's workspace, say). The clues name candidates, each checked with
// the daemon, in this order:
//
//   - the cgroup's path (/docker/<id>, docker-<id>.scope, ...), which names our own container
//     when the container shares the host's cgroup namespace (cgroup v1, or --cgroupns host);
//   - the sources of /etc/hostname, /etc/hosts and /etc/resolv.conf in the mountinfo
//     (/var/lib/docker/containers/<id>/hostname). They name the container whose network we
//     share: our own, or the one we joined with --network container:<id>, as act runs a Docker
//     action in its job container's network. Then the container that joined it and has our
//     root file system is the one;
//   - the hostname, which Docker sets to the start of the ID unless told otherwise (and which is
//     the host's with --network host).
//
// A candidate is ours when the daemon knows it as a running container with that ID and, where
// both sides tell it (overlay2), its writable layer is the upper directory of our root file
// system. Self reports false when no candidate is (not in a container, or in one of another
// daemon).
func (e *Engine) Self(ctx context.Context, clues Clues) (Self, bool, error) {
	mi := parseMountInfo(clues.MountInfo)
	for _, id := range cgroupIDs(clues.Cgroup) {
		c, ok, err := e.inspectCandidate(ctx, id)
		if err != nil || (ok && mi.ours(c) != mismatch) {
			return selfOf(c), ok, err
		}
	}
	candidates := mi.shared
	if len(clues.Hostname) >= 12 && isHex(clues.Hostname) {
		candidates = append(candidates, clues.Hostname)
	}
	for _, id := range candidates {
		c, ok, err := e.inspectCandidate(ctx, id)
		switch {
		case err != nil:
			return Self{}, false, err
		case !ok:
			continue
		case mi.ours(c) != mismatch:
			return selfOf(c), true, nil
		}
		if c, ok, err := e.joined(ctx, c.ID, mi); err != nil || ok {
			return selfOf(c), ok, err
		}
	}
	return Self{}, false, nil
}

// joined finds, among the running containers that joined the network of container id, the one
// with our root file system. The list asks for every state: it is the daemon's last snapshot,
// which can still show our own container as created while its process already runs (this one);
// the inspect, which waits for the start to finish, tells whether it runs.
func (e *Engine) joined(ctx context.Context, id string, mi mountInfo) (container.InspectResponse, bool, error) {
	list, err := e.api.ContainerList(ctx, client.ContainerListOptions{All: true})
	if err != nil {
		return container.InspectResponse{}, false, fmt.Errorf("docker: list containers to find our own: %w", err)
	}
	for _, s := range list.Items {
		if s.HostConfig.NetworkMode != "container:"+id {
			continue
		}
		c, ok, err := e.inspectCandidate(ctx, s.ID)
		if err != nil || (ok && mi.ours(c) == match) {
			return c, ok, err
		}
	}
	return container.InspectResponse{}, false, nil
}

// inspectCandidate inspects the running container whose ID starts with id; false when there is
// none (the daemon also resolves names: only an ID that starts with id counts).
func (e *Engine) inspectCandidate(ctx context.Context, id string) (container.InspectResponse, bool, error) {
	r, err := e.api.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return container.InspectResponse{}, false, nil
	}
	if err != nil {
		return container.InspectResponse{}, false, fmt.Errorf("docker: inspect container %.12s, which may be our own: %w", id, err)
	}
	c := r.Container
	if !strings.HasPrefix(c.ID, id) || c.State == nil || !c.State.Running {
		return container.InspectResponse{}, false, nil
	}
	return c, true, nil
}

func selfOf(c container.InspectResponse) Self {
	self := Self{ID: c.ID, Mounts: map[string]string{}}
	for _, m := range c.Mounts {
		if m.Source != "" {
			self.Mounts[m.Destination] = m.Source
		}
	}
	return self
}

// verdict is whether a container is ours as far as its root file system tells.
type verdict int

const (
	unknown  verdict = iota // one side does not say (a storage driver other than overlay2)
	match                   // its writable layer is our root's upper directory
	mismatch                // it is another container's
)

// mountInfo is what /proc/self/mountinfo tells about our container.
type mountInfo struct {
	// upper is the upper directory of the overlay mounted at /, our writable layer.
	upper string
	// shared are the IDs of the containers whose hostname, hosts or resolv.conf files are
	// bound into ours.
	shared []string
}

func (mi mountInfo) ours(c container.InspectResponse) verdict {
	var upper string
	if c.GraphDriver != nil {
		upper = c.GraphDriver.Data["UpperDir"]
	}
	switch {
	case mi.upper == "" || upper == "":
		return unknown
	case path.Clean(upper) == path.Clean(mi.upper):
		return match
	default:
		return mismatch
	}
}

// networkFile is the source of a file Docker binds into a container for its network, in the
// daemon's directory of that container.
var networkFile = regexp.MustCompile(`/containers/([0-9a-f]{64})/(?:hostname|hosts|resolv\.conf)$`)

// networkPoints are where Docker binds a container's network files.
var networkPoints = map[string]bool{"/etc/hostname": true, "/etc/hosts": true, "/etc/resolv.conf": true}

// parseMountInfo reads the lines of a mountinfo file (proc(5)): "ID parent major:minor root
// mount-point options [optional...] - type source super-options".
func parseMountInfo(s string) mountInfo {
	var mi mountInfo
	seen := map[string]bool{}
	for line := range strings.Lines(s) {
		before, after, ok := strings.Cut(strings.TrimSpace(line), " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		root, point := unescapeMount(fields[3]), unescapeMount(fields[4])
		if point == "/" && tail[0] == "overlay" {
			for _, opt := range strings.Split(tail[2], ",") {
				if v, ok := strings.CutPrefix(opt, "upperdir="); ok {
					mi.upper = unescapeMount(v)
				}
			}
		}
		// Only where they stand in our own file system: the daemon's host, whose /var/lib/docker
		// is shared, sees every container's under that container's root (…/merged/etc/hostname).
		if m := networkFile.FindStringSubmatch(root); m != nil && networkPoints[point] && !seen[m[1]] {
			seen[m[1]] = true
			mi.shared = append(mi.shared, m[1])
		}
	}
	return mi
}

// unescapeMount undoes the octal escapes mountinfo writes for space, tab, newline and
// backslash.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1:i+4]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(s string) bool {
	return len(s) == 3 && strings.Trim(s, "01234567") == "" && s[0] <= '3'
}

// cgroupID is a container ID as a segment of a cgroup path: the segment itself (cgroupfs:
// /docker/<id>, GitHub's /actions_job/<id>) or a systemd scope (docker-<id>.scope,
// libpod-<id>.scope, cri-containerd-<id>.scope).
var cgroupID = regexp.MustCompile(`(?:^|[/-])([0-9a-f]{64})(?:\.scope)?(?:/|$)`)

// cgroupIDs returns the container IDs the lines of a cgroup file (cgroups(7):
// "hierarchy:controllers:path") name, the innermost of each path, first seen first.
func cgroupIDs(s string) []string {
	var ids []string
	seen := map[string]bool{}
	for line := range strings.Lines(s) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		m := cgroupID.FindAllStringSubmatch(parts[2], -1)
		if len(m) == 0 {
			continue
		}
		if id := m[len(m)-1][1]; !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }
