package app

import (
	"context"
	"fmt"

	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
)

const promptUsage = `Usage: sandcastle prompt [--input value]...

Prints the prompt that sandcastle run with the same flags would send in its first iteration:
placeholders filled, every !` + "`command`" + ` run in the sandbox chosen (in the checkout as it is; no
hooks run), secrets masked. The log goes to standard error. No agent runs, and no branch,
worktree or log file is created. It takes the flags of sandcastle run:

`

// printPrompt is sandcastle prompt: see promptUsage.
func printPrompt(ctx context.Context, sys System, raw inputs.Raw, workDir string) int {
	rep := runner.New(sys.Stderr, sys.Getenv)
	p, code := preflight(ctx, sys, raw, workDir, rep)
	if p == nil {
		return code
	}
	text, err := p.preview(ctx, rep.NewLog(nil))
	if err != nil {
		rep.Error(err.Error())
		return exitCode(err)
	}
	fmt.Fprint(sys.Stdout, rep.Redactor().Redact(text))
	return exitOK
}

// preview expands the prompt in a sandbox on the checkout as it is, with the branches the run
// would have, and stops the sandbox again.
func (p *plan) preview(ctx context.Context, log *report.Log) (_ string, err error) {
	cfg := p.cfg
	ws := p.names
	pr := p.promptFor(log)
	vars, err := p.agentVars(ctx, ws)
	if err != nil {
		return "", err
	}
	var sb sandbox.Sandbox = host.New(ws.Dir, environ(vars))
	if cfg.Sandbox == inputs.SandboxDocker {
		// The commands run in the sandbox as the agent would, so the git directory is guarded
		// as for a run: put back, and its mount targets removed, once the sandbox is gone.
		g, err := gitguard.Take(ctx, p.hostGit(ws.Dir))
		if err != nil {
			return "", err
		}
		guard := &repoGuard{guard: g, log: log}
		defer func() { err = guard.close(err) }()
		if sb, _, err = p.startDocker(ctx, ws, ws.Dir, vars, g, log); err != nil {
			return "", err
		}
	}
	defer closeSandbox(ctx, sb, log)
	return run.Expand(ctx, pr, sb, cfg.ShellTimeout, log)
}
