package app

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/push"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/session"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// Each adapter is checked against the port it fills where deps and validate assign it; the
// push error statusOf reads by its method is never assigned, so it is checked here.
var _ engine.BranchMoved = (*push.BranchMovedError)(nil)

// trust is the git configuration of every git command of the run, the agent's included,
// through the environment: nothing is ever written to a config file. The checkout and its
// worktrees may belong to another user than ours (the runner's, while the Action runs as root),
// and it is the repository the user named: trust it.
var trust = []string{"safe.directory=*"}

// deps are the adapters of s's run, reporting through rep, each built from the plan's values.
func (s *setup) deps(rep *runner.Reporter) engine.Deps {
	d := engine.Deps{
		Reporter:   rep,
		Workspaces: s.workspaces(s.plan, rep.Logger()),
		Sandboxes:  s.sandboxes(s.plan.Config),
		Publisher:  s.publisher(s.plan.Config, s.plan.Origin, rep),
		Agent:      s.agent,
		OpenLog:    runner.OpenLog,
	}
	if s.gh.repo != nil {
		d.GitHub, d.Progress, d.Outputs = s.gh.repo, s.gh.repo.LiveComment(rep.Warning), s.gh.repo
	}
	return d
}

// hostGit is git on the host in dir, with the environment and configuration of every host git
// command of the run.
func hostGit(dir string, env []string) git.Repo {
	return git.New(dir, env).WithConfig(trust...)
}

// workspaces previews the checkout in preflight and prepares the workspace of plan p's run.
type workspaces struct {
	gitEnv  []string
	actions bool
	p       engine.Plan  // the zero plan in preflight
	push    push.Options // with the token when git gets it
	log     *slog.Logger
}

func (s *setup) workspaces(p engine.Plan, log *slog.Logger) workspaces {
	return workspaces{gitEnv: s.gitEnv, actions: s.gh.Actions, p: p, push: s.pushOptions(p.Config, p.Origin), log: log}
}

// Preview checks the checkout: a problem of the inputs names the one to change, and in
// Actions a missing repository points at the checkout step the workflow may lack.
func (w workspaces) Preview(ctx context.Context, cfg inputs.Config, pr *event.PR) (engine.Workspace, error) {
	ws, err := workspace.Preview(ctx, w.gitEnv, workspaceOptions(cfg, pr, ""))
	var ce *workspace.CheckError
	if errors.As(err, &ce) {
		return nil, ce.Problem(w.actions)
	}
	if err != nil {
		return nil, err
	}
	return workspaceView{ws}, nil
}

func (w workspaces) Prepare(ctx context.Context) (engine.Workspace, error) {
	var temp string // the temporary branch preflight named
	if w.p.Checkout != nil {
		temp = w.p.Checkout.Source()
	}
	o := workspaceOptions(w.p.Config, w.p.PR, temp)
	o.Log = w.log
	if w.push.Token != "" {
		// The remote with the token, as pushes reach it, without the repository's config.
		o.Fetch = func(ctx context.Context, branch string) (bool, error) {
			p := w.push
			p.Branch = branch
			return push.Fetch(ctx, p)
		}
		o.FetchPull = func(ctx context.Context, n int) (string, error) {
			return push.FetchPull(ctx, w.push, n)
		}
	}
	ws, err := workspace.Prepare(ctx, w.gitEnv, o)
	if err != nil {
		return nil, err
	}
	return workspaceView{ws}, nil
}

// workspaceOptions are the workspace's as cfg says, for a run on pull request pr's own branch
// when pr is set, with the temporary branch temp that preflight named.
func workspaceOptions(cfg inputs.Config, pr *event.PR, temp string) workspace.Options {
	o := workspace.Options{RepoDir: cfg.WorkingDirectory, Strategy: cfg.BranchStrategy, Branch: cfg.Branch,
		Name: cfg.Name, CopyToWorktree: cfg.CopyToWorktree, GitConfig: trust, TempBranch: temp}
	if pr != nil {
		o.Pull, o.PullHead = pr.Number, pr.HeadSHA
	}
	return o
}

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

// sandboxes checks and starts the sandbox the inputs chose, and carries the agent's sessions.
type sandboxes struct {
	cfg      inputs.Config
	gitEnv   []string
	gh       gitHub
	sessions *agent.Sessions // nil when the agent keeps none
	home     string
}

func (s *setup) sandboxes(cfg inputs.Config) sandboxes {
	return sandboxes{cfg: cfg, gitEnv: s.gitEnv, gh: s.gh, sessions: s.agent.Sessions, home: s.home}
}

// kind is one value of the sandbox input: what preflight checks of it, and how it starts.
type kind struct {
	check  func() error // nil: nothing
	onHost bool
	start  func(ctx context.Context, ws workspaceView, env map[string]string, log *report.Log) (engine.Started, error)
}

// kind is the sandbox input's row: another engine is another adapter and another case.
func (x sandboxes) kind() kind {
	switch x.cfg.Sandbox {
	case inputs.SandboxDocker:
		return kind{check: x.docker().CheckUser, start: x.startDocker}
	default:
		return kind{onHost: true, start: x.startHost}
	}
}

func (x sandboxes) Check() error {
	if check := x.kind().check; check != nil {
		return check()
	}
	return nil
}

func (x sandboxes) OnHost() bool { return x.kind().onHost }

func (x sandboxes) Find(id string) error {
	_, err := session.Find(x.sessions, x.home, x.cfg.WorkingDirectory, id)
	return err
}

func (sandboxes) Host(dir string, env map[string]string) sandbox.Sandbox {
	vars := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		vars = append(vars, k+"="+env[k])
	}
	return host.New(dir, vars)
}

func (x sandboxes) Start(ctx context.Context, ws engine.Workspace, env map[string]string, log *report.Log) (engine.Started, error) {
	return x.kind().start(ctx, ws.(workspaceView), env, log)
}

// startHost runs the agent on the host. There it runs beside the token, with nothing between it
// and GitHub: no relay sees what it reads, and keeping a triage to the issues it read would keep
// nothing.
func (x sandboxes) startHost(_ context.Context, ws workspaceView, env map[string]string, _ *report.Log) (engine.Started, error) {
	return engine.Started{Sandbox: x.Host(ws.Dir(), env), Read: func(int) bool { return true }}, nil
}

func (x sandboxes) docker() launch.Docker {
	return launch.Docker{Config: x.cfg.Docker, Workspace: x.cfg.WorkingDirectory}
}

// startDocker starts the container (launch.Docker.Launch), which reads GitHub through the
// relay when the inputs ask for it and there is a token and a repository.
func (x sandboxes) startDocker(ctx context.Context, ws workspaceView, env map[string]string, log *report.Log) (engine.Started, error) {
	var gh *launch.GitHub
	if owner, name, _ := strings.Cut(x.gh.Repository, "/"); x.cfg.GitHub.Relay && x.gh.token != "" && name != "" {
		gh = &launch.GitHub{Owner: owner, Name: name, APIURL: x.gh.APIURL, GraphQLURL: x.gh.GraphQLURL, ServerURL: x.gh.Server,
			Token: x.gh.token}
	}
	c, err := x.docker().Launch(ctx, ws.Dir(), ws.Top(), hostGit(ws.Dir(), x.gitEnv), env, gh, log)
	if err != nil {
		return engine.Started{}, err
	}
	// Handing back is no reason to fail a run that did its work: later steps run as root.
	giveBack := func() error {
		if err := c.GiveBack(); err != nil {
			log.Warning("%v", err)
		}
		return nil
	}
	st := engine.Started{Sandbox: c, Guard: guard{c.Guard, giveBack}, Read: c.Read}
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
	if x.sessions == nil || x.home == "" {
		return nil
	}
	return &session.Carrier{Layout: x.sessions, Sandbox: sb, SandboxHome: launch.SandboxHome,
		HostHome: x.home, HostDir: dir, Local: x.kind().onHost}
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

// publisher reads the checkout's git configuration in preflight, and pushes the branch of the
// run and opens its pull request.
type publisher struct {
	git    git.Repo // the checkout's, on the host
	server string
	push   push.Options // with the token when git gets it
	run    push.Run     // what decides how to push
	prs    *githubapi.Repo
	rep    *runner.Reporter
}

func (s *setup) publisher(cfg inputs.Config, origin string, rep *runner.Reporter) publisher {
	return publisher{git: hostGit(cfg.WorkingDirectory, s.gitEnv), server: s.gh.Server, push: s.pushOptions(cfg, origin),
		run: push.Run{Push: cfg.GitHub.Push, Strategy: cfg.BranchStrategy, Actions: s.gh.Actions}, prs: s.gh.repo, rep: rep}
}

// pushOptions push and fetch the checkout, with the token when git gets it: to origin, as
// preflight read it.
func (s *setup) pushOptions(cfg inputs.Config, origin string) push.Options {
	o := push.Options{Dir: cfg.WorkingDirectory, Env: s.gitEnv, GitConfig: trust, ServerURL: s.gh.Server}
	if origin != "" {
		o.Token, o.URL = s.gh.token, origin
	}
	return o
}

func (p publisher) PersistedTokens(ctx context.Context) ([]string, error) {
	return push.PersistedHeaders(ctx, p.git)
}

func (p publisher) Origin(ctx context.Context) string { return push.Origin(ctx, p.git, p.server) }

func (p publisher) Lease(ctx context.Context, branch, start, known string) string {
	return push.Lease(ctx, p.git, branch, start, known)
}

func (p publisher) Push(ctx context.Context, r engine.Push) (engine.Pushed, error) {
	decide := p.run
	decide.Branch, decide.Commits = r.Branch, r.Commits
	mode, why := push.Decide(decide)
	if mode == "" {
		return engine.Pushed{Declined: why}, nil
	}
	o := p.push
	o.Branch, o.Mode, o.Lease, o.RecoveryBranch, o.Bundle, o.BundleTop, o.Since = r.Branch, mode, r.Lease, r.Recovery, r.Bundle, r.Top, r.Since
	res, err := push.Push(ctx, o)
	if res.Bundle != "" {
		// Written as root in the Action: a later step, as the runner's user, uploads it.
		if err := workspace.HandBack(filepath.Dir(res.Bundle), o.Dir); err != nil {
			p.rep.Warning("the bundle: " + err.Error())
		}
	}
	return engine.Pushed{Pushed: res.Pushed, SHA: res.SHA, Recovery: res.Recovery, Skipped: res.Skipped}, err
}

func (p publisher) UpsertPR(ctx context.Context, pr engine.PR) (engine.OpenedPR, error) {
	got, created, err := p.prs.UpsertPR(ctx, pr.Head, pr.Base, pr.Title, pr.Body, pr.Draft)
	return engine.OpenedPR{Number: got.Number, URL: got.URL, Created: created, DraftRefused: got.DraftRefused, Adopted: got.Adopted}, err
}
