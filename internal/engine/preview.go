package engine

import (
	"context"
	"fmt"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// Preview is the prompt the run's first iteration would send: every !`command` run in the
// sandbox the plan chooses, on the checkout as it is, which no hook prepares. Nothing is made
// but the sandbox, and it is stopped again; the git directory is guarded as for a run where the
// sandbox guards it. The text is not yet redacted.
func Preview(ctx context.Context, p Plan, d Deps) (_ string, err error) {
	if p.Prompt == nil {
		return "", fmt.Errorf("no prompt: mode %s answers %s, and skips this event, which is about %s", p.Config.Mode, event.SubjectNames(p.Config.GitHub.Subjects), p.Event.Subject())
	}
	e := newEngine(p, d)
	log := d.Reporter.NewLog(nil)
	for _, w := range p.PromptWarnings {
		log.Warning("%s", w)
	}
	s, err := e.sandbox(ctx, p.Checkout, log, false)
	if err != nil {
		return "", err
	}
	defer func() { _, err = s.close(ctx, err) }()
	return run.Expand(ctx, p.Prompt, s.Sandbox, p.Config.ShellTimeout, log)
}
