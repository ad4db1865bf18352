package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

// Facts are what preflight starts from: the inputs as read, the event, the environment and the
// agent.
type Facts struct {
	Config inputs.Config
	Event  *event.Event // nil outside Actions
	Agent  agent.Provider
	Getenv func(string) string
	Stat   func(name string) (fs.FileInfo, error) // the host's, for the agent's program on PATH
	// Actions says the run is a GitHub Action's; Token is github-token (or GITHUB_TOKEN) and
	// Repository owner/name, "" when unknown.
	Actions           bool
	Token, Repository string
	RunURL            string // the workflow run's page; "" when unknown
	RepoURL           string // the repository's page; "" when unknown
	RunTag            string // the workflow run and its attempt; "" outside one
}

// Prepare checks everything that can be checked before anything is created on disk, and
// returns the plan of the run. Every problem of the inputs, and of the repository and
// environment they name, is an *inputs.Problem, joined; any other error means a check could not
// be made.
func Prepare(ctx context.Context, f Facts, c Checks) (Plan, error) {
	cfg, ev := f.Config, f.Event
	var errs []error
	add := func(err ...error) { errs = append(errs, err...) }
	add(checkGitHub(cfg.GitHub, ev, f.Token, f.Repository))
	ev, err := lookUpPR(ctx, cfg.GitHub, ev, c.PRs)
	if err != nil {
		return Plan{}, err // what the workspace, the prompt and the trigger are depends on it
	}
	cfg = onPullRequest(cfg, ownPR(cfg.GitHub, ev))
	// An event the run does not answer is skipped before it needs a workspace or a prompt,
	// whose names and keys such an event would only be found to lack.
	answered := answers(cfg.GitHub, ev)
	var checkout Workspace
	var source, target string
	if answered {
		checkout, err = c.Repository.Preview(ctx, cfg, ownPR(cfg.GitHub, ev))
		add(err)
		if checkout != nil {
			source, target = checkout.Source(), checkout.Target()
		}
	}
	args := eventArgs(ev, f.Repository)
	add(checkPR(cfg, args, ev != nil && ev.PR != nil))
	output, err := outputSpec(cfg)
	add(err)
	var pr *prompt.Prompt
	var warnings []string
	if answered {
		pr, warnings, err = renderPrompt(cfg, source, target, args, f.Agent.MaxPromptBytes)
		add(err)
	}
	env, err := agentEnv(f.Getenv, cfg, f.Agent.EnvNames, f.Token)
	add(err)
	add(c.Sandbox.Check())
	if cfg.ResumeSession != "" && c.Sessions != nil {
		if err := c.Sessions.Find(cfg.ResumeSession); err != nil {
			add(&inputs.Problem{Input: inputs.InputResumeSession, Message: err.Error() + "; use a session-id output of an earlier run on this machine or job (sessions are saved under HOME)"})
		}
	}
	add(checkAgent(f, cfg, c.Sandbox.OnHost(), env.Vars["PATH"])...)
	if err := errors.Join(errs...); err != nil {
		return Plan{}, err
	}
	var origin string
	if f.Actions {
		if err := checkNoPersistedToken(ctx, c.Checkout); err != nil {
			return Plan{}, err
		}
		if f.Token != "" {
			origin = c.Checkout.Origin(ctx)
		}
	}
	return Plan{Config: cfg, Prompt: pr, PromptWarnings: warnings, Output: output, Event: ev, PR: ownPR(cfg.GitHub, ev), EventArgs: args, Checkout: checkout,
		Actions: f.Actions, RunURL: f.RunURL, RepoURL: f.RepoURL, RunTag: f.RunTag, Env: env.Vars, Secrets: env.Secrets, Origin: origin}, nil
}

// lookUpPR is e with, for a run on the event's pull request's own branch, that pull request as
// it is now, in a copy: a comment's payload names none of its branches, and the head a review
// comment's or a pull request event's names may have moved on since.
func lookUpPR(ctx context.Context, g inputs.GitHubConfig, e *event.Event, prs PRLookup) (*event.Event, error) {
	if !g.OnPullRequest || e == nil || e.PRNumber() == 0 || prs == nil {
		return e, nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pr, err := prs.PullRequest(ctx, e.PRNumber())
	if err != nil {
		return nil, fmt.Errorf("looking up the pull request the run works on: %w", err)
	}
	c := *e
	c.PR = pr
	return &c, nil
}

// ownPR is the pull request of event e whose own branch the run works on; nil for any other
// run.
func ownPR(g inputs.GitHubConfig, e *event.Event) *event.PR {
	if !g.OnPullRequest || e == nil {
		return nil
	}
	return e.PR
}

// checkNoPersistedToken refuses a checkout that keeps a token in .git/config, as
// actions/checkout does unless told otherwise: the agent works in that repository and could
// read it there.
func checkNoPersistedToken(ctx context.Context, c Checkout) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	keys, err := c.PersistedTokens(ctx)
	if err != nil || len(keys) == 0 {
		return err
	}
	return &inputs.Problem{Message: fmt.Sprintf("the checkout keeps a token in .git/config (%s), where the agent could read it; set persist-credentials: false on the actions/checkout step: the action pushes with github-token itself", strings.Join(keys, ", "))}
}

// checkAgent checks, once and before anything is created, that the agent takes the request the
// inputs make (inputs.Load has checked effort, permission mode and sessions against what the
// agent accepts, so what is left is the model), that it can log in inside a sandbox apart from
// the host, and that on the host its program is on the PATH it runs with.
func checkAgent(f Facts, cfg inputs.Config, onHost bool, path string) []error {
	var errs []error
	_, err := f.Agent.Command(agent.Request{Model: cfg.Model, Effort: cfg.Effort, PermissionMode: cfg.PermissionMode,
		ResumeSession: cfg.ResumeSession, ForkSession: cfg.ForkSession})
	if err != nil {
		errs = append(errs, &inputs.Problem{Input: inputs.InputModel, Message: err.Error()})
	}
	switch {
	case !onHost:
		errs = append(errs, checkCredentials(f.Agent.Name, f.Agent.Credentials, f.Getenv))
	case err == nil:
		errs = append(errs, onPath(f.Agent.Spec, path, f.Stat))
	}
	return errs
}

// onPath checks that the agent's program is on path, so that a missing CLI fails before
// anything is created.
func onPath(a agent.Spec, path string, stat func(string) (fs.FileInfo, error)) error {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := stat(filepath.Join(dir, a.Program)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return nil
		}
	}
	return &inputs.Problem{Input: inputs.InputAgent, Message: fmt.Sprintf("%s runs %q, which is not on PATH (%s); install the %s CLI, or run in a sandbox image that has it", a.Name, a.Program, path, a.Name)}
}

// checkGitHub checks that what the inputs ask of GitHub can be done: a token, and the
// repository (owner/name) to talk to. A pull request, a run that reports on its issue and an
// event whose author must be checked need them.
func checkGitHub(g inputs.GitHubConfig, e *event.Event, token, repository string) error {
	var why string
	switch issue := e.Number(); {
	case g.OpenPR:
		why = "open-pr is true"
	case issue != 0 && (g.ProgressComment || g.InProgressLabel != "" || g.BlockedLabel != ""):
		why = fmt.Sprintf("the run reports on #%d", issue)
	case e != nil && !event.StartedByWorkflow(e.Name):
		why = "the author of the " + e.Name + " event must be checked"
	default:
		return nil
	}
	if token == "" {
		return &inputs.Problem{Input: inputs.InputGitHubToken, Message: "no token, but " + why + "; pass a token (the default is the job's ${{ github.token }}; on the command line set GITHUB_TOKEN)"}
	}
	if _, name, _ := strings.Cut(repository, "/"); name == "" {
		return &inputs.Problem{Message: "GITHUB_REPOSITORY is not set, but " + why + "; set it to owner/name"}
	}
	return nil
}

// eventArgs are the event's built-in prompt arguments, with the repository the run works for
// (owner/name) when the event names none; nil without an event.
func eventArgs(e *event.Event, repository string) map[string]string {
	if e == nil {
		return nil
	}
	args := e.PromptArgs()
	if _, ok := args["REPOSITORY"]; !ok && repository != "" {
		args["REPOSITORY"] = repository
	}
	return args
}

// checkCredentials checks that an agent can log in inside a container, where no login of the
// host exists: one of its credential variables must be set in the host's environment.
func checkCredentials(agentName string, credentials []string, getenv func(string) string) error {
	for _, k := range credentials {
		if getenv(k) != "" {
			return nil
		}
	}
	if len(credentials) == 0 {
		return nil
	}
	return &inputs.Problem{Input: inputs.InputAgent, Message: fmt.Sprintf("%s needs one of %s in the environment to log in inside the sandbox; set it from a secret (env: in the workflow step)", agentName, strings.Join(credentials, ", "))}
}

// outputSpec is how the structured output is read; nil without output-tag. A schema that does
// not compile is a problem of output-schema.
func outputSpec(cfg inputs.Config) (*structured.Spec, error) {
	o := cfg.Output
	if o == nil {
		return nil, nil
	}
	spec := &structured.Spec{Tag: o.Tag, Kind: structured.Kind(o.Type)}
	if o.Schema != nil {
		var err error
		if spec.Schema, err = structured.CompileSchema(o.Schema); err != nil {
			return spec, &inputs.Problem{Input: inputs.InputOutputSchema, Message: err.Error()}
		}
	}
	return spec, nil
}

// onPullRequest is cfg for a run on the event's pull request's own branch (GitHub.OnPullRequest),
// pr being that pull request as looked up: the agent works in a worktree on prBranch(pr),
// whatever branch-strategy and branch say. Any other run, or one whose event is about no pull
// request (which Decide skips), keeps cfg as it is.
func onPullRequest(cfg inputs.Config, pr *event.PR) inputs.Config {
	if !cfg.GitHub.OnPullRequest || pr == nil {
		return cfg
	}
	cfg.BranchStrategy, cfg.Branch = inputs.StrategyBranch, prBranch(pr)
	return cfg
}

// prBranch is the branch a run on pull request pr's own branch commits on: its head branch,
// or, when that is no branch the run may push to (see offHead), a branch of this repository
// named after the pull request and the head it starts from, sandcastle/pr-<n>-<short sha>.
// Another run on the same head continues that branch; one on a newer head starts another.
func prBranch(pr *event.PR) string {
	if !offHead(pr) {
		return pr.HeadRef
	}
	name := fmt.Sprintf("sandcastle/pr-%d", pr.Number)
	if pr.HeadSHA != "" {
		name += "-" + gitref.ShortSHA(pr.HeadSHA)
	}
	return name
}

// offHead says a run on pull request pr's own branch never pushes to its head branch: a fork's
// (a stranger's repository), or the repository's default branch (a pull request from main into
// a release branch), where the run's commits would land unreviewed.
func offHead(pr *event.PR) bool {
	return pr.Fork || pr.DefaultBranch != "" && pr.HeadRef == pr.DefaultBranch
}

// offHeadBranch says the run works on the event's pull request on a branch of this repository
// of its own, in place of the pull request's head branch (offHead).
func (e *engine) offHeadBranch() bool {
	pr := prOf(e.p.Event)
	return e.p.Config.GitHub.OnPullRequest && pr != nil && offHead(pr)
}

// prOf is the pull request an event is about; nil when none, or the event is a comment on one
// that was not looked up (its payload carries no branches).
func prOf(e *event.Event) *event.PR {
	if e == nil {
		return nil
	}
	return e.PR
}
