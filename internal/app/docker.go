package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// sandboxHome is the agent's home directory inside a container.
const sandboxHome = "/home/agent"

// hostOnly are the variables of the host base that describe the host, not the container: the
// image brings its own.
var hostOnly = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR"}

// startDocker starts the run's one container: the image built or checked first, the workspace
// mounted at the same path it has here (so git's worktree pointers resolve unchanged), as the
// workspace's owner, hardened by default.
func (p *plan) startDocker(ctx context.Context, ws *workspace.Workspace, top string, vars map[string]string, log *report.Log) (sandbox.Sandbox, error) {
	d := p.cfg.Docker
	engine, err := docker.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("input \"sandbox\": %w; or use sandbox: none", err)
	}
	hostPath, err := hostPaths(ctx, engine, d.Sync)
	if err != nil {
		return nil, err
	}
	repo, err := hostPath(top)
	if err != nil {
		return nil, err
	}
	if n, err := engine.Sweep(ctx, repo, ownerGone); err != nil {
		log.Warning("removing containers left by an earlier run: %v", err)
	} else if n > 0 {
		log.Status("Removed %d container(s) left by an earlier run", n)
	}
	uid, gid := p.owner()
	args := map[string]string{"AGENT_UID": strconv.Itoa(uid), "AGENT_GID": strconv.Itoa(gid)}
	maps.Copy(args, d.BuildArgs)
	if _, err := engine.EnsureImage(ctx, docker.Build{
		Image:      d.Image,
		Dockerfile: d.Dockerfile,
		Context:    d.BuildContext,
		Args:       args,
		Policy:     string(d.Build),
		Pull:       d.Pull,
		OnLine:     func(line string) { log.Raw(line) },
	}); err != nil {
		return nil, err
	}

	env := make(map[string]string, len(vars))
	for k, v := range vars {
		if !slices.Contains(hostOnly, k) {
			env[k] = v
		}
	}
	// Paths inside the sandbox are ours; sources are the daemon host's (the same unless we run in
	// a container ourselves).
	binds := []docker.Mount{{Source: ws.Dir, Target: ws.Dir}}
	if ws.Worktree {
		gitDir := filepath.Join(top, ".git")
		binds = append(binds, docker.Mount{Source: gitDir, Target: gitDir})
	}
	for _, m := range d.Mounts {
		target := m.Sandbox
		if rest, ok := strings.CutPrefix(target, "~"); ok {
			target = sandboxHome + rest
		}
		binds = append(binds, docker.Mount{Source: m.Host, Target: target, ReadOnly: m.ReadOnly})
	}
	mounts := make([]docker.Mount, 0, len(binds))
	for _, m := range binds {
		if m.Source, err = hostPath(m.Source); err != nil {
			return nil, err
		}
		mounts = append(mounts, m)
	}
	var devices []string
	for _, dv := range d.Devices {
		devices = append(devices, dv.Host+":"+dv.Sandbox+":"+dv.Permissions)
	}
	sb, err := engine.Start(ctx, docker.Options{
		Image:        d.Image,
		Run:          runID(),
		Owner:        processOwner(),
		Repo:         repo,
		Mounts:       mounts,
		WorkDir:      ws.Dir,
		Env:          env,
		User:         fmt.Sprintf("%d:%d", uid, gid),
		Network:      d.Network,
		CPUs:         d.CPUs,
		Memory:       d.Memory,
		PidsLimit:    d.PidsLimit,
		Devices:      devices,
		Groups:       d.Groups,
		SELinuxLabel: d.SELinuxLabel,
	})
	if err != nil {
		return nil, err
	}
	log.Status("Sandbox %s started from %s", sb.Name(), d.Image)
	return sb, nil
}

// hostPaths returns how to name a path of ours on the Docker daemon's host. Inside a container
// (a container Action) a sibling sandbox can only bind what our own mounts bring in from the
// host, such as the runner's workspace; the path is translated through them, never through
// --volumes-from, which would hand the agent our Docker socket and GITHUB_OUTPUT.
func hostPaths(ctx context.Context, engine *docker.Engine, sync inputs.SyncMode) (func(string) (string, error), error) {
	if sync == inputs.SyncCopy {
		return nil, errors.New("input \"sandbox-sync\": copy is not implemented in this version; use auto or mount")
	}
	hostname, _ := os.Hostname()
	self, inContainer, err := engine.Self(ctx, hostname)
	if err != nil {
		return nil, err
	}
	if !inContainer {
		return func(p string) (string, error) { return p, nil }, nil
	}
	return func(p string) (string, error) {
		if hp, ok := self.HostPath(p); ok {
			return hp, nil
		}
		return "", fmt.Errorf("input \"sandbox-sync\": %s is not on a mount of this container (%.12s), so a sibling sandbox cannot see it; mount it into the job's container, or use sandbox: none", p, self.ID)
	}, nil
}

// owner is the uid and gid the agent runs as: the inputs, else the owner of the workspace.
func (p *plan) owner() (uid, gid int) {
	uid, gid = ownerOf(p.cfg.WorkingDirectory)
	if d := p.cfg.Docker; d.UID != nil {
		uid = *d.UID
	}
	if d := p.cfg.Docker; d.GID != nil {
		gid = *d.GID
	}
	return uid, gid
}

// ownerOf is the owner of path; -1 when unknown.
func ownerOf(path string) (uid, gid int) {
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return int(st.Uid), int(st.Gid)
		}
	}
	return -1, -1
}

func runID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

var _ sandbox.Sandbox = (*docker.Sandbox)(nil)

// sandboxes this build runs agents in.
var sandboxes = []string{inputs.SandboxDocker, inputs.SandboxNone}
