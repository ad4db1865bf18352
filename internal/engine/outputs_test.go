package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// fakeOutputs is GitHub for a triage or a review: every issue exists and is open, each action
// and review is kept, and the funcs the test sets decide how GitHub answers; an unset func
// reports the call as an error where the test expects none.
type fakeOutputs struct {
	t      *testing.T
	triage func(triage.Action) error // nil: every action is done
	files  []review.File             // the pull request's
	posted []string                  // the review texts earlier runs posted
	post   func(body string, comments []review.Inline) (string, error)
	done   []triage.Action
	posts  []post
}

// post is one review posted, or tried.
type post struct {
	Number         int
	Commit, Body   string
	InlineComments int
}

// errUnprocessable is GitHub's 422 for a comment on a line outside the diff.
var errUnprocessable = errors.New("422 Unprocessable Entity: pull_request_review_thread.line must be part of the diff")

func (f *fakeOutputs) TriageIssue(context.Context, int, string) (triage.Issue, error) {
	return triage.Issue{Found: true}, nil
}

func (f *fakeOutputs) Triage(_ context.Context, a triage.Action) error {
	f.done = append(f.done, a)
	if f.triage == nil {
		return nil
	}
	return f.triage(a)
}

func (f *fakeOutputs) PRFiles(context.Context, int) ([]review.File, error) {
	if f.post == nil {
		f.t.Error("PRFiles: no review expected")
	}
	return f.files, nil
}

func (f *fakeOutputs) ReviewTexts(context.Context, int) ([]string, error) { return f.posted, nil }

func (f *fakeOutputs) PostReview(_ context.Context, number int, commit, body string, comments []review.Inline) (string, error) {
	f.posts = append(f.posts, post{Number: number, Commit: commit, Body: body, InlineComments: len(comments)})
	if f.post == nil {
		f.t.Error("PostReview: no review expected")
		return "", nil
	}
	return f.post(body, comments)
}

func (f *fakeOutputs) Unprocessable(err error) bool { return errors.Is(err, errUnprocessable) }

// outputRun is a run whose agent answers with output inside <result> for output-action action,
// whose JSON Schema is schema, carried out by out.
func outputRun(t *testing.T, output, action, schema string, out *fakeOutputs) *rig {
	t.Helper()
	r := newRig(t, models.Text("<result>"+output+"</result> "+signal))
	r.withGitHub(labeled("maintainer", "go"))
	r.plan.Config.GitHub.OutputAction = action
	r.plan.Config.GitHub.Triage = inputs.TriageConfig{MaxActions: 10}
	r.plan.Config.Output = &inputs.OutputConfig{Tag: "result", Type: inputs.OutputObject, Schema: []byte(schema)}
	spec, err := outputSpec(r.plan.Config)
	if err != nil {
		t.Fatal(err)
	}
	r.plan.Output = spec
	r.outputs = out
	return r
}

// TestRun_triage_acts_on_what_it_read: a triage acts on the run's own issue and on those the
// sandbox read through the relay, and refuses, with the reason, an action on any other: an
// injected issue cannot steer the agent to close the rest.
func TestRun_triage_acts_on_what_it_read(t *testing.T) {
	out := &fakeOutputs{t: t}
	r := outputRun(t, `{"issues": [{"issue": 42, "comment": "Ours."}, {"issue": 7, "close": "not_planned"}, {"issue": 8, "close": "completed"}]}`,
		inputs.OutputActionTriage, triage.Schema, out)
	r.sbx.container = &fakeContainer{guard: &fakeGuard{}, read: []int{7}}
	o, err := r.run(t.Context())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if done := issuesOf(out.done); !slices.Equal(done, []int{42, 7}) {
		t.Errorf("acted on %v; want #42 (the event's) and #7 (read), not #8", done)
	}
	if len(o.Actions) != 3 || o.Actions[2].Issue != 8 || !strings.Contains(o.Actions[2].Refused, "#8 was not read by this run") {
		t.Errorf("actions %+v; want the close of #8 refused as unread", o.Actions)
	}
	if !strings.Contains(r.stdout.String(), `triage: not doing close "completed" on #8`) {
		t.Errorf("the refusal is not in the log:\n%s", r.stdout.String())
	}
}

// TestRun_triage_on_the_host_acts_on_any_issue: with sandbox none the agent runs beside the token
// and no relay sees its reads, so the read rule has nothing to keep and every issue counts.
func TestRun_triage_on_the_host_acts_on_any_issue(t *testing.T) {
	out := &fakeOutputs{t: t}
	r := outputRun(t, `{"issues": [{"issue": 7, "close": "not_planned"}, {"issue": 8, "close": "completed"}]}`, inputs.OutputActionTriage, triage.Schema, out)
	if _, err := r.run(t.Context()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if done := issuesOf(out.done); !slices.Equal(done, []int{7, 8}) {
		t.Errorf("acted on %v; want #7 and #8", done)
	}
}

// TestRun_triage_action_fails: an action GitHub fails is kept with its failure and warned about,
// the others are done, and the run does its job all the same; the triaged label goes on every
// issue an action was planned for (triage.Touched), the failed one's included.
func TestRun_triage_action_fails(t *testing.T) {
	out := &fakeOutputs{t: t, triage: func(a triage.Action) error {
		if a.Issue == 7 && a.Kind != triage.AddLabel {
			return errors.New("HTTP 502")
		}
		return nil
	}}
	r := outputRun(t, `{"issues": [{"issue": 7, "close": "not_planned"}, {"issue": 42, "comment": "Ours."}]}`, inputs.OutputActionTriage, triage.Schema, out)
	r.plan.Config.GitHub.Triage.TriagedLabel = "triaged"
	o, err := r.run(t.Context())
	if err != nil || o.Status != report.StatusComplete {
		t.Fatalf("Run = %s, %v; want a complete run", o.Status, err)
	}
	if len(o.Actions) != 2 || o.Actions[0].Failed != "HTTP 502" || o.Actions[1].Failed != "" {
		t.Errorf("actions %+v; want the close of #7 failed, the comment on #42 done", o.Actions)
	}
	if !strings.Contains(r.stdout.String(), "triage: close on #7 failed: HTTP 502") {
		t.Errorf("the failure is not warned about:\n%s", r.stdout.String())
	}
	var labelled []int
	for _, a := range out.done {
		if a.Kind == triage.AddLabel && a.Value == "triaged" {
			labelled = append(labelled, a.Issue)
		}
	}
	if !slices.Equal(labelled, []int{7, 42}) {
		t.Errorf("triaged label put on %v; want #7 and #42, the issues actions were planned for", labelled)
	}
}

// reviewEvent is a pull_request event on pull request 5, whose head is at "head-sha".
func reviewEvent() *event.Event {
	return &event.Event{Name: event.PullRequest, Action: "opened", Actor: "maintainer", ActorType: "User", Repository: "o/r",
		PR: &event.PR{Number: 5, Title: "Greet", HeadRef: "feature", BaseRef: "main", HeadSHA: "head-sha"}}
}

// TestRun_review_flat_after_422: GitHub refusing a comment on its line (a 422) does not lose
// the review: it goes out again with every comment in its body, and the outcome says so.
func TestRun_review_flat_after_422(t *testing.T) {
	out := &fakeOutputs{t: t, files: []review.File{{Path: "a.go", Patch: "@@ -1,1 +1,2 @@\n line\n+added"}}}
	out.post = func(_ string, comments []review.Inline) (string, error) {
		if len(comments) > 0 {
			return "", errUnprocessable
		}
		return "https://github.com/o/r/pull/5#pullrequestreview-1", nil
	}
	r := outputRun(t, `{"summary": "Looks fine.", "comments": [{"path": "a.go", "line": 2, "body": "Name it better."}]}`, inputs.OutputActionReview, review.Schema, out)
	r.plan.Event = reviewEvent()
	o, err := r.run(t.Context())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := []post{{Number: 5, Commit: "head-sha", InlineComments: 1}, {Number: 5, Commit: "head-sha"}}
	if diff := cmp.Diff(want, out.posts, cmpIgnoreBody); diff != "" {
		t.Errorf("reviews posted (-want +got):\n%s", diff)
	}
	if n := len(out.posts); n != 2 || !strings.Contains(out.posts[1].Body, "Name it better.") {
		t.Errorf("the flat review's body lacks the comment: %+v", out.posts)
	}
	wantReview := &report.Review{PR: 5, Inline: 0, Moved: 1, URL: "https://github.com/o/r/pull/5#pullrequestreview-1"}
	if diff := cmp.Diff(wantReview, o.Review); diff != "" {
		t.Errorf("review outcome (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stdout.String(), "GitHub refused a comment on its line") {
		t.Errorf("the fallback is not warned about:\n%s", r.stdout.String())
	}
}

// TestRun_review_refused: a review GitHub refuses for another reason fails the run, with the
// error; no flat review is tried.
func TestRun_review_refused(t *testing.T) {
	out := &fakeOutputs{t: t, files: []review.File{{Path: "a.go", Patch: "@@ -1,1 +1,2 @@\n line\n+added"}}}
	out.post = func(string, []review.Inline) (string, error) {
		return "", errors.New("403 Resource not accessible by integration")
	}
	r := outputRun(t, `{"summary": "Looks fine.", "comments": [{"path": "a.go", "line": 2, "body": "Name it better."}]}`, inputs.OutputActionReview, review.Schema, out)
	r.plan.Event = reviewEvent()
	o, err := r.run(t.Context())
	if err == nil || o.Status != report.StatusFailed || !strings.Contains(o.Failure, "403") || len(out.posts) != 1 {
		t.Errorf("Run = %s %q, %v after %d post(s); want one refused post failing the run", o.Status, o.Failure, err, len(out.posts))
	}
}

// TestRun_review_without_a_pull_request: a review of an event about no pull request names the
// input to change.
func TestRun_review_without_a_pull_request(t *testing.T) {
	r := outputRun(t, `{"summary": "Looks fine."}`, inputs.OutputActionReview, review.Schema, &fakeOutputs{t: t})
	_, err := r.run(t.Context())
	var re *inputs.RuntimeError
	if !errors.As(err, &re) || re.Input != inputs.InputOutputAction {
		t.Errorf("Run = %v; want an output-action RuntimeError", err)
	}
}

// cmpIgnoreBody compares posts without their bodies, which the review package renders.
var cmpIgnoreBody = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Body" }, cmp.Ignore())

func issuesOf(actions []triage.Action) []int {
	var n []int
	for _, a := range actions {
		n = append(n, a.Issue)
	}
	return n
}
