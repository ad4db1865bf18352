package app

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"

	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/push"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/session"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// Each adapter fits what the engine and the loop consume.
var (
	_ engine.Reporter     = (*runner.Reporter)(nil)
	_ engine.GitHub       = (*githubapi.Repo)(nil)
	_ event.Permissions   = (*githubapi.Repo)(nil)
	_ engine.Progress     = (*githubapi.LiveComment)(nil)
	_ engine.Workspaces   = workspaces{}
	_ engine.Workspace    = workspaceView{}
	_ run.Repo            = (*workspace.Synced)(nil)
	_ engine.Sandboxes    = sandboxes{}
	_ workspace.Container = (*docker.Sandbox)(nil)
	_ engine.GitGuard     = guard{}
	_ engine.Sessions     = (*session.Carrier)(nil)
	_ engine.Publisher    = publisher{}
	_ engine.BranchMoved  = (*push.BranchMovedError)(nil)
	_ engine.Outputs      = (*githubapi.Repo)(nil)
	_ run.Log             = (*report.Log)(nil)
)

// deps are the adapters of s's run, reporting through rep.
func (s *setup) deps(rep *runner.Reporter) engine.Deps {
	d := engine.Deps{
		Reporter:   rep,
		Workspaces: workspaces{s, rep},
		Sandboxes:  sandboxes{s},
		Publisher:  publisher{s, rep},
		Agent:      s.agent.cli,
		OpenLog:    runner.OpenLog,
	}
	if s.gh.repo != nil {
		d.GitHub, d.Progress, d.Outputs = s.gh.repo, s.gh.repo.LiveComment(rep.Warning), s.gh.repo
	}
	return d
}

// workspaces prepares the workspace of s's run.
type workspaces struct {
	s   *setup
	rep *runner.Reporter
}

func (w workspaces) Prepare(ctx context.Context) (engine.Workspace, error) {
	o := w.s.workspaceOptions()
	o.Log = w.rep.Logger()
	if w.s.plan.Origin != "" {
		// The remote with the token, as pushes reach it, without the repository's config.
		o.Fetch = func(ctx context.Context, branch string) (bool, error) {
			return push.Fetch(ctx, w.s.pushOptions(branch))
		}
		o.FetchPull = func(ctx context.Context, n int) (string, error) {
			return push.FetchPull(ctx, w.s.pushOptions(""), n)
		}
	}
	ws, err := workspace.Prepare(ctx, w.s.gitEnv, o)
	if err != nil {
		return nil, err
	}
	return workspaceView{ws}, nil
}

func (w workspaces) Preview() engine.Workspace { return workspaceView{w.s.names} }

// workspaceView is a workspace.Workspace as the engine sees it.
type workspaceView struct{ *workspace.Workspace }

func (v workspaceView) Dir() string    { return v.Workspace.Dir }
func (v workspaceView) Source() string { return v.Workspace.Source }
func (v workspaceView) Target() string { return v.Workspace.Target }
func (v workspaceView) HandBack() error {
	return workspace.HandBack(v.Top(), v.Top())
}

func (v workspaceView) Finish(ctx context.Context, ok bool) (engine.Finished, error) {
	out, err := v.Workspace.Finish(ctx, ok)
	return engine.Finished{Preserved: out.PreservedPath, MergeCommit: out.MergeCommit, KeptBranch: out.KeptBranch, Merged: out.Merged}, err
}

// sandboxes starts the sandboxes of s's run.
type sandboxes struct{ s *setup }

func (sandboxes) Host(dir string, env map[string]string) sandbox.Sandbox {
	vars := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		vars = append(vars, k+"="+env[k])
	}
	return host.New(dir, vars)
}

// Start starts where the agent runs, as the sandbox input says: a row for each kind.
func (x sandboxes) Start(ctx context.Context, ws engine.Workspace, env map[string]string, log *report.Log) (engine.Started, error) {
	switch x.s.cfg.Sandbox {
	case inputs.SandboxDocker:
		return x.docker(ctx, ws.(workspaceView), env, log)
	default:
		// On the host the agent runs beside the token, with nothing between it and GitHub: no
		// relay sees what it reads, and keeping a triage to the issues it read would keep nothing.
		return engine.Started{Sandbox: x.Host(ws.Dir(), env), Read: func(int) bool { return true }}, nil
	}
}

// docker lends a checkout of root's to the agent's user, takes the git directory of the
// repository ws belongs to into custody, then starts the container with its binds. The
// checkout goes back to its owner once the custody ends (guard.Close). A workspace copied into
// the container has its commits read through the copy.
func (x sandboxes) docker(ctx context.Context, ws workspaceView, env map[string]string, log *report.Log) (engine.Started, error) {
	d, dir, top := x.s.docker(), ws.Dir(), ws.Top()
	giveBack, err := d.Lend(top)
	if err != nil {
		return engine.Started{}, err
	}
	g, err := gitguard.Take(ctx, x.s.hostGit(dir))
	if err != nil {
		return engine.Started{}, errors.Join(err, giveBack())
	}
	r, env, extra, err := x.s.startRelay(top, env, log)
	if err != nil {
		_, cerr := g.Close(ctx)
		return engine.Started{}, errors.Join(err, cerr, giveBack())
	}
	d.Extra = extra
	c, err := d.Start(ctx, dir, top, env, g, log)
	if err != nil {
		_, cerr := g.Close(ctx) // nothing ran that could change it
		if r != nil {
			r.Close()
		}
		return engine.Started{}, errors.Join(err, cerr, giveBack())
	}
	// Handing back is no reason to fail a run that did its work: later steps run as root.
	warnBack := func() error {
		if err := giveBack(); err != nil {
			log.Warning("%v", err)
		}
		return nil
	}
	st := engine.Started{Sandbox: container{c, r, log}, Guard: guard{g, warnBack}, Read: func(n int) bool { return r != nil && r.Read(n) }}
	if c.Copied {
		st = copied(st, ws, c.Sandbox, log)
	}
	return st, nil
}

// copied is st with ws copied into its sandbox c: the loop reads the commits through the copy,
// and the last ones come out before the sandbox stops.
func copied(st engine.Started, ws workspaceView, c workspace.Container, log *report.Log) engine.Started {
	synced := ws.Synced(c)
	st.Repo, st.Finish = synced, func(ctx context.Context) { synced.Finish(ctx, log.Warning) }
	return st
}

// Sessions carries the agent's sessions to the host's HOME; nil when the agent keeps none or
// there is no HOME to keep them in.
func (x sandboxes) Sessions(sb sandbox.Sandbox, dir string) engine.Sessions {
	if x.s.agent.sessions == nil || x.s.home == "" {
		return nil
	}
	return &session.Carrier{Layout: x.s.agent.sessions, Sandbox: sb, SandboxHome: launch.SandboxHome,
		HostHome: x.s.home, HostDir: dir, Local: x.s.cfg.Sandbox == inputs.SandboxNone}
}

// container is the run's container with the GitHub relay it reads through (nil when none).
type container struct {
	*launch.Container
	relay *githubRelay
	log   *report.Log
}

// Close removes the container, then stops the relay, saying what it forwarded and refused.
func (c container) Close(ctx context.Context) error {
	err := c.Container.Close(ctx)
	if c.relay != nil {
		c.log.Status("GitHub relay: %d request(s) forwarded, %d refused", c.relay.Forwarded(), len(c.relay.Refused()))
		if rerr := c.relay.Close(); rerr != nil {
			c.log.Warning("stopping the GitHub relay: %v", rerr)
		}
	}
	return err
}

// guard is a gitguard.Guard as the engine sees it, with what gives back the checkout lent for
// the run, if any.
type guard struct {
	g        *gitguard.Guard
	giveBack func() error
}

func (g guard) Check() ([]engine.Change, error) { return changes(g.g.Check()) }

// Close ends the custody, then gives the checkout back: the custody compares owners too.
func (g guard) Close(ctx context.Context) ([]engine.Change, error) {
	cs, err := changes(g.g.Close(ctx))
	if g.giveBack != nil {
		err = errors.Join(err, g.giveBack())
	}
	return cs, err
}

func changes(cs []gitguard.Change, err error) ([]engine.Change, error) {
	out := make([]engine.Change, len(cs))
	for i, c := range cs {
		out[i] = engine.Change{Path: c.Path, What: c.What}
	}
	return out, err
}

// publisher pushes the branch of s's run and opens its pull request.
type publisher struct {
	s   *setup
	rep *runner.Reporter
}

func (p publisher) Lease(ctx context.Context, branch, start, known string) string {
	return push.Lease(ctx, p.s.hostGit(p.s.cfg.WorkingDirectory), branch, start, known)
}

func (p publisher) Push(ctx context.Context, r engine.Push) (engine.Pushed, error) {
	cfg, gh := p.s.cfg, p.s.gh
	mode, why := push.Decide(push.Run{Push: cfg.GitHub.Push, Strategy: cfg.BranchStrategy, Actions: gh.actions, Branch: r.Branch, Commits: r.Commits})
	if mode == "" {
		return engine.Pushed{Declined: why}, nil
	}
	o := p.s.pushOptions(r.Branch)
	o.Mode, o.Lease, o.RecoveryBranch, o.Bundle, o.BundleTop, o.Since = mode, r.Lease, r.Recovery, r.Bundle, r.Top, r.Since
	res, err := push.Push(ctx, o)
	if res.Bundle != "" {
		// Written as root in the Action: a later step, as the runner's user, uploads it.
		if err := workspace.HandBack(filepath.Dir(res.Bundle), cfg.WorkingDirectory); err != nil {
			p.rep.Warning("the bundle: " + err.Error())
		}
	}
	return engine.Pushed{Pushed: res.Pushed, SHA: res.SHA, Recovery: res.Recovery, Skipped: res.Skipped}, err
}

// pushOptions push and fetch branch of the checkout with the token, when git gets it: to the
// origin preflight read.
func (s *setup) pushOptions(branch string) push.Options {
	o := push.Options{Dir: s.cfg.WorkingDirectory, Env: s.gitEnv, GitConfig: trust, Branch: branch, ServerURL: s.gh.server}
	if s.plan.Origin != "" {
		o.Token, o.URL = s.gh.token, s.plan.Origin
	}
	return o
}

func (p publisher) UpsertPR(ctx context.Context, pr engine.PR) (engine.OpenedPR, error) {
	got, created, err := p.s.gh.repo.UpsertPR(ctx, pr.Head, pr.Base, pr.Title, pr.Body, pr.Draft)
	return engine.OpenedPR{Number: got.Number, URL: got.URL, Created: created, DraftRefused: got.DraftRefused, Adopted: got.Adopted}, err
}
