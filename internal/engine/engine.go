package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

// cleanupTimeout bounds each piece of work done after a run ends or is cancelled: stopping the
// sandbox, finishing the workspace, the comment and the labels.
const cleanupTimeout = 2 * time.Minute

// publishTimeout bounds pushing the branch and opening the pull request, after the run.
const publishTimeout = 10 * time.Minute

// Plan is a run checked and ready to start. Nothing in it changes while the run goes.
type Plan struct {
	Config inputs.Config
	// Prompt is rendered once, in preflight, with the branches the workspace will have;
	// PromptWarnings name the prompt-args keys it does not use. It is nil for a run on a pull
	// request's own branch whose event is about none, which the trigger skips.
	Prompt         *prompt.Prompt
	PromptWarnings []string
	Output         *structured.Spec // nil without output-tag
	// Checkout is the checkout as it is, named as the workspace will be; nil for an event the
	// trigger skips.
	Checkout Workspace
	// Event started the workflow; nil outside Actions. For a run on a pull request's own branch
	// it carries that pull request as preflight looked it up (Event.PR), in a copy of its own.
	// EventArgs are its built-ins, with the repository.
	Event *event.Event
	// PR is the pull request whose own branch the run works on (GitHub.OnPullRequest), as
	// looked up; nil for any other run.
	PR        *event.PR
	EventArgs map[string]string
	Actions   bool   // running as a GitHub Action
	RunURL    string // the workflow run's page; "" when unknown
	RepoURL   string // the repository's page, for links to its branches; "" when unknown
	// RunTag tells this run's recovery branch and bundle from other runs': the workflow run and
	// its attempt; "" uses the time.
	RunTag string
	// Env is the agent's environment, before the workspace adds git's settings to it; Secrets
	// are the values of it to mask in logs.
	Env     map[string]string
	Secrets []string
	// Origin is where the branch is pushed to and fetched from with the token, read in preflight
	// before the agent could change the repository's configuration; "" when git never gets the
	// token (origin is not on the GitHub server, or the run is not an Action's).
	Origin string
	// Cleanup bounds each step once the run is over; 0 means two minutes.
	Cleanup time.Duration
}

// newEngine is the engine of plan p on deps d, with the plan's defaults filled in: the cleanup
// budget, and outside a workflow run the time the run starts as its tag, so that its recovery
// branch and its bundle are named alike.
func newEngine(p Plan, d Deps) *engine {
	if p.Cleanup == 0 {
		p.Cleanup = cleanupTimeout
	}
	if p.RunTag == "" {
		p.RunTag = time.Now().UTC().Format("20060102-150405")
	}
	return &engine{p: p, d: d}
}

// engine is one run.
type engine struct {
	p Plan
	d Deps

	begun     bool     // the event started the run: its labels moved and the comment was seen
	progress  Progress // nil when the run keeps no comment
	seen      int64    // the reaction that says the run saw the comment that started it; 0: none
	mu        sync.Mutex
	progState report.Progress       // what the comment shows while the run goes; mu guards it
	read      func(number int) bool // the issues the sandbox read from GitHub; nil: none
	guarded   bool                  // the sandbox guards the repository's git directory
}

// reports says whether the run can write on its issue or pull request.
func (e *engine) reports() bool { return e.d.GitHub != nil && e.p.Event.Number() != 0 }

// decide says whether the event may start a run; without an event, every run starts.
func (e *engine) decide(ctx context.Context) (event.Decision, error) {
	if e.p.Event == nil {
		return event.Decision{Run: true}, nil
	}
	p := policy(e.p.Config.GitHub)
	var perms event.Permissions = noAPI{}
	if e.d.GitHub != nil {
		perms, p.Written = e.d.GitHub, e.d.GitHub.Ours
	}
	return event.Decide(ctx, e.p.Event, p, perms)
}

// policy is who and what may start a run with the GitHub inputs g.
func policy(g inputs.GitHubConfig) event.Policy {
	return event.Policy{
		Subjects:         g.Subjects,
		TriggerPhrases:   g.TriggerPhrases,
		NotBefore:        g.TriggerNotBefore,
		TriggerLabel:     g.TriggerLabel,
		AllowedUsers:     g.AllowedUsers,
		AllowedBots:      g.AllowedBots,
		AllowBots:        g.AllowBots,
		RefuseIfLinkedPR: g.RefuseIfOpenPR,
		OnPullRequest:    g.OnPullRequest,
		AllowForks:       g.AllowForks,
		OwnLabels:        []string{g.InProgressLabel, g.BlockedLabel},
	}
}

// answers reports whether a run with the GitHub inputs g answers e at all (event.Policy.Answers),
// which every run without an event does: the trigger skips any other event before it needs a
// workspace or a prompt.
func answers(g inputs.GitHubConfig, e *event.Event) bool {
	return e == nil || policy(g).Answers(e)
}

// noAPI answers the trigger's questions when there is no API to ask.
type noAPI struct{}

func (noAPI) Permission(context.Context, string) (string, error) {
	return "", errNoAPI
}

func (noAPI) OpenLinkedPRs(context.Context, int) ([]event.LinkedPR, error) {
	return nil, errNoAPI
}

var errNoAPI = errors.New("no github-token and repository to ask GitHub with")

// refuse ends a run the event may not start: a green job that says why.
func (e *engine) refuse(d event.Decision, o *report.Outcome) {
	o.Status, o.RefusalReason = report.StatusRefused, d.Reason
	if d.Skip {
		o.Status = report.StatusSkipped
	}
	e.d.Reporter.Info(fmt.Sprintf("Not running (%s): %s", o.Status, d.Reason))
}

// answerRefusal answers a refusal where it was asked, but never to a bot (two bots could answer
// each other forever) and never for an event that did not address the action at all; the
// refused label comes off, so that a maintainer can simply label the issue again.
func (e *engine) answerRefusal(ctx context.Context, o *report.Outcome) {
	if o.Status == report.StatusSkipped {
		return
	}
	if !e.p.Event.IsBot() && e.p.Config.GitHub.ProgressComment && e.reports() {
		url, err := e.d.GitHub.Answer(ctx, o.Comment())
		if err != nil {
			e.d.Reporter.Warning(fmt.Sprintf("progress comment: %v", err))
		}
		o.CommentURL = url
	}
	if trigger := e.p.Config.GitHub.TriggerLabel; trigger != "" {
		e.labels(ctx, func() ([]string, []string) { return nil, []string{trigger} })
	}
}

// labels moves the state labels of the issue the run works on, as move says.
func (e *engine) labels(ctx context.Context, move func() (add, remove []string)) {
	if !e.reports() {
		return
	}
	add, remove := move()
	if len(add)+len(remove) == 0 {
		return
	}
	if err := e.d.GitHub.Labels(ctx, add, remove); err != nil {
		e.d.Reporter.Warning(fmt.Sprintf("labels: %v", err))
	}
}

// acknowledge reacts 👀 to the comment that started the run, if one did: it was seen, and the
// run is under way.
func (e *engine) acknowledge(ctx context.Context) {
	if e.d.GitHub == nil {
		return
	}
	id, err := e.d.GitHub.React(ctx, "eyes")
	if err != nil {
		e.d.Reporter.Warning("reaction: " + err.Error())
	}
	e.seen = id
}

// answered replaces the 👀 of acknowledge by how the run ended: 🚀 when it did its job (ok),
// 😕 when it failed.
func (e *engine) answered(ctx context.Context, ok bool) {
	if e.d.GitHub == nil {
		return
	}
	if err := e.d.GitHub.Unreact(ctx, e.seen); err != nil {
		e.d.Reporter.Warning("reaction: " + err.Error())
	}
	content := "rocket"
	if !ok {
		content = "confused"
	}
	if _, err := e.d.GitHub.React(ctx, content); err != nil {
		e.d.Reporter.Warning("reaction: " + err.Error())
	}
}

// startProgress posts the progress comment, when the run keeps one.
func (e *engine) startProgress(ctx context.Context) {
	if !e.p.Config.GitHub.ProgressComment || !e.reports() || e.d.Progress == nil {
		return
	}
	e.progState = report.Progress{RunURL: e.p.RunURL}
	if err := e.d.Progress.Start(ctx, e.progState.Comment()); err != nil {
		e.d.Reporter.Warning("progress comment: " + err.Error())
		return
	}
	e.progress = e.d.Progress
}

// showProgress records where the loop stands; a tool call without one keeps the last one shown.
func (e *engine) showProgress(r run.Progress) {
	e.mu.Lock()
	e.progState.Iteration, e.progState.MaxIterations, e.progState.Commits = r.Iteration, r.MaxIterations, r.Commits
	if r.LastTool != "" {
		e.progState.LastTool = r.LastTool
	}
	body := e.progState.Comment()
	e.mu.Unlock()
	e.progress.Show(body)
}

// commentURL is the progress comment's address; answer's, the refusal's, when the run keeps
// none.
func (e *engine) commentURL(answer string) string {
	if e.progress == nil {
		return answer
	}
	return e.progress.URL()
}

// afterRun is a context for work done once the run is over, which a cancelled job must not
// stop: it starts when called, so a long run does not use up its time.
func (e *engine) afterRun(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.p.Cleanup)
}
