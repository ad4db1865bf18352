package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// movedError is a push that found the remote branch moved, as push.BranchMovedError tells it.
type movedError struct{}

func (movedError) Error() string {
	return "push work to origin: the remote branch changed since the run started"
}
func (movedError) BranchMoved() bool { return true }

// TestRun_publishes: what the push did reaches the outcome and the log, and the pull request
// is opened only after a push of a run that did its job. Each row declares the push's result
// and what the run then says.
func TestRun_publishes(t *testing.T) {
	tests := []struct {
		name       string
		failRun    bool
		openPR     bool
		pushed     Pushed
		pushErr    error
		wantStatus report.Status
		wantErr    bool
		wantLog    string
		wantPR     bool
	}{
		{name: "declined", pushed: Pushed{Declined: "push auto pushes only in GitHub Actions"}, wantStatus: report.StatusComplete,
			wantLog: "Not pushing work: push auto pushes only in GitHub Actions"},
		{name: "declined_with_open_pr", openPR: true, pushed: Pushed{Declined: "push is none"}, wantStatus: report.StatusComplete,
			wantLog: "open-pr: no pull request, because work was not pushed: push is none"},
		{name: "pushed", pushed: Pushed{Pushed: true, SHA: agentCommit.SHA}, wantStatus: report.StatusComplete, wantLog: "Pushed work (ccccccc)"},
		{name: "up_to_date", pushed: Pushed{Skipped: "origin already has work at ccccccc"}, wantStatus: report.StatusComplete, wantLog: "Not pushed: origin already has work"},
		{name: "branch_moved", pushed: Pushed{Recovery: "sandcastle/recovery/work-1-1"}, pushErr: movedError{}, wantStatus: report.StatusBranchMoved, wantErr: true,
			wantLog: "Run branch-moved: push work to origin"},
		{name: "refused", pushErr: errors.New("push: authentication failed"), wantStatus: report.StatusFailed, wantErr: true, wantLog: "Run failed: push: authentication failed"},
		{name: "a_failed_run_still_pushes", failRun: true, openPR: true, pushed: Pushed{Pushed: true, SHA: agentCommit.SHA}, wantStatus: report.StatusFailed, wantErr: true,
			wantLog: "Pushed work"},
		{name: "a_failed_run_stays_failed", failRun: true, pushErr: movedError{}, wantStatus: report.StatusFailed, wantErr: true, wantLog: "warning: push work to origin"},
		{name: "pull_request", openPR: true, pushed: Pushed{Pushed: true, SHA: agentCommit.SHA}, wantStatus: report.StatusComplete, wantPR: true,
			wantLog: "Opened pull request #7 (opened ready for review, since this repository does not support draft pull requests): https://github.com/o/r/pull/7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step := models.Text("Done. " + signal)
			if tt.failRun {
				step = models.Error(500, "outage")
			}
			r := newRig(t, step)
			r.ws.commits = []gitref.Commit{agentCommit}
			r.plan.Config.GitHub.OpenPR, r.plan.RunTag = tt.openPR, "4242-1"
			r.pub.push = func(context.Context, Push) (Pushed, error) { return tt.pushed, tt.pushErr }
			var pr PR
			r.pub.upsertPR = func(_ context.Context, p PR) (OpenedPR, error) {
				pr = p
				return OpenedPR{Number: 7, URL: "https://github.com/o/r/pull/7", Created: true, DraftRefused: true}, nil
			}
			o, err := r.run(t.Context())
			if (err != nil) != tt.wantErr || o.Status != tt.wantStatus || o.Pushed != tt.pushed.Pushed || o.RecoveryBranch != tt.pushed.Recovery {
				t.Errorf("Run = %+v, %v; want %s", o, err, tt.wantStatus)
			}
			if !strings.Contains(r.stdout.String(), tt.wantLog) {
				t.Errorf("job log lacks %q", tt.wantLog)
			}
			if got := r.pub.pushes[0]; got.Branch != "work" || got.Commits != 1 || got.Since != "base" || got.Recovery != "sandcastle/recovery/work-4242-1" || !strings.HasSuffix(got.Bundle, "/.sandcastle/logs/work-4242-1.bundle") {
				t.Errorf("push %+v", got)
			}
			if (pr.Head != "") != tt.wantPR {
				t.Fatalf("pull request %+v, want one: %v", pr, tt.wantPR)
			}
			if tt.wantPR && (pr.Base != "main" || pr.Title != "Agent work" || !strings.Contains(pr.Body, "Done.") || o.PRNumber != 7 || o.PRNote == "") {
				t.Errorf("pull request %+v, outcome %+v", pr, o)
			}
		})
	}
}

// TestRun_pull_request_base: the base is pr-base, the branch the run started from, or the
// event's pull request's; with none the run fails naming pr-base, and a pull request GitHub
// refuses fails it too.
func TestRun_pull_request_base(t *testing.T) {
	tests := []struct {
		name, prBase, target string
		event                *event.Event
		upsertErr            error
		wantBase             string
		wantInput            string
	}{
		{name: "input_wins", prBase: "release", target: "main", wantBase: "release"},
		{name: "the_start", target: "main", wantBase: "main"},
		{name: "the_pull_requests_base", target: "work", event: &event.Event{Name: "workflow_dispatch", PR: &event.PR{Number: 5, HeadRef: "work", BaseRef: "develop"}}, wantBase: "develop"},
		{name: "none", target: "work", wantInput: inputs.InputPRBase},
		{name: "refused", target: "main", wantBase: "main", upsertErr: errors.New("HTTP 422")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, models.Text("Done. "+signal))
			r.ws.commits, r.ws.target = []gitref.Commit{agentCommit}, tt.target
			r.plan.Config.GitHub.OpenPR, r.plan.Config.GitHub.PRBase, r.plan.Event = true, tt.prBase, tt.event
			r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{Pushed: true}, nil }
			var base string
			r.pub.upsertPR = func(_ context.Context, p PR) (OpenedPR, error) {
				base = p.Base
				return OpenedPR{Number: 3, URL: "u"}, tt.upsertErr
			}
			o, err := r.run(t.Context())
			var re *inputs.RuntimeError
			switch {
			case tt.wantInput != "":
				if !errors.As(err, &re) || re.Input != tt.wantInput || o.Status != report.StatusFailed {
					t.Errorf("Run = %+v, %v; want a RuntimeError of %s", o, err, tt.wantInput)
				}
			case tt.upsertErr != nil:
				if !errors.Is(err, tt.upsertErr) || o.Status != report.StatusFailed {
					t.Errorf("Run = %v; want the refusal", err)
				}
			case err != nil || base != tt.wantBase || !strings.Contains(r.stdout.String(), "Updated pull request #3: u"):
				t.Errorf("Run = %v, base %q; want %q", err, base, tt.wantBase)
			}
		})
	}
}

// TestRun_pull_request_template_fails_at_runtime: a template that cannot be filled once the run
// started is no bad input: it names its input and fails the run.
func TestRun_pull_request_template_fails_at_runtime(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.ws.commits = []gitref.Commit{agentCommit}
	r.plan.Config.GitHub.OpenPR, r.plan.Config.GitHub.PRBody = true, "{{NOT_A_KEY}}"
	r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{Pushed: true}, nil }
	_, err := r.run(t.Context())
	var re *inputs.RuntimeError
	var p *inputs.Problem
	if !errors.As(err, &re) || re.Input != inputs.InputPRBody || errors.As(err, &p) {
		t.Errorf("Run = %v; want a RuntimeError of pr-body", err)
	}
}

// TestRun_lease: a lease push is given where the remote branch was when the run started, the
// event's pull request head when the branch is its own.
func TestRun_lease(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.ws.commits = []gitref.Commit{agentCommit}
	r.plan.Config.GitHub.Push = inputs.PushLease
	r.plan.Event = &event.Event{Name: "workflow_dispatch", PR: &event.PR{Number: 5, HeadRef: "work", HeadSHA: "head-of-the-pr"}}
	r.pub.lease = func(branch, start, known string) string {
		if branch != "work" || start != "base" || known != "head-of-the-pr" {
			t.Errorf("Lease(%q, %q, %q)", branch, start, known)
		}
		return "remote"
	}
	r.pub.push = func(_ context.Context, p Push) (Pushed, error) { return Pushed{Pushed: true}, nil }
	if _, err := r.run(t.Context()); err != nil || r.pub.pushes[0].Lease != "remote" {
		t.Errorf("Run = %v, push %+v; want the lease passed on", err, r.pub.pushes)
	}
}
