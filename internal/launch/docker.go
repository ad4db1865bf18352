package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// SandboxHome is the agent's home directory inside a container.
const SandboxHome = "/home/agent"

// closeTimeout bounds removing a container that could not be made ready.
const closeTimeout = 2 * time.Minute

// hostOnly are the variables of the agent's environment that describe the host, not the
// container: the image brings its own.
var hostOnly = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR"}

// Docker starts the run's container as the Docker inputs say.
type Docker struct {
	Config inputs.DockerConfig
	// Workspace is working-directory: its owner is whom the agent runs as, unless the inputs
	// name a user.
	Workspace string
	// Extra are binds the run adds, their sources paths of ours (translated for a daemon
	// outside our container like the workspace): the GitHub relay's directory.
	Extra []docker.Mount
}

// Container is the run's container, and whether the workspace was copied into it rather than
// mounted: then only its commits come back out (see workspace.Synced).
type Container struct {
	*docker.Sandbox
	Copied bool
}

// AgentUID and AgentGID are whom the agent runs as in a workspace that belongs to root (act's
// and the runners built on it), unless the docker input's container-uid and container-gid say otherwise: never
// root. Lend gives the checkout to that user for the run.
const AgentUID, AgentGID = 1000, 1000

// User is the uid and gid the agent runs as: the inputs, else the owner of the workspace
// (AgentUID and AgentGID for one of root's); -1 when unknown.
func (d Docker) User() (uid, gid int) {
	uid, gid = workspace.Owner(d.Workspace)
	if uid == 0 {
		uid, gid = AgentUID, AgentGID
	}
	if d.Config.UID != nil {
		uid = *d.Config.UID
	}
	if d.Config.GID != nil {
		gid = *d.Config.GID
	}
	return uid, gid
}

// CheckUser refuses to run the agent as a user it cannot name: the workspace's owner is
// unknown, and the docker input's container-uid and container-gid name none.
func (d Docker) CheckUser() error {
	if uid, gid := d.User(); uid <= 0 || gid < 0 {
		return &inputs.Problem{Input: inputs.InputContainerUID, Message: fmt.Sprintf("the owner of the workspace %s is unknown and the agent never runs as root; set the docker input's container-uid and container-gid to a user that may write the checkout", d.Workspace)}
	}
	return nil
}

// Lend lends the checkout top to the agent's user for the run when the workspace belongs to
// root and the agent runs as another user; the function it returns hands it back (see
// workspace.Lend). Lend before the git directory is taken into custody, and give back once it
// is released, so that the custody sees no change of owner.
func (d Docker) Lend(top string) (giveBack func() error, err error) {
	if owner, _ := workspace.Owner(d.Workspace); owner != 0 {
		return func() error { return nil }, nil
	}
	uid, gid := d.User()
	return workspace.Lend(top, uid, gid)
}

// Start starts the run's one container: the image built or checked first, the workspace dir
// of the checkout top at the same path it has here (so git's worktree pointers resolve
// unchanged), as the workspace's owner, hardened by default, with env, less what describes the
// host. The workspace is mounted, or copied in when the docker input's sync says copy, or says auto and the
// daemon cannot see it.
//
// The repository's git directory is mounted too, as a mount of its own even inside the
// workspace, with guard's read-only binds over it: the agent can commit, but not change what
// git on the host runs.
func (d Docker) Start(ctx context.Context, dir, top string, env map[string]string, guard *gitguard.Guard, log *report.Log) (*Container, error) {
	engine, err := docker.New(ctx)
	if err != nil {
		return nil, &inputs.RuntimeError{Input: inputs.InputSandbox, Err: fmt.Errorf("%w; or use sandbox: none", err)}
	}
	hostPath, where, err := hostPaths(ctx, engine)
	if err != nil {
		return nil, err
	}
	// Paths inside the sandbox are ours; sources are the daemon host's (the same unless we run in
	// a container ourselves). A worktree's git directory is outside it.
	common := guard.CommonDir()
	workspaceDirs := []string{dir}
	if rel, err := filepath.Rel(dir, common); err != nil || !filepath.IsLocal(rel) {
		workspaceDirs = append(workspaceDirs, common)
	}
	copied, unseen, err := copyWorkspace(d.Config.Sync, workspaceDirs, hostPath)
	if err != nil {
		return nil, err
	}
	if unseen != "" {
		log.Status("%s is not on a mount the Docker daemon can see; copying the repository into the sandbox (docker sync: auto)", unseen)
	}
	if copied && len(d.Extra) > 0 {
		// The relay's socket lives beside the workspace, where the daemon cannot bind it either.
		log.Warning("the sandbox gets no GitHub relay: its socket would be on the host, which a copied-in workspace cannot reach; use docker sync: mount where the daemon sees the checkout")
		d.Extra = nil
	}
	repo, err := hostPath(top)
	if err != nil {
		if !copied {
			return nil, err
		}
		repo = top // only a name for Sweep: no sibling of this run can see the checkout either
	}
	if n, err := engine.Sweep(ctx, repo, func(owner string) bool { return ownerGone(where, owner) }); err != nil {
		log.Warning("removing containers left by an earlier run: %v", err)
	} else if n > 0 {
		log.Status("Removed %d container(s) left by an earlier run", n)
	}
	if err := d.image(ctx, engine, log); err != nil {
		return nil, err
	}
	mounts, err := d.mounts(dir, common, workspaceDirs, copied, guard, hostPath)
	if err != nil {
		return nil, err
	}
	sb, err := engine.Start(ctx, d.options(dir, repo, processOwner(where), env, mounts))
	if err != nil {
		return nil, err
	}
	log.Status("Sandbox %s started from %s", sb.Name(), d.Config.Image)
	if copied {
		// The working directory exists already, made by the daemon for root: CopyIn gives it to
		// the agent's user.
		for _, wd := range workspaceDirs {
			if err := sb.CopyIn(ctx, wd, wd); err != nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
				defer cancel()
				if cerr := sb.Close(cctx); cerr != nil {
					log.Warning("stopping the sandbox: %v", cerr)
				}
				return nil, err
			}
		}
		log.Status("Copied the repository into the sandbox; only commits come back out")
	}
	return &Container{Sandbox: sb, Copied: copied}, nil
}

// image builds the image, or checks it is there, as build-image says; the published image of a
// run without a Dockerfile is pulled when the engine lacks it.
func (d Docker) image(ctx context.Context, engine *docker.Engine, log *report.Log) error {
	uid, gid := d.User()
	args := map[string]string{"AGENT_UID": strconv.Itoa(uid), "AGENT_GID": strconv.Itoa(gid)}
	maps.Copy(args, d.Config.BuildArgs)
	if d.Config.Prebuilt {
		log.Status("No %s: the sandbox runs the published image %s (pulled when missing)", d.Config.Dockerfile, d.Config.Image)
	}
	_, err := engine.EnsureImage(ctx, docker.Build{
		Image:      d.Config.Image,
		Dockerfile: d.Config.Dockerfile,
		Context:    d.Config.BuildContext,
		Args:       args,
		Policy:     string(d.Config.Build),
		Pull:       d.Config.Pull,
		OnLine:     func(line string) { log.Raw(line) },
	})
	if err != nil && d.Config.Prebuilt {
		return &inputs.RuntimeError{Input: inputs.InputImage, Err: fmt.Errorf("%w; without the registry in reach (offline, or no access to it), set image to an image this Docker engine has, or write a dockerfile to build one (sandcastle init writes %s)", err, d.Config.Dockerfile)}
	}
	return err
}

// mounts are the container's binds, their sources named on the daemon's host: the workspace and
// its git directory with guard's binds over it (unless copied), then the mounts input.
func (d Docker) mounts(dir, common string, workspaceDirs []string, copied bool, guard *gitguard.Guard, hostPath func(string) (string, error)) ([]docker.Mount, error) {
	var binds []docker.Mount
	if !copied {
		for _, wd := range workspaceDirs {
			binds = append(binds, docker.Mount{Source: wd, Target: wd})
		}
		// A mount point cannot be renamed or replaced: the git directory the host reads stays
		// this one.
		if len(workspaceDirs) == 1 {
			binds = append(binds, docker.Mount{Source: common, Target: common})
		}
		protect, err := guard.Binds(workspaceDirs...)
		if err != nil {
			return nil, err
		}
		for _, b := range protect {
			binds = append(binds, docker.Mount{Source: b.Path, Target: b.Path, ReadOnly: b.ReadOnly})
		}
	}
	binds = append(binds, d.Extra...)
	for _, m := range d.Config.Mounts {
		target := m.Sandbox
		if rest, ok := strings.CutPrefix(target, "~"); ok {
			target = SandboxHome + rest
		}
		binds = append(binds, docker.Mount{Source: m.Host, Target: target, ReadOnly: m.ReadOnly})
	}
	mounts := make([]docker.Mount, 0, len(binds))
	for _, m := range binds {
		var err error
		if m.Source, err = hostPath(m.Source); err != nil {
			return nil, err
		}
		mounts = append(mounts, m)
	}
	return mounts, nil
}

// options are the container's: hardened as the inputs say, named for the sweep.
func (d Docker) options(dir, repo, owner string, env map[string]string, mounts []docker.Mount) docker.Options {
	c := d.Config
	inside := make(map[string]string, len(env))
	for k, v := range env {
		if !slices.Contains(hostOnly, k) {
			inside[k] = v
		}
	}
	var devices []string
	for _, dv := range c.Devices {
		devices = append(devices, dv.Host+":"+dv.Sandbox+":"+dv.Permissions)
	}
	uid, gid := d.User()
	return docker.Options{
		Image:        c.Image,
		Run:          runID(),
		Owner:        owner,
		Repo:         repo,
		Mounts:       mounts,
		WorkDir:      dir,
		Env:          inside,
		User:         fmt.Sprintf("%d:%d", uid, gid),
		Network:      c.Network,
		CPUs:         c.CPUs,
		Memory:       c.Memory,
		PidsLimit:    c.PidsLimit,
		Devices:      devices,
		Groups:       c.Groups,
		SELinuxLabel: c.SELinuxLabel,
	}
}

// copyWorkspace reports whether the workspace directories are copied into the sandbox rather
// than mounted: always for docker sync copy; for auto, when hostPath cannot name one of them
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

// hostPaths returns how to name a path of ours on the Docker daemon's host, and where this
// process runs: its container's ID, else the host's name. Inside a container (a container
// Action) a sibling sandbox can only bind what our own mounts bring in from the host, such as
// the runner's workspace (a bind, or a volume, which the daemon keeps in a directory of its
// own); the path is translated through them, never through --volumes-from, which would hand the
// agent our Docker socket and GITHUB_OUTPUT.
func hostPaths(ctx context.Context, engine *docker.Engine) (func(string) (string, error), string, error) {
	clues := docker.OwnClues()
	self, inContainer, err := engine.Self(ctx, clues)
	if err != nil {
		return nil, "", err
	}
	if !inContainer {
		return func(p string) (string, error) { return p, nil }, clues.Hostname, nil
	}
	return func(p string) (string, error) {
		if hp, ok := self.HostPath(p); ok {
			return hp, nil
		}
		return "", &inputs.RuntimeError{Input: inputs.InputSandboxSync, Err: fmt.Errorf("%s is not on a mount of this container (%.12s), so a sibling sandbox cannot see it; mount it into the job's container, or use docker sync: copy", p, self.ID)}
	}, self.ID, nil
}

func runID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
