package githubapi

import (
	"cmp"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
)

// Env is the GitHub side of a run as the runner's environment (GITHUB_*) describes it.
type Env struct {
	Actions    bool   // running as a GitHub Action
	Server     string // GITHUB_SERVER_URL without its trailing slash; github.com's by default
	APIURL     string // GITHUB_API_URL; "" for github.com's
	GraphQLURL string // GITHUB_GRAPHQL_URL; "" to derive it from APIURL
	Repository string // owner/name: the event's, else GITHUB_REPOSITORY
	RunURL     string // the workflow run's page; "" when unknown
	RunTag     string // GITHUB_RUN_ID and attempt, for recovery branch names; "" outside a run
	Workflow   string
	Job        string
}

// ReadEnv reads the runner's environment through getenv, for a run started by e (nil outside
// Actions), whose repository wins over GITHUB_REPOSITORY.
func ReadEnv(getenv func(string) string, e *event.Event) Env {
	v := Env{Actions: getenv("GITHUB_ACTIONS") == "true", Server: strings.TrimRight(cmp.Or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/"),
		APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"), Repository: getenv("GITHUB_REPOSITORY"),
		Workflow: getenv("GITHUB_WORKFLOW"), Job: getenv("GITHUB_JOB")}
	if e != nil && e.Repository != "" {
		v.Repository = e.Repository
	}
	if id := getenv("GITHUB_RUN_ID"); id != "" && v.Repository != "" {
		v.RunURL = v.Server + "/" + v.Repository + "/actions/runs/" + id
		v.RunTag = id + "-" + cmp.Or(getenv("GITHUB_RUN_ATTEMPT"), "1")
	}
	return v
}

// RepoURL is the repository's page; "" when the repository is unknown.
func (v Env) RepoURL() string {
	if v.Repository == "" {
		return ""
	}
	return v.Server + "/" + v.Repository
}

// TriggerOf is the comment that started a run on e, which its reactions go on and, for a review
// comment, in whose thread it answers.
func TriggerOf(e *event.Event) Trigger {
	if e == nil || e.Comment == nil {
		return Trigger{}
	}
	t := Trigger{ID: e.Comment.ID}
	if e.Name == event.PullRequestReviewComment {
		t.Thread = e.Comment.Thread
	}
	return t
}
