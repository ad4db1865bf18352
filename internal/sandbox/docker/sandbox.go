package docker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moby/moby/client"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// Sandbox is a running container. Set its exported fields before the first Exec.
type Sandbox struct {
	// KillGrace is how long a stopped process group has between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// DrainWindow bounds how long an Exec waits, after its process has exited, for background
	// processes it started (its process group) to finish; then they are killed, and what they
	// write later is lost.
	DrainWindow time.Duration

	api     *client.Client
	id      string
	name    string
	repoDir string
	uid     int // the container's user, who owns what CopyIn copies
	gid     int
	gate    sandbox.Gate // Execs in flight; shut by Close

	removing atomic.Bool // Close is removing the container, or has
	removeMu sync.Mutex
	removed  bool
}

var _ sandbox.Sandbox = (*Sandbox)(nil)

func newSandbox(api *client.Client, id, name, repoDir string) *Sandbox {
	return &Sandbox{
		KillGrace:   2 * time.Second,
		DrainWindow: 2 * time.Second,
		api:         api,
		id:          id,
		name:        name,
		repoDir:     repoDir,
	}
}

// Name is the container's name.
func (s *Sandbox) Name() string { return s.name }

// RepoDir is the workspace path inside the container: Options.WorkDir.
func (s *Sandbox) RepoDir() string { return s.repoDir }

// Close stops every running Exec (SIGTERM to its process group, then SIGKILL after KillGrace,
// so that git and the agent can release their locks) and waits for them until ctx ends; then it
// removes the container, with its anonymous volumes, whatever is still running. Removal has its
// own deadline and runs even when ctx has already ended, so cleanup may pass
// context.WithoutCancel. Later Execs fail with sandbox.ErrClosed. Close is idempotent and safe
// to call concurrently with Exec.
func (s *Sandbox) Close(ctx context.Context) error {
	s.gate.Shut(ctx)

	s.removeMu.Lock()
	defer s.removeMu.Unlock()
	if s.removed {
		return nil
	}
	s.removing.Store(true)
	if err := s.remove(ctx); err != nil {
		return err
	}
	s.removed = true
	return nil
}
