package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sandcastle-action/sandcastle/internal/gitguard"
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
// at the same path it has here (so git's worktree pointers resolve unchanged), as the
// workspace's owner, hardened by default. The workspace is mounted, or copied in when
// sandbox-sync says copy, or says auto and the daemon cannot see it; copied reports which.
//
// The repository's git directory is mounted too, as a mount of its own even inside the
// workspace, with guard's read-only binds over it: the agent can commit, but not change what
// git on the host runs.
func (p *plan) startDocker(ctx context.Context, ws *workspace.Workspace, top string, vars map[string]string, guard *gitguard.Guard, log *report.Log) (sb *docker.Sandbox, copied bool, err error) {
	d := p.cfg.Docker
	engine, err := docker.New(ctx)
	if err != nil {
		return nil, false, &inputs.RuntimeError{Input: inputs.InputSandbox, Err: fmt.Errorf("%w; or use sandbox: none", err)}
	}
	hostPath, err := hostPaths(ctx, engine)
	if err != nil {
		return nil, false, err
	}
	// Paths inside the sandbox are ours; sources are the daemon host's (the same unless we run in
	// a container ourselves). A worktree's git directory is outside it.
	common := guard.CommonDir()
	workspaceDirs := []string{ws.Dir}
	if rel, err := filepath.Rel(ws.Dir, common); err != nil || !filepath.IsLocal(rel) {
		workspaceDirs = append(workspaceDirs, common)
	}
	copied, unseen, err := copyWorkspace(d.Sync, workspaceDirs, hostPath)
	if err != nil {
		return nil, false, err
	}
	if unseen != "" {
		log.Status("%s is not on a mount the Docker daemon can see; copying the repository into the sandbox (sandbox-sync: auto)", unseen)
	}
	repo, err := hostPath(top)
	if err != nil {
		if !copied {
			return nil, false, err
		}
		repo = top // only a name for Sweep: no sibling of this run can see the checkout either
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
		return nil, false, err
	}

	env := make(map[string]string, len(vars))
	for k, v := range vars {
		if !slices.Contains(hostOnly, k) {
			env[k] = v
		}
	}
	var binds []docker.Mount
	if !copied {
		for _, dir := range workspaceDirs {
			binds = append(binds, docker.Mount{Source: dir, Target: dir})
		}
		// A mount point cannot be renamed or replaced: the git directory the host reads stays
		// this one.
		if len(workspaceDirs) == 1 {
			binds = append(binds, docker.Mount{Source: common, Target: common})
		}
		protect, err := guard.Binds(workspaceDirs...)
		if err != nil {
			return nil, false, err
		}
		for _, b := range protect {
			binds = append(binds, docker.Mount{Source: b.Path, Target: b.Path, ReadOnly: b.ReadOnly})
		}
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
			return nil, false, err
		}
		mounts = append(mounts, m)
	}
	var devices []string
	for _, dv := range d.Devices {
		devices = append(devices, dv.Host+":"+dv.Sandbox+":"+dv.Permissions)
	}
	sb, err = engine.Start(ctx, docker.Options{
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
		return nil, false, err
	}
	log.Status("Sandbox %s started from %s", sb.Name(), d.Image)
	if copied {
		// The working directory exists already, made by the daemon for root: CopyIn gives it to
		// the agent's user.
		for _, dir := range workspaceDirs {
			if err := sb.CopyIn(ctx, dir, dir); err != nil {
				closeSandbox(ctx, sb, log)
				return nil, false, err
			}
		}
		log.Status("Copied the repository into the sandbox; only commits come back out")
	}
	return sb, copied, nil
}

// copyWorkspace reports whether the workspace directories are copied into the sandbox rather
// than mounted: always for sandbox-sync copy; for auto, when hostPath cannot name one of them
// on the daemon's host, which it returns as unseen. For mount that is an error.
func copyWorkspace(sync inputs.SyncMode, dirs []string, hostPath func(string) (string, error)) (copied bool, unseen string, err error) {
	if sync == inputs.SyncCopy {
		return true, "", nil
	}
	for _, dir := range dirs {
		if _, err := hostPath(dir); err != nil {
			if sync != inputs.SyncAuto {
				return false, "", err
			}
			return true, dir, nil
		}
	}
	return false, "", nil
}

// hostPaths returns how to name a path of ours on the Docker daemon's host. Inside a container
// (a container Action) a sibling sandbox can only bind what our own mounts bring in from the
// host, such as the runner's workspace; the path is translated through them, never through
// --volumes-from, which would hand the agent our Docker socket and GITHUB_OUTPUT.
func hostPaths(ctx context.Context, engine *docker.Engine) (func(string) (string, error), error) {
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
		return "", &inputs.RuntimeError{Input: inputs.InputSandboxSync, Err: fmt.Errorf("%s is not on a mount of this container (%.12s), so a sibling sandbox cannot see it; mount it into the job's container, or use sandbox-sync: copy", p, self.ID)}
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
