package engine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// started is the sandbox of a run, with what goes with it.
type started struct {
	Started
	e    *engine
	host sandbox.Sandbox // the host, for the host's hooks
	repo run.Repo        // where the loop reads the commits
	log  *report.Log

	restored []string // sorted, each once
}

// sandbox starts where the agent runs, after the hook worktree-ready on the host when hooks is
// set, so that what it set up is kept.
func (e *engine) sandbox(ctx context.Context, ws Workspace, log *report.Log, hooks bool) (*started, error) {
	cfg := e.p.Config
	vars, err := ws.AgentEnv(ctx, e.p.Env)
	if err != nil {
		return nil, err
	}
	s := &started{e: e, host: e.d.Sandboxes.Host(ws.Dir(), vars), log: log}
	if hooks {
		if err := run.Hooks(ctx, s.host, "hook worktree-ready", cfg.Hooks.WorktreeReady, cfg.Hooks.Timeout, false); err != nil {
			s.closeHost(ctx)
			return nil, err
		}
	}
	if s.Started, err = e.d.Sandboxes.Start(ctx, ws, vars, log); err != nil {
		s.closeHost(ctx)
		return nil, err
	}
	if s.repo = s.Repo; s.repo == nil {
		s.repo = ws
	}
	e.read, e.guarded = s.Read, s.Guard != nil
	return s, nil
}

// check puts back what the agent changed in the git directory so far; nothing without a guard.
func (s *started) check(context.Context) error {
	if s.Guard == nil {
		return nil
	}
	changes, err := s.Guard.Check()
	s.note(changes)
	return err
}

// close stops the sandbox on every path, a cancelled run included, within its own deadline:
// what must leave it brought out first, the git directory checked a last time and its mount
// targets removed once the sandbox is gone. A failure of the guard joins err: the repository
// may still hold what the agent planted.
func (s *started) close(ctx context.Context, err error) ([]string, error) {
	cctx, cancel := s.e.afterRun(ctx)
	defer cancel()
	if s.Finish != nil {
		s.Finish(cctx) // the sandbox must still be there
	}
	if cerr := s.Sandbox.Close(cctx); cerr != nil {
		s.log.Warning("stopping the sandbox: %v", cerr)
	}
	s.closeHost(ctx)
	if s.Guard != nil {
		changes, gerr := s.Guard.Close(cctx)
		s.note(changes)
		err = errors.Join(err, gerr)
	}
	return s.restored, err
}

func (s *started) closeHost(ctx context.Context) {
	cctx, cancel := s.e.afterRun(ctx)
	defer cancel()
	if err := s.host.Close(cctx); err != nil {
		s.log.Warning("stopping the sandbox: %v", err)
	}
}

// note warns about what the agent changed in the git directory, and keeps the paths for the
// outputs and the summary.
func (s *started) note(changes []Change) {
	if len(changes) == 0 {
		return
	}
	what := make([]string, len(changes))
	for i, c := range changes {
		what[i] = c.Path + " (" + c.What + ")"
		if !slices.Contains(s.restored, c.Path) {
			s.restored = append(s.restored, c.Path)
		}
	}
	slices.Sort(s.restored)
	s.log.Warning("the agent changed what decides which programs git runs on this machine (files of the repository's git directory, or a repository it nested in the working tree); each was put back as it was, or moved out of the working tree: %s", strings.Join(what, ", "))
}
