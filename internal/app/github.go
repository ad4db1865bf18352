package app

import (
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// gitHub is the GitHub side of a run: the runner's environment, the token, and the API bound
// to the repository and issue the run reports on.
type gitHub struct {
	githubapi.Env
	token string
	repo  *githubapi.Repo // nil without a token and a repository
}

// newGitHub binds the API client to the event e, its gate redacting with redactor
// and leaving live only the closing reference to the issue the run was started for. Nothing is
// sent to GitHub yet. It is returned with its error, an *inputs.Problem, holding what could be read.
func newGitHub(getenv func(string) string, cfg inputs.Config, e *event.Event, redactor *report.Redactor) (gitHub, error) {
	h := gitHub{Env: githubapi.ReadEnv(getenv, e), token: cfg.GitHub.Token}
	if h.token == "" {
		h.token = getenv("GITHUB_TOKEN")
	}
	owner, name, _ := strings.Cut(h.Repository, "/")
	if h.token == "" || name == "" {
		return h, nil
	}
	gate := githubapi.Gate{Redact: redactor.Redact}
	if e != nil && e.PRNumber() == 0 { // an issue, not a pull request
		gate.Closes = e.Number()
	}
	api, err := githubapi.New(githubapi.Options{Token: h.token, APIURL: h.APIURL, Gate: gate})
	if err != nil {
		return h, &inputs.Problem{Message: fmt.Sprintf("GitHub API client (github-token, GITHUB_API_URL): %v", err)}
	}
	h.repo = &githubapi.Repo{Client: api, Owner: owner, Name: name, Issue: e.Number(), Trigger: githubapi.TriggerOf(e), Branch: cfg.Branch,
		Server: h.Server, Marker: githubapi.CommentMarker(h.Workflow, h.Job, cfg.Name)}
	return h, nil
}
