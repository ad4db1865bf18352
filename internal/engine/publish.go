package engine

import (
	"context"
	"errors"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// publish pushes the branch and opens or updates the pull request, filling their fields of o.
// The error is what the user must act on. ok says the run did its job; a failed or cancelled
// one still pushes, to keep its commits, but opens no pull request.
func (e *engine) publish(ctx context.Context, o *report.Outcome, ws Workspace, lease string, ok bool, log *report.Log) error {
	g := e.p.Config.GitHub
	r, err := e.d.Publisher.Push(ctx, Push{
		Branch: o.Branch, Commits: len(o.Commits), Since: o.BaseSHA, Lease: lease,
		Recovery: e.recoveryBranch(o.Branch), Bundle: e.bundlePath(ws.Top(), o.Branch), Top: ws.Top(),
	})
	o.Pushed, o.RecoveryBranch = r.Pushed, r.Recovery
	if r.Pushed && e.offHeadBranch() && e.p.RepoURL != "" {
		o.BranchURL = e.p.RepoURL + "/tree/" + o.Branch
	}
	switch {
	case r.Declined != "" && len(o.Commits) > 0 && g.OpenPR && ok:
		log.Warning("open-pr: no pull request, because %s was not pushed: %s", orDetached(o.Branch), r.Declined)
		return nil
	case r.Declined != "":
		if len(o.Commits) > 0 {
			log.Status("Not pushing %s: %s", orDetached(o.Branch), r.Declined)
		}
		return nil
	case err != nil:
		return err
	case r.Skipped != "":
		log.Status("Not pushed: %s", r.Skipped)
	default:
		log.Status("Pushed %s (%s)", o.Branch, gitref.ShortSHA(r.SHA))
	}
	if !g.OpenPR || !ok {
		return nil
	}
	return e.openPR(ctx, o, ws, log)
}

// openPR opens or updates the pull request of o's branch into its base.
func (e *engine) openPR(ctx context.Context, o *report.Outcome, ws Workspace, log *report.Log) error {
	base := e.prBase(o.Branch, ws.Target())
	if base == "" {
		return &inputs.RuntimeError{Input: inputs.InputPRBase, Err: errors.New("no branch to merge " + o.Branch + " into: the run started on it (or on a detached HEAD) and no pull request names a base; set pr-base")}
	}
	g := e.p.Config.GitHub
	title, body, err := o.PR(report.PRTemplates{Title: g.PRTitle, Body: g.PRBody}, base, e.p.EventArgs)
	if err != nil {
		return prTemplateError(err, true)
	}
	pr, err := e.d.Publisher.UpsertPR(ctx, PR{Head: o.Branch, Base: base, Title: title, Body: body, Draft: g.PRDraft})
	if err != nil {
		return err
	}
	o.PRNumber, o.PRURL = pr.Number, pr.URL
	verb := "Updated"
	if pr.Created {
		verb = "Opened"
	}
	switch {
	case pr.DraftRefused:
		o.PRNote = "opened ready for review, since this repository does not support draft pull requests"
	case pr.Adopted:
		o.PRNote = "opened by someone else from this branch; their title and description are kept"
	}
	if o.PRNote != "" {
		log.Status("%s pull request #%d (%s): %s", verb, pr.Number, o.PRNote, pr.URL)
	} else {
		log.Status("%s pull request #%d: %s", verb, pr.Number, pr.URL)
	}
	return nil
}

// prBase is the branch the pull request merges into: pr-base, else the branch the run started
// from, else, for a run on a pull request's own branch, that pull request's base.
func (e *engine) prBase(branch, start string) string {
	if b := e.p.Config.GitHub.PRBase; b != "" {
		return b
	}
	if start != "" && start != branch {
		return start
	}
	if pr := prOf(e.p.Event); pr != nil {
		return pr.BaseRef
	}
	return ""
}

// checkPR checks, before the run, what the pull request will need: its templates name only
// keys they will have, and a base to merge into exists.
func checkPR(cfg inputs.Config, eventArgs map[string]string, onPR bool) error {
	g := cfg.GitHub
	if !g.OpenPR {
		return nil
	}
	var errs []error
	if err := report.CheckPRTemplates(report.PRTemplates{Title: g.PRTitle, Body: g.PRBody}, eventArgs); err != nil {
		errs = append(errs, prTemplateError(err, false))
	}
	if g.PRBase == "" && cfg.BranchStrategy == inputs.StrategyHead && !onPR {
		errs = append(errs, &inputs.Problem{Input: inputs.InputPRBase, Message: "with branch-strategy head the pull request would merge the checked-out branch into itself; set pr-base to the branch it merges into"})
	}
	return errors.Join(errs...)
}

// prTemplateError names the input of a pr-title or pr-body template that cannot be filled: a
// Problem before the run, a RuntimeError once it has started.
func prTemplateError(err error, started bool) error {
	var te *report.PRTemplateError
	if !errors.As(err, &te) {
		return err
	}
	input := inputs.InputPRTitle
	if te.Body {
		input = inputs.InputPRBody
	}
	if started {
		return &inputs.RuntimeError{Input: input, Err: te}
	}
	return &inputs.Problem{Input: input, Message: te.Error()}
}
