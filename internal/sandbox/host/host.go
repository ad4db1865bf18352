package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// Sandbox runs processes on the host. Set its exported fields before the first Exec.
type Sandbox struct {
	// KillGrace is how long a stopped process group has between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// DrainWindow bounds how long Exec waits for stdout and stderr to close after the main
	// process exits and all it wrote has been read. A background child keeping them open would
	// otherwise hold Exec forever; it is killed with the group, and what it writes later is lost.
	DrainWindow time.Duration

	repoDir string
	env     []string
	gate    sandbox.Gate // Execs in flight; shut by Close

	mu     sync.Mutex
	groups map[int]struct{} // process groups of running Execs, by id
}

var _ sandbox.Sandbox = (*Sandbox)(nil)

// New returns a sandbox whose processes run in repoDir with exactly env as their environment
// (plus each Exec's own variables): the host's environment is not inherited.
func New(repoDir string, env []string) *Sandbox {
	return &Sandbox{
		KillGrace:   2 * time.Second,
		DrainWindow: 2 * time.Second,
		repoDir:     repoDir,
		env:         slices.Clone(env),
		groups:      map[int]struct{}{},
	}
}

// RepoDir is the workspace path; on the host it is the directory given to New.
func (s *Sandbox) RepoDir() string { return s.repoDir }

// Exec runs e and waits for it and for its stdout and stderr to close (see DrainWindow). When it
// returns, nothing is left running in the process's group. A non-zero exit is reported in the
// Result, not as an error. When ctx ends or the sandbox is closed first, the group gets SIGTERM,
// then SIGKILL after KillGrace, and the error wraps context.Cause(ctx) or sandbox.ErrClosed.
//
// OnLine receives lines of at most 16 MiB (the rest of a longer line is dropped) and may keep
// them. A relative Dir is taken from RepoDir; a relative program path from Dir.
func (s *Sandbox) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	return s.gate.Exec(ctx, "host sandbox", e, func(closing <-chan struct{}) (sandbox.Result, error) {
		return s.exec(ctx, e, closing)
	})
}

// exec runs e once the gate has let it in; closing is closed when Close begins.
func (s *Sandbox) exec(ctx context.Context, e sandbox.Exec, closing <-chan struct{}) (res sandbox.Result, err error) {
	cmd, err := s.command(e)
	if err != nil {
		return res, err
	}
	p, err := start(cmd, e, s.DrainWindow)
	if err != nil {
		return res, err
	}
	pgid := cmd.Process.Pid
	s.track(pgid)

	var stopErr error
	select {
	case <-p.exited:
		p.wake()
		select {
		case <-p.drained:
		case <-ctx.Done():
		case <-closing:
		}
	case <-ctx.Done():
		stopErr = context.Cause(ctx)
		s.terminate(pgid, p)
	case <-closing:
		stopErr = sandbox.ErrClosed
		s.terminate(pgid, p)
	}
	s.kill(pgid)
	ioErr := p.finish()

	// Every path above has killed the group, so reaping the leader (which frees the group id
	// for reuse) is now safe. A non-zero exit is an *exec.ExitError: the state tells it.
	if err := cmd.Wait(); cmd.ProcessState == nil {
		return res, errors.Join(stopErr, fmt.Errorf("wait: %w", err))
	}
	res = p.result(cmd.ProcessState)
	return res, errors.Join(stopErr, ioErr)
}

// Close stops every running Exec (SIGTERM, then SIGKILL after KillGrace) and waits for them to
// return. When ctx ends first, the remaining process groups get SIGKILL at once. Later Execs fail
// with sandbox.ErrClosed. Close is idempotent and safe to call concurrently with Exec.
func (s *Sandbox) Close(ctx context.Context) error {
	if s.gate.Shut(ctx) {
		return nil
	}
	s.mu.Lock()
	for pgid := range s.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	s.mu.Unlock()
	return fmt.Errorf("close host sandbox: %w", context.Cause(ctx))
}

func (s *Sandbox) track(pgid int) {
	s.mu.Lock()
	s.groups[pgid] = struct{}{}
	s.mu.Unlock()
}

// kill sends SIGKILL to the group and forgets it. It must run before the leader is reaped: until
// then the unreaped leader holds the group id, so the signal cannot reach an unrelated group that
// reused it. Holding mu keeps Close from signalling the group after that.
func (s *Sandbox) kill(pgid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.groups, pgid)
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH: nothing left
}

// terminate asks the group to stop and gives it KillGrace to exit and release its output.
func (s *Sandbox) terminate(pgid int, p *proc) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(s.KillGrace)
	defer t.Stop()
	for _, ch := range []<-chan struct{}{p.exited, p.drained} {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// command builds the command for e, resolving its program in the sandbox's PATH rather than
// ours.
func (s *Sandbox) command(e sandbox.Exec) (*exec.Cmd, error) {
	// Clip so that concurrent Execs never append into the shared backing array.
	env := slices.Clip(s.env)
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		env = append(env, k+"="+e.Env[k]) // exec.Cmd keeps the last value of a duplicate key
	}
	dir := e.Dir
	if dir == "" {
		dir = s.repoDir
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.repoDir, dir)
	}
	if err := enterable(dir); err != nil {
		return nil, err
	}
	path, err := lookPath(e.Argv[0], lookupEnv(env, "PATH"))
	if err != nil {
		return nil, err
	}
	return &exec.Cmd{
		Path:        path,
		Args:        e.Argv,
		Env:         env,
		Dir:         dir,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}, nil
}

// enterable checks that dir can be a working directory. Starting a process in a missing one
// fails as if its program were missing ("fork/exec /usr/bin/true: no such file or directory").
func enterable(dir string) error {
	fi, err := os.Stat(dir)
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	} else if err == nil && !fi.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return fmt.Errorf("cannot enter directory %s: %w", dir, err)
	}
	return nil
}

// lookupEnv returns the value of key in env, the last one winning as it does for the process.
func lookupEnv(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds name in path like exec.LookPath, which would search our own PATH instead.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // as exec.ErrDot: never run a program found through a relative PATH entry
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("look up in PATH: %w", exec.ErrNotFound)
}
