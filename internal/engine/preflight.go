package engine

import (
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

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
