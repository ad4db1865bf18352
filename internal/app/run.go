package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/push"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/session"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// trust is the git configuration of every git command of the run, the agent's included,
// through the environment: nothing is ever written to a config file. The checkout and its
// worktrees may belong to another user than ours (the runner's, while the Action runs as root),
// and it is the repository the user named: trust it.
var trust = []string{"safe.directory=*"}

// setup is a run checked and ready to start, with what its adapters are built from.
type setup struct {
	cfg    inputs.Config
	plan   engine.Plan
	agent  agentSpec
	env    engine.Env
	gitEnv []string // the host base, for every git command on the host
	home   string   // the user's HOME, where agent sessions are saved
	gh     *gitHub
	names  *workspace.Workspace // the checkout, named as the workspace will be
	ev     *event.Event         // the event, with the pull request the run works on looked up
}

// execute runs one configuration and reports it, after warnings found while reading it.
func execute(ctx context.Context, sys System, raw inputs.Raw, workDir string, warnings ...string) int {
	rep := runner.New(sys.Stdout, sys.Getenv)
	for _, w := range warnings {
		rep.Warning(w)
	}
	s, code := preflight(ctx, sys, raw, workDir, rep)
	if s == nil {
		return code
	}
	_, err := engine.Run(ctx, s.plan, s.deps(rep))
	return exitCode(err)
}

// preflight validates a configuration and masks its secrets; on failure it reports why and
// returns the exit code.
//
// Validation runs on its own goroutine so that a signal ends it at once, whatever it waits
// on (git reading a configuration include, a file on a stuck mount): it creates nothing, so
// there is nothing to clean up, and the process is about to exit.
func preflight(ctx context.Context, sys System, raw inputs.Raw, workDir string, rep *runner.Reporter) (*setup, int) {
	type result struct {
		s   *setup
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := validate(ctx, sys, raw, workDir, rep.Redactor())
		done <- result{s, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		rep.Error(fmt.Sprintf("cancelled while checking the inputs (%v); nothing was started", context.Cause(ctx)))
		return nil, exitFailed
	}
	if r.err != nil {
		for _, e := range inputs.Unjoin(r.err) {
			rep.Error(e.Error())
		}
		return nil, exitCode(r.err)
	}
	for _, s := range r.s.env.Secrets {
		rep.Mask(s)
	}
	rep.Mask(r.s.gh.token)
	return r.s, exitOK
}

// validate checks everything that can be checked before anything is created on disk. Each
// problem of the inputs, and of the repository and environment they name, is an
// *inputs.Problem; any other error means the check itself could not be made. redactor is the
// reporter's, which the GitHub client's gate redacts with (the secrets are masked once found).
func validate(ctx context.Context, sys System, raw inputs.Raw, workDir string, redactor *report.Redactor) (*setup, error) {
	ev, eventErr := readEvent(sys.Getenv)
	cfg, err := inputs.Load(raw, inputs.Env{WorkDir: workDir, ReadFile: inputs.ReadRegular, Stat: os.Stat,
		Agents: agentInfos(), Home: sys.Getenv("HOME"), Event: ev, EventUnread: eventErr != nil})
	if err := errors.Join(eventErr, err); err != nil {
		// What the rest checks depends on the event, even the branch's name.
		return nil, err
	}
	s := &setup{gitEnv: engine.HostBase(sys.Getenv), home: sys.Getenv("HOME")}
	var errs []error
	add := func(err ...error) { errs = append(errs, err...) }
	s.gh, err = newGitHub(sys.Getenv, cfg, ev, redactor)
	add(err)
	if ev, err = s.gh.withPR(ctx, ev); err != nil {
		return nil, err // what the workspace, the prompt and the trigger are depends on it
	}
	s.ev = ev
	cfg = engine.OnPullRequest(cfg, ownPR(cfg, ev))
	s.cfg = cfg
	// An event the run does not answer is skipped before it needs a workspace or a prompt,
	// whose names and keys such an event would only be found to lack.
	answered := engine.Answers(cfg.GitHub, ev)
	if answered {
		s.names, err = s.checkRepository(ctx, sys.Getenv("GITHUB_ACTIONS") == "true")
		add(err)
	}
	eventArgs := engine.EventArgs(ev, s.gh.repository)
	add(engine.CheckPR(cfg, eventArgs, ev != nil && ev.PR != nil))
	provider, err := agent.Lookup(cfg.Agent) // one of those inputs.Load accepted
	if err != nil {
		return nil, err
	}
	s.agent = agentOf(provider)
	output, err := engine.OutputSpec(cfg)
	add(err)
	var source, target string
	if s.names != nil {
		source, target = s.names.Source, s.names.Target
	}
	var pr *prompt.Prompt
	var warnings []string
	if answered {
		pr, warnings, err = engine.RenderPrompt(cfg, source, target, eventArgs, s.agent.maxPrompt)
		add(err)
	}
	s.env, err = engine.AgentEnv(sys.Getenv, cfg, s.agent.envNames, s.gh.token)
	add(err)
	add(s.checkSandbox()...)
	add(s.agent.check(cfg, sys.Getenv, s.env.Vars["PATH"])...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if s.gh.actions {
		if err := s.checkNoPersistedToken(ctx); err != nil {
			return nil, err
		}
	}
	s.plan = engine.Plan{Config: cfg, Prompt: pr, PromptWarnings: warnings, Output: output, Event: ev,
		EventArgs: eventArgs, Actions: s.gh.actions, RunURL: s.gh.runURL, RepoURL: s.gh.repoURL(), RunTag: s.gh.runID, Env: s.env.Vars,
		Origin: s.gh.origin(ctx, s.hostGit(cfg.WorkingDirectory))}
	return s, nil
}

// checkSandbox checks what the sandbox needs: a user other than root for the Docker sandbox,
// and the session to resume where the run can carry it from.
func (s *setup) checkSandbox() []error {
	cfg := s.cfg
	var errs []error
	if cfg.Sandbox == inputs.SandboxDocker {
		errs = append(errs, s.docker().CheckUser())
	}
	if cfg.ResumeSession != "" && s.agent.sessions != nil {
		if _, err := session.Find(s.agent.sessions, s.home, cfg.WorkingDirectory, cfg.ResumeSession); err != nil {
			errs = append(errs, &inputs.Problem{Input: inputs.InputResumeSession, Message: err.Error() + "; use a session-id output of an earlier run on this machine or job (sessions are saved under HOME)"})
		}
	}
	return errs
}

// checkRepository checks, changing nothing, that working-directory holds a repository the
// branch strategy can work in, and names the branches the workspace will have: a problem of
// the inputs names the one to change, and in Actions a missing repository points at the
// checkout step the workflow may lack.
func (s *setup) checkRepository(ctx context.Context, actions bool) (*workspace.Workspace, error) {
	ws, err := workspace.Preview(ctx, s.gitEnv, s.workspaceOptions())
	var ce *workspace.CheckError
	if errors.As(err, &ce) {
		return nil, ce.Problem(actions)
	}
	return ws, err
}

// checkNoPersistedToken refuses a checkout that keeps a token in .git/config, as
// actions/checkout does unless told otherwise: the agent works in that repository and could
// read it there.
func (s *setup) checkNoPersistedToken(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	keys, err := push.PersistedHeaders(ctx, s.hostGit(s.cfg.WorkingDirectory))
	if err != nil || len(keys) == 0 {
		return err
	}
	return &inputs.Problem{Message: fmt.Sprintf("the checkout keeps a token in .git/config (%s), where the agent could read it; set persist-credentials: false on the actions/checkout step: the action pushes with github-token itself", strings.Join(keys, ", "))}
}

// workspaceOptions are the workspace's, as the inputs say.
func (s *setup) workspaceOptions() workspace.Options {
	cfg := s.cfg
	o := workspace.Options{RepoDir: cfg.WorkingDirectory, Strategy: cfg.BranchStrategy, Branch: cfg.Branch,
		Name: cfg.Name, CopyToWorktree: cfg.CopyToWorktree, GitConfig: trust}
	if pr := ownPR(s.cfg, s.ev); pr != nil {
		o.Pull, o.PullHead = pr.Number, pr.HeadSHA
	}
	if s.names != nil {
		o.TempBranch = s.names.Source
	}
	return o
}

func (s *setup) docker() launch.Docker {
	return launch.Docker{Config: s.cfg.Docker, Workspace: s.cfg.WorkingDirectory}
}

// hostGit is git on the host in dir, with the environment and configuration of every host git
// command of the run.
func (s *setup) hostGit(dir string) git.Repo {
	return git.New(dir, s.gitEnv).WithConfig(trust...)
}
