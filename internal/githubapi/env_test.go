package githubapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sandcastle-action/sandcastle/internal/event"
)

// TestReadEnv: the runner's variables, the event's repository before GITHUB_REPOSITORY, and the
// run's page and tag only when the run and the repository are known.
func TestReadEnv(t *testing.T) {
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://ghe.example/", "GITHUB_REPOSITORY": "o/r",
		"GITHUB_RUN_ID": "9", "GITHUB_WORKFLOW": "agent", "GITHUB_JOB": "run"}
	got := ReadEnv(func(k string) string { return vars[k] }, &event.Event{Repository: "o/fork"})
	want := Env{Actions: true, Server: "https://ghe.example", Repository: "o/fork", RunURL: "https://ghe.example/o/fork/actions/runs/9",
		RunTag: "9-1", Workflow: "agent", Job: "run"}
	if diff := cmp.Diff(want, got); diff != "" || got.RepoURL() != "https://ghe.example/o/fork" {
		t.Errorf("ReadEnv (-want +got):\n%s; repo URL %q", diff, got.RepoURL())
	}
	if got := ReadEnv(func(string) string { return "" }, nil); got.Server != "https://github.com" || got.RunURL != "" || got.RepoURL() != "" {
		t.Errorf("ReadEnv of nothing = %+v", got)
	}
}

// TestTriggerOf: reactions go on the comment that started the run; a review comment's answer
// goes in its thread.
func TestTriggerOf(t *testing.T) {
	c := &event.Comment{ID: 5, Thread: 4}
	for _, tt := range []struct {
		e    *event.Event
		want Trigger
	}{
		{nil, Trigger{}},
		{&event.Event{Name: event.IssueComment, Comment: c}, Trigger{ID: 5}},
		{&event.Event{Name: event.PullRequestReviewComment, Comment: c}, Trigger{ID: 5, Thread: 4}},
	} {
		if got := TriggerOf(tt.e); got != tt.want {
			t.Errorf("TriggerOf(%+v) = %+v, want %+v", tt.e, got, tt.want)
		}
	}
}
