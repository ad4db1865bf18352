package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// fakeOutputs is GitHub for a triage: every issue exists and is open; the actions done are kept.
type fakeOutputs struct {
	t    *testing.T
	done []triage.Action
}

func (f *fakeOutputs) TriageIssue(context.Context, int, string) (triage.Issue, error) {
	return triage.Issue{Found: true}, nil
}

func (f *fakeOutputs) Triage(_ context.Context, a triage.Action) error {
	f.done = append(f.done, a)
	return nil
}

func (f *fakeOutputs) PRFiles(context.Context, int) ([]review.File, error) {
	f.t.Error("PRFiles: no review expected")
	return nil, nil
}

func (f *fakeOutputs) ReviewTexts(context.Context, int) ([]string, error) {
	f.t.Error("ReviewTexts: no review expected")
	return nil, nil
}

func (f *fakeOutputs) PostReview(context.Context, int, string, string, []review.Inline) (string, error) {
	f.t.Error("PostReview: no review expected")
	return "", nil
}

func (f *fakeOutputs) Unprocessable(error) bool { return false }

// triageRun runs a triage whose agent answers answer, in a sandbox of kind sandbox (a container
// that read the issues read, for docker), and returns what it did and the outcome.
func triageRun(t *testing.T, answer, sandbox string, read []int) ([]int, report.Outcome) {
	t.Helper()
	r := newRig(t, models.Text(`<result>`+answer+`</result> `+signal))
	r.withGitHub(labeled("maintainer", "go"))
	r.plan.Config.Sandbox = sandbox
	r.plan.Config.GitHub.OutputAction = inputs.OutputActionTriage
	r.plan.Config.GitHub.Triage = inputs.TriageConfig{MaxActions: 10}
	r.plan.Config.Output = &inputs.OutputConfig{Tag: "result", Type: inputs.OutputObject, Schema: []byte(triage.Schema)}
	spec, err := OutputSpec(r.plan.Config)
	if err != nil {
		t.Fatal(err)
	}
	r.plan.Output = spec
	r.sbx.container = &fakeContainer{guard: &fakeGuard{}, read: read}
	out := &fakeOutputs{t: t}
	d := r.deps()
	d.Outputs = out
	o, err := Run(t.Context(), r.plan, d)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, r.stdout.String())
	}
	var done []int
	for _, a := range out.done {
		done = append(done, a.Issue)
	}
	return done, o
}

// TestRun_triage_acts_on_what_it_read: a triage acts on the run's own issue and on those the
// sandbox read through the relay, and refuses, with the reason, an action on any other: an
// injected issue cannot steer the agent to close the rest.
func TestRun_triage_acts_on_what_it_read(t *testing.T) {
	done, o := triageRun(t, `{"issues": [{"issue": 42, "comment": "Ours."}, {"issue": 7, "close": "not_planned"}, {"issue": 8, "close": "completed"}]}`, inputs.SandboxDocker, []int{7})
	if !slices.Equal(done, []int{42, 7}) {
		t.Errorf("acted on %v; want #42 (the event's) and #7 (read), not #8", done)
	}
	if len(o.Actions) != 3 || o.Actions[2].Issue != 8 || !strings.Contains(o.Actions[2].Refused, "#8 was not read by this run") {
		t.Errorf("actions %+v; want the close of #8 refused as unread", o.Actions)
	}
}

// TestRun_triage_on_the_host_acts_on_any_issue: with sandbox none the agent runs beside the token
// and no relay sees its reads, so the read rule has nothing to keep and every issue counts.
func TestRun_triage_on_the_host_acts_on_any_issue(t *testing.T) {
	done, _ := triageRun(t, `{"issues": [{"issue": 7, "close": "not_planned"}, {"issue": 8, "close": "completed"}]}`, inputs.SandboxNone, nil)
	if !slices.Equal(done, []int{7, 8}) {
		t.Errorf("acted on %v; want #7 and #8", done)
	}
}
