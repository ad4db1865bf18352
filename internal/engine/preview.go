package engine

import (
	"context"
	"errors"

	"github.com/sandcastle-action/sandcastle/internal/run"
)

// Preview is the prompt the run's first iteration would send: every !`command` run in the
// sandbox the plan chooses, on the checkout as it is, which no hook prepares. Nothing is made
// but the sandbox, and it is stopped again; with Docker, the git directory is guarded as for a
// run. The text is not yet redacted.
func Preview(ctx context.Context, p Plan, d Deps) (_ string, err error) {
	if p.Prompt == nil {
		return "", errors.New("no prompt: a run on a pull request's own branch (mode pr or review) skips this event, which is about no pull request")
	}
	e := &engine{p: p, d: d}
	if e.p.Cleanup == 0 {
		e.p.Cleanup = cleanupTimeout
	}
	log := d.Reporter.NewLog(nil)
	for _, w := range p.PromptWarnings {
		log.Warning("%s", w)
	}
	s, err := e.sandbox(ctx, d.Workspaces.Preview(), log, false)
	if err != nil {
		return "", err
	}
	defer func() { _, err = s.close(ctx, err) }()
	return run.Expand(ctx, p.Prompt, s.sb, p.Config.ShellTimeout, log)
}
