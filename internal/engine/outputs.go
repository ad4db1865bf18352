package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// act does what output-action asks with the run's structured output, filling o: the triage's
// actions, the review, or the plan. The error is the run's failure; an action the host refuses
// or GitHub fails is not one.
func (e *engine) act(ctx context.Context, o *report.Outcome, log *report.Log) error {
	action := e.p.Config.GitHub.OutputAction
	if action == "" || action == inputs.OutputActionNone || o.Output == nil {
		return nil
	}
	if action == inputs.OutputActionPlan {
		return e.plan(o, log) // the plan's outputs are the action's own: it needs no GitHub
	}
	if e.d.Outputs == nil {
		return &inputs.RuntimeError{Input: inputs.InputOutputAction, Err: errors.New("no github-token and repository to act with on GitHub")}
	}
	end := e.d.Reporter.Group("Output: " + action)
	defer end()
	if action == inputs.OutputActionTriage {
		return e.triage(ctx, o, log)
	}
	return e.review(ctx, o, log)
}

// triage checks each action the output asks for and carries out those allowed.
func (e *engine) triage(ctx context.Context, o *report.Outcome, log *report.Log) error {
	entries, err := triage.Parse(o.Output.JSON)
	if err != nil {
		return err
	}
	t := e.p.Config.GitHub.Triage
	issues := map[int]triage.Issue{}
	for _, en := range entries {
		if _, ok := issues[en.Issue]; ok {
			continue
		}
		is, err := e.d.Outputs.TriageIssue(ctx, en.Issue, t.TriagedLabel)
		if err != nil {
			return fmt.Errorf("triage: reading #%d: %w", en.Issue, err)
		}
		is.Read = en.Issue == e.p.Event.Number() || e.read != nil && e.read(en.Issue)
		issues[en.Issue] = is
	}
	repo := ""
	if e.p.EventArgs != nil {
		repo = e.p.EventArgs["REPOSITORY"]
	}
	actions := triage.Check(entries, issues, triage.Policy{Repository: repo, AllowedLabels: t.AllowedLabels,
		MaxActions: t.MaxActions, AllowPRs: t.PullRequests, TriagedLabel: t.TriagedLabel})
	for i, a := range actions {
		if a.Refused != "" {
			log.Warning("triage: not doing %s %q on #%d: %s", a.Kind, e.clip(a.Value), a.Issue, a.Refused)
			continue
		}
		if err := e.d.Outputs.Triage(ctx, a); err != nil {
			actions[i].Failed = err.Error()
			log.Warning("triage: %s on #%d failed: %v", a.Kind, a.Issue, err)
			continue
		}
		log.Status("triage: %s %q on #%d", a.Kind, e.clip(a.Value), a.Issue)
	}
	if t.TriagedLabel != "" {
		for _, n := range triage.Touched(actions) {
			if err := e.d.Outputs.Triage(ctx, triage.Action{Issue: n, Kind: triage.AddLabel, Value: t.TriagedLabel}); err != nil {
				log.Warning("triage: marking #%d with %s: %v", n, t.TriagedLabel, err)
			}
		}
	}
	o.Actions = actions
	return nil
}

// plan checks the output's tasks and sets them as the matrix output. A plan whose tasks would
// not make a matrix (two on one branch, an id no branch takes, a command in a prompt) is the
// run's failure: no task of it runs.
func (e *engine) plan(o *report.Outcome, log *report.Log) error {
	p, err := fanout.Parse(o.Output.JSON, fanout.DefaultID(e.p.RunTag, e.p.Actions))
	if err != nil {
		return err
	}
	o.Plan = &p
	log.Status("plan %s: %d task(s)", p.ID, len(p.Tasks))
	return nil
}

// review posts the output as one review of the event's pull request.
func (e *engine) review(ctx context.Context, o *report.Outcome, log *report.Log) error {
	number, commit := 0, ""
	if ev := e.p.Event; ev != nil {
		number = ev.PRNumber()
	}
	if pr := prOf(e.p.Event); pr != nil {
		commit = pr.HeadSHA
	}
	if number == 0 {
		return &inputs.RuntimeError{Input: inputs.InputOutputAction, Err: errors.New("review needs a pull request, but the event is about none; trigger it on pull_request, or on a comment on a pull request")}
	}
	out, err := review.Parse(o.Output.JSON)
	if err != nil {
		return err
	}
	files, err := e.d.Outputs.PRFiles(ctx, number)
	if err != nil {
		return err
	}
	posted, err := e.d.Outputs.ReviewTexts(ctx, number)
	if err != nil {
		return err
	}
	plan := review.Build(out, files, posted)
	o.Review = &report.Review{PR: number, Inline: len(plan.Inline), Moved: len(plan.Moved), Repeated: plan.Repeated}
	if plan.Nothing() {
		log.Status("review: nothing new for #%d; an earlier run posted this review", number)
		return nil
	}
	url, err := e.d.Outputs.PostReview(ctx, number, commit, plan.Body(), plan.Comments())
	if err != nil && e.d.Outputs.Unprocessable(err) && len(plan.Inline) > 0 {
		// The diff changed since it was read, or GitHub sees a line otherwise: the review goes
		// out all the same, every comment in its body.
		log.Warning("review: GitHub refused a comment on its line (%v); posting every comment in the review's body", err)
		plan = plan.Flat()
		o.Review.Inline, o.Review.Moved = 0, len(plan.Moved)
		url, err = e.d.Outputs.PostReview(ctx, number, commit, plan.Body(), nil)
	}
	if err != nil {
		return err
	}
	o.Review.URL = url
	log.Status("review: posted on #%d with %d comment(s) on their lines, %d in its body: %s", number, o.Review.Inline, o.Review.Moved, url)
	return nil
}

// clip shortens agent text for one log line. The secrets in it are redacted first: the log
// redacts only whole ones, and a secret cut short would show all but its tail.
func (e *engine) clip(s string) string {
	s = e.d.Reporter.Redactor().Redact(s)
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
