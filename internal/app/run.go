package app

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
)

// setup is a run checked and ready to start, with what its adapters are built from.
type setup struct {
	plan   engine.Plan
	agent  agent.Provider
	gitEnv []string // the host base, for every git command on the host
	home   string   // the user's HOME, where agent sessions are saved
	gh     gitHub
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
	for _, s := range r.s.plan.Secrets {
		rep.Mask(s)
	}
	rep.Mask(r.s.gh.token)
	return r.s, exitOK
}

// validate reads the event and the inputs, then has the engine check the rest (engine.Prepare)
// through the adapters. redactor is the reporter's, which the GitHub client's gate redacts with
// (the secrets are masked once found).
func validate(ctx context.Context, sys System, raw inputs.Raw, workDir string, redactor *report.Redactor) (*setup, error) {
	ev, eventErr := event.FromEnv(sys.Getenv)
	if eventErr != nil {
		eventErr = &inputs.Problem{Message: "the event that started the workflow cannot be used: " + eventErr.Error()}
	}
	cfg, err := inputs.Load(raw, inputs.Env{WorkDir: workDir, ReadFile: inputs.ReadRegular, Stat: os.Stat,
		Agents: agentInfos(), Home: sys.Getenv("HOME"), Event: ev, EventUnread: eventErr != nil})
	if err := errors.Join(eventErr, err); err != nil {
		// What the rest checks depends on the event, even the branch's name.
		return nil, err
	}
	provider, err := agent.Lookup(cfg.Agent) // one of those inputs.Load accepted
	if err != nil {
		return nil, err
	}
	gh, ghErr := newGitHub(sys.Getenv, cfg, ev, redactor)
	s := &setup{agent: provider, gitEnv: engine.HostBase(sys.Getenv), home: sys.Getenv("HOME"), gh: gh}
	checks := engine.Checks{Repository: s.workspaces(engine.Plan{}, nil), Checkout: s.publisher(cfg, "", nil), Sandbox: s.sandboxes(cfg)}
	if gh.repo != nil {
		checks.PRs = gh.repo
	}
	if provider.Sessions != nil {
		checks.Sessions = s.sandboxes(cfg)
	}
	s.plan, err = engine.Prepare(ctx, engine.Facts{Config: cfg, Event: ev, Agent: provider, Getenv: sys.Getenv, Stat: os.Stat,
		Actions: gh.Actions, Token: gh.token, Repository: gh.Repository, RunURL: gh.RunURL, RepoURL: gh.RepoURL(), RunTag: gh.RunTag}, checks)
	if err := errors.Join(ghErr, err); err != nil {
		return nil, err
	}
	return s, nil
}
