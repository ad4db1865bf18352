package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/push"
)

// hub is the GitHub side of a run: the event that started it, the API, and where the run
// reports. Every method is safe when the run has no event or no token; it then does nothing.
type hub struct {
	cfg     inputs.GitHubConfig
	token   string
	actions bool         // running as a GitHub Action
	event   *event.Event // nil outside Actions
	api     *githubapi.Client
	owner   string
	repo    string
	server  string // GITHUB_SERVER_URL
	runURL  string // the workflow run's page; "" when unknown
	runID   string // GITHUB_RUN_ID and attempt, for recovery branch names
	marker  string // finds the progress comment again
	branch  string // the branch input: the run's own pull request comes from it
	// pushURL is origin's URL as the run found it, before the agent could touch .git/config;
	// "" when origin is not on the GitHub server, whose token then never goes to git.
	pushURL string
	issue   int // the issue or pull request the run reports on; 0 = none

	// eventUnread says GITHUB_EVENT_PATH names an event that could not be read: event is nil,
	// though the run was started by one.
	eventUnread bool
}

// newHub reads the event and opens the API client. Nothing is sent to GitHub yet. The hub is
// returned with its error, an *inputs.Problem, holding what could be read.
func newHub(getenv func(string) string, cfg inputs.Config) (*hub, error) {
	h := &hub{
		cfg:     cfg.GitHub,
		branch:  cfg.Branch,
		token:   cfg.GitHub.Token,
		actions: getenv("GITHUB_ACTIONS") == "true",
		server:  strings.TrimRight(orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
	}
	if h.token == "" {
		h.token = getenv("GITHUB_TOKEN")
	}
	if path := getenv("GITHUB_EVENT_PATH"); h.actions && path != "" {
		e, err := event.Load(getenv("GITHUB_EVENT_NAME"), path)
		if err != nil {
			h.eventUnread = true
			return h, &inputs.Problem{Message: "the event that started the workflow cannot be used: " + err.Error()}
		}
		h.event = e
		switch {
		case e.Issue != nil:
			h.issue = e.Issue.Number
		case e.PR != nil:
			h.issue = e.PR.Number
		}
	}
	repository := getenv("GITHUB_REPOSITORY")
	if h.event != nil && h.event.Repository != "" {
		repository = h.event.Repository
	}
	h.owner, h.repo, _ = strings.Cut(repository, "/")
	if id := getenv("GITHUB_RUN_ID"); id != "" && repository != "" {
		h.runURL = h.server + "/" + repository + "/actions/runs/" + id
		h.runID = id + "-" + orDefault(getenv("GITHUB_RUN_ATTEMPT"), "1")
	}
	h.marker = markerOf(getenv("GITHUB_WORKFLOW"), getenv("GITHUB_JOB"), cfg.Name)

	if err := h.needs(); err != nil {
		return h, err
	}
	if h.token != "" && h.repo != "" {
		api, err := githubapi.New(githubapi.Options{Token: h.token, APIURL: getenv("GITHUB_API_URL")})
		if err != nil {
			return h, &inputs.Problem{Message: fmt.Sprintf("GitHub API client (github-token, GITHUB_API_URL): %v", err)}
		}
		h.api = api
	}
	return h, nil
}

// gitToken is the token git authenticates with: in Actions, to an origin on the GitHub server.
// On a workstation the user's own git setup (SSH keys, a credential helper) reaches their
// remotes, and a GITHUB_TOKEN in the environment is for the API.
func (h *hub) gitToken() string {
	if !h.actions || h.pushURL == "" {
		return ""
	}
	return h.token
}

// findOrigin records origin's URL for pushes with the token, when it is on the GitHub server.
// It runs before the agent, who could rewrite .git/config, and drops any credentials in it.
func (h *hub) findOrigin(ctx context.Context, g git.Repo) {
	if !h.actions || h.token == "" {
		return
	}
	out, err := g.Run(ctx, "remote", "get-url", "--push", "origin")
	if err != nil {
		return
	}
	u, err := url.Parse(strings.TrimSpace(out))
	if err != nil {
		return
	}
	u.User = nil
	if push.OnServer(h.server, u.String()) {
		h.pushURL = u.String()
	}
}

// fetch brings branch from origin with the token, for the workspace, and reports whether origin
// has it; nil when git uses the repository's own setup.
func (h *hub) fetch(dir string, env, config []string) func(ctx context.Context, branch string) (bool, error) {
	if h.gitToken() == "" {
		return nil
	}
	return func(ctx context.Context, branch string) (bool, error) {
		return push.Fetch(ctx, push.Options{Dir: dir, Env: env, GitConfig: config, Branch: branch, Token: h.token, ServerURL: h.server, URL: h.pushURL})
	}
}

// needs checks that what the inputs ask of GitHub can be done: a token and a repository.
func (h *hub) needs() error {
	var why string
	switch {
	case h.cfg.OpenPR:
		why = "open-pr is true"
	case h.event != nil && h.issue != 0 && (h.cfg.ProgressComment || h.cfg.InProgressLabel != "" || h.cfg.BlockedLabel != ""):
		why = "the run reports on #" + fmt.Sprint(h.issue)
	case h.event != nil && !event.StartedByWorkflow(h.event.Name):
		why = "the author of the " + h.event.Name + " event must be checked"
	default:
		return nil
	}
	if h.token == "" {
		return &inputs.Problem{Input: inputs.InputGitHubToken, Message: "no token, but " + why + "; pass a token (the default is the job's ${{ github.token }}; on the command line set GITHUB_TOKEN)"}
	}
	if h.repo == "" {
		return &inputs.Problem{Message: "GITHUB_REPOSITORY is not set, but " + why + "; set it to owner/name"}
	}
	return nil
}

// markerFamily starts every marker the action hides in its comments and pull requests, which
// is how it knows them for its own when their events come back to it.
const markerFamily = "sandcastle"

// markerOf names the progress comment of one workflow job, so re-runs edit their own comment
// and other workflows keep theirs. Markers live in an HTML comment: "--", "<" and ">" go.
func markerOf(workflow, job, name string) string {
	parts := []string{markerFamily}
	for _, p := range []string{workflow, job, name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return cleanMarker(strings.Join(parts, ":"))
}

// cleanMarker makes s fit in the HTML comment that hides a marker: "--", "<", ">" and line
// breaks would end or break it.
func cleanMarker(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "<", "", ">", "").Replace(s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return s
}

// eventArgs are the event's built-in prompt arguments; nil outside Actions.
func (h *hub) eventArgs() map[string]string {
	if h.event == nil {
		return nil
	}
	args := h.event.PromptArgs()
	if _, ok := args["REPOSITORY"]; !ok && h.owner != "" {
		args["REPOSITORY"] = h.owner + "/" + h.repo
	}
	return args
}

// guard decides whether the event may start a run.
func (h *hub) guard(ctx context.Context) (event.Decision, error) {
	if h.event == nil {
		return event.Decision{Run: true}, nil
	}
	return event.Decide(ctx, h.event, event.Policy{
		TriggerPhrases:   h.cfg.TriggerPhrases,
		TriggerLabel:     h.cfg.TriggerLabel,
		AllowedUsers:     h.cfg.AllowedUsers,
		AllowedBots:      h.cfg.AllowedBots,
		AllowBots:        h.cfg.AllowBots,
		RefuseIfLinkedPR: h.cfg.RefuseIfOpenPR,
		OwnLabels:        []string{h.cfg.InProgressLabel, h.cfg.BlockedLabel},
		Written:          func(body string) bool { return githubapi.MarkedBy(body, markerFamily) },
	}, permissions{h})
}

// permissions answers event.Decide's questions through the API.
type permissions struct{ h *hub }

func (p permissions) Permission(ctx context.Context, user string) (string, error) {
	if p.h.api == nil {
		return "", errors.New("no github-token to look up permissions with")
	}
	return p.h.api.Permission(ctx, p.h.owner, p.h.repo, user)
}

func (p permissions) OpenLinkedPRs(ctx context.Context, issue int) ([]event.LinkedPR, error) {
	if p.h.api == nil {
		return nil, errors.New("no github-token to look up pull requests with")
	}
	prs, err := p.h.api.OpenLinkedPRs(ctx, p.h.owner, p.h.repo, issue)
	var out []event.LinkedPR
	for _, pr := range prs {
		// A pull request an earlier run opened is this work, not a competitor: the run
		// updates it. It looks like a collaborator's when the token is a person's.
		if h := p.h; h.branch != "" && githubapi.Marked(pr.Body, prMarker(h.branch)) {
			continue
		}
		out = append(out, event.LinkedPR{Number: pr.Number, URL: pr.URL, Author: pr.Author, AuthorAssociation: pr.AuthorAssociation, Body: pr.Body})
	}
	return out, err
}

// startLabels marks the issue the run works on as in progress.
func (h *hub) startLabels(ctx context.Context) error {
	add, remove := h.stateLabels().Start()
	return h.labels(ctx, add, remove)
}

// finishLabels marks the end of the run, and a failure as blocked.
func (h *hub) finishLabels(ctx context.Context, ok bool) error {
	add, remove := h.stateLabels().Finish(ok)
	return h.labels(ctx, add, remove)
}

// labels moves the state-machine labels of the issue the run works on.
func (h *hub) labels(ctx context.Context, add, remove []string) error {
	if h.api == nil || h.issue == 0 {
		return nil
	}
	var errs []error
	for _, l := range remove {
		errs = append(errs, h.api.RemoveLabel(ctx, h.owner, h.repo, h.issue, l))
	}
	if len(add) > 0 {
		errs = append(errs, h.api.AddLabels(ctx, h.owner, h.repo, h.issue, add...))
	}
	return errors.Join(errs...)
}

func (h *hub) stateLabels() event.Labels {
	return event.Labels{Trigger: h.cfg.TriggerLabel, InProgress: h.cfg.InProgressLabel, Blocked: h.cfg.BlockedLabel}
}

// comments reports whether the run keeps a progress comment.
func (h *hub) comments() bool {
	return h.cfg.ProgressComment && h.api != nil && h.issue != 0
}
