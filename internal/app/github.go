package app

import (
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// gitHub is the GitHub side of a run as the environment describes it: the event that started
// it, the token, the API bound to the repository and issue the run reports on, and where the
// run's branch is pushed.
type gitHub struct {
	token      string
	actions    bool            // running as a GitHub Action
	repository string          // owner/name
	server     string          // GITHUB_SERVER_URL
	apiURL     string          // GITHUB_API_URL; "" for github.com's
	graphQLURL string          // GITHUB_GRAPHQL_URL; "" to derive it from apiURL
	runURL     string          // the workflow run's page; "" when unknown
	runID      string          // GITHUB_RUN_ID and attempt, for recovery branch names
	repo       *githubapi.Repo // nil without a token and a repository
}

// readEvent reads the event that started the workflow; nil outside Actions. An event that
// cannot be read is an *inputs.Problem.
func readEvent(getenv func(string) string) (*event.Event, error) {
	path := getenv("GITHUB_EVENT_PATH")
	if getenv("GITHUB_ACTIONS") != "true" || path == "" {
		return nil, nil
	}
	e, err := event.Load(getenv("GITHUB_EVENT_NAME"), path)
	if err != nil {
		return nil, &inputs.Problem{Message: "the event that started the workflow cannot be used: " + err.Error()}
	}
	return e, nil
}

// newGitHub binds the API client to the event readEvent read, its gate redacting with redactor
// and leaving live only the closing reference to the issue the run was started for. Nothing is
// sent to GitHub yet. It is returned with its error, an *inputs.Problem, holding what could be read.
func newGitHub(getenv func(string) string, cfg inputs.Config, e *event.Event, redactor *report.Redactor) (gitHub, error) {
	h := gitHub{
		token:   cfg.GitHub.Token,
		actions: getenv("GITHUB_ACTIONS") == "true",
		server:  strings.TrimRight(orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
		apiURL:  getenv("GITHUB_API_URL"),

		graphQLURL: getenv("GITHUB_GRAPHQL_URL"),
	}
	if h.token == "" {
		h.token = getenv("GITHUB_TOKEN")
	}
	h.repository = getenv("GITHUB_REPOSITORY")
	if e != nil && e.Repository != "" {
		h.repository = e.Repository
	}
	owner, name, _ := strings.Cut(h.repository, "/")
	if id := getenv("GITHUB_RUN_ID"); id != "" && h.repository != "" {
		h.runURL = h.server + "/" + h.repository + "/actions/runs/" + id
		h.runID = id + "-" + orDefault(getenv("GITHUB_RUN_ATTEMPT"), "1")
	}
	if h.token != "" && name != "" {
		gate := githubapi.Gate{Redact: redactor.Redact}
		if e != nil && e.PRNumber() == 0 { // an issue, not a pull request
			gate.Closes = e.Number()
		}
		api, err := githubapi.New(githubapi.Options{Token: h.token, APIURL: getenv("GITHUB_API_URL"), Gate: gate})
		if err != nil {
			return h, &inputs.Problem{Message: fmt.Sprintf("GitHub API client (github-token, GITHUB_API_URL): %v", err)}
		}
		h.repo = &githubapi.Repo{Client: api, Owner: owner, Name: name, Issue: e.Number(), Trigger: triggerOf(e), Branch: cfg.Branch,
			Server: h.server, Marker: githubapi.CommentMarker(getenv("GITHUB_WORKFLOW"), getenv("GITHUB_JOB"), cfg.Name)}
	}
	return h, nil
}

// triggerOf is the comment that started the run, which its reactions go on and, for a review
// comment, in whose thread it answers.
func triggerOf(e *event.Event) githubapi.Trigger {
	if e == nil || e.Comment == nil {
		return githubapi.Trigger{}
	}
	t := githubapi.Trigger{ID: e.Comment.ID}
	if e.Name == event.PullRequestReviewComment {
		t.Thread = e.Comment.Thread
	}
	return t
}

// repoURL is the repository's page; "" when the repository is unknown.
func (h gitHub) repoURL() string {
	if h.repository == "" {
		return ""
	}
	return h.server + "/" + h.repository
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
