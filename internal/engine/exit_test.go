package engine

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// recorder is the runner's Reporter with every outcome and summary it was asked to write kept.
type recorder struct {
	*runner.Reporter
	mu        sync.Mutex
	outputs   []report.Outcome
	summaries []string
}

func (r *recorder) SetOutputs(o report.Outcome) error {
	r.mu.Lock()
	r.outputs = append(r.outputs, o)
	r.mu.Unlock()
	return r.Reporter.SetOutputs(o)
}

func (r *recorder) Summary(markdown string) error {
	r.mu.Lock()
	r.summaries = append(r.summaries, markdown)
	r.mu.Unlock()
	return r.Reporter.Summary(markdown)
}

// TestRun_one_exit: whichever way a run ends, it writes its outputs and its job summary once,
// of the one outcome Run returns, whose status and failure follow from the error.
func TestRun_one_exit(t *testing.T) {
	tests := []struct {
		name   string
		steps  []models.Step
		set    func(r *rig)
		status report.Status
		fails  bool
	}{
		{"trigger_error", nil, func(r *rig) {
			r.withGitHub(labeled("maintainer", "go"))
			r.gh.permErr = errors.New("HTTP 500")
		}, report.StatusFailed, true},
		{"refusal", nil, func(r *rig) {
			r.withGitHub(labeled("stranger", "go"))
			r.plan.Config.GitHub.TriggerLabel, r.gh.permission = "go", "read"
		}, report.StatusRefused, false},
		{"skip", nil, func(r *rig) {
			r.withGitHub(labeled("maintainer", "bug"))
			r.plan.Config.GitHub.TriggerLabel = "go"
		}, report.StatusSkipped, false},
		{"prepare_fails", nil, func(r *rig) {
			r.withGitHub(labeled("maintainer", "go"))
			r.ws.prepareErr = errors.New("workspace: no room")
		}, report.StatusFailed, true},
		{"sandbox_fails", nil, func(r *rig) {
			r.sbx.containerErr = errors.New("sandbox: no daemon")
		}, report.StatusFailed, true},
		{"loop_fails", []models.Step{models.Error(500, "outage")}, func(r *rig) {
			r.withGitHub(labeled("maintainer", "go"))
		}, report.StatusFailed, true},
		{"publish_fails", []models.Step{models.Text("Done. " + signal)}, func(r *rig) {
			r.ws.commits = []gitref.Commit{agentCommit}
			r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{}, errors.New("push: rejected") }
		}, report.StatusFailed, true},
		{"success", []models.Step{models.Text("Done. " + signal)}, func(r *rig) {
			r.withGitHub(labeled("maintainer", "go"))
			r.ws.commits = []gitref.Commit{agentCommit}
		}, report.StatusComplete, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, tt.steps...)
			tt.set(r)
			rec := &recorder{Reporter: r.rep}
			d := r.deps()
			d.Reporter = rec
			o, err := Run(t.Context(), r.plan, d)
			t.Logf("run: %v\n%s", err, r.stdout.String())
			if (err != nil) != tt.fails || o.Status != tt.status {
				t.Fatalf("Run = status %s, %v; want %s, failing %v", o.Status, err, tt.status, tt.fails)
			}
			if err != nil && o.Failure != err.Error() {
				t.Errorf("failure %q, want the error %q", o.Failure, err)
			}
			if len(rec.outputs) != 1 || len(rec.summaries) != 1 {
				t.Fatalf("outputs written %d times, summary %d times; want each once", len(rec.outputs), len(rec.summaries))
			}
			if diff := cmp.Diff(o, rec.outputs[0]); diff != "" {
				t.Errorf("outputs written differ from the outcome returned (-returned +written):\n%s", diff)
			}
			if rec.summaries[0] != o.Summary() {
				t.Errorf("summary is not the outcome's:\n%s", rec.summaries[0])
			}
			if r.prog != nil && r.prog.final != "" && r.prog.final != o.Comment() {
				t.Errorf("final comment is not the outcome's:\n%s", r.prog.final)
			}
		})
	}
}
