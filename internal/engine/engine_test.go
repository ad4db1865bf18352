package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

const signal = "<promise>COMPLETE</promise>"

var agentCommit = gitref.Commit{SHA: strings.Repeat("c", 40), Subject: "Agent work"}

// labeled is an issues/labeled event: sender labels issue 42 with label.
func labeled(sender, label string) *event.Event {
	kind := "User"
	if strings.HasSuffix(sender, "[bot]") {
		kind = "Bot"
	}
	return &event.Event{Name: "issues", Action: "labeled", Actor: sender, ActorType: kind, Label: label, Repository: "o/r",
		Issue: &event.Issue{Number: 42, Title: "Greet the world"}}
}

// TestRun_completes: the agent signals in its first iteration; the outcome has its commit,
// usage and session, the log says it, and nothing is pushed with push none.
func TestRun_completes(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.ws.commits = []gitref.Commit{agentCommit}
	o, err := r.run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := report.Outcome{Status: report.StatusComplete, Signal: signal, Branch: "work", BaseSHA: "base", HeadSHA: agentCommit.SHA,
		MaxIterations: 2, Final: "Done.", Commits: []gitref.Commit{agentCommit}, LogFile: r.ws.top + "/.sandcastle/logs/work.log"}
	// The session and the usage are the fake claude's; what they become is report's and run's.
	if diff := cmp.Diff(want, o, cmpopts.IgnoreFields(report.Outcome{}, "Iterations", "Usage", "SessionID")); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	if len(o.Iterations) != 1 || o.InputTokens != models.InputTokensPerReply || o.SessionID == "" {
		t.Errorf("iterations %+v, usage %+v, session %q; want one iteration, the reply's tokens and a session", o.Iterations, o.Usage, o.SessionID)
	}
	if got := r.ws.finishes; !slices.Equal(got, []bool{true}) {
		t.Errorf("Finish(ok) calls %v, want one with ok", got)
	}
	for _, w := range []string{"Started on branch work; log:", "Not pushing work: push is none", "Run complete after 1 iteration(s)", "status=complete"} {
		if !strings.Contains(r.stdout.String(), w) {
			t.Errorf("job log lacks %q", w)
		}
	}
	if log := r.logs[want.LogFile].String(); !strings.Contains(log, "--- Run started:") || !strings.Contains(log, "Done. "+signal) {
		t.Errorf("run log %q", log)
	}
	for _, h := range r.sbx.hosts {
		if err := h.Close(t.Context()); err != nil { // Close is idempotent: the run closed them
			t.Error(err)
		}
	}
}

// TestRun_refusal: an event its author may not start is answered on the issue, its trigger
// label taken off, and the run ends green without a workspace.
func TestRun_refusal(t *testing.T) {
	tests := []struct {
		name        string
		event       *event.Event
		permission  string
		wantStatus  report.Status
		wantAnswers int
		wantLabels  int
	}{
		{"read_permission", labeled("stranger", "go"), "read", report.StatusRefused, 1, 1},
		{"a_bot_is_never_answered", labeled("renovate[bot]", "go"), "write", report.StatusRefused, 0, 1},
		{"another_label_is_no_request", labeled("maintainer", "bug"), "write", report.StatusSkipped, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.withGitHub(tt.event)
			r.plan.Config.GitHub.TriggerLabel = "go"
			r.gh.permission = tt.permission
			r.ws.prepareErr = errors.New("a refused run prepares no workspace")
			o, err := r.run(t.Context())
			if err != nil || o.Status != tt.wantStatus || o.RefusalReason == "" {
				t.Fatalf("Run = %+v, %v; want %s with a reason", o, err, tt.wantStatus)
			}
			if len(r.gh.answers) != tt.wantAnswers || len(r.gh.labels) != tt.wantLabels {
				t.Errorf("answers %q, labels %v; want %d and %d", r.gh.answers, r.gh.labels, tt.wantAnswers, tt.wantLabels)
			}
			if tt.wantAnswers > 0 && (!strings.Contains(r.gh.answers[0], "did not run") || o.CommentURL == "") {
				t.Errorf("answer %q, comment-url %q", r.gh.answers[0], o.CommentURL)
			}
			if tt.wantLabels > 0 && !slices.Equal(r.gh.labels[0][1], []string{"go"}) {
				t.Errorf("labels %v, want the trigger label off", r.gh.labels)
			}
			if !strings.Contains(r.stdout.String(), "Not running ("+string(tt.wantStatus)+")") {
				t.Errorf("job log does not say why:\n%s", r.stdout.String())
			}
		})
	}
}

// TestRun_trigger_error: a permission that cannot be read fails the run before it starts.
func TestRun_trigger_error(t *testing.T) {
	r := newRig(t)
	r.withGitHub(labeled("maintainer", "go"))
	r.gh.permErr = errors.New("HTTP 500")
	o, err := r.run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "checking who may start the run: ") || o.Status != report.StatusFailed {
		t.Errorf("Run = %+v, %v; want a failed run", o, err)
	}
	r = newRig(t)
	r.plan.Event = labeled("maintainer", "go")
	if _, err := r.run(t.Context()); err == nil || !strings.Contains(err.Error(), "no github-token") {
		t.Errorf("Run without an API = %v; want the permission asked of nobody to fail", err)
	}
}

// TestRun_reports_on_the_issue: labels move at the start and the end, the comment follows the
// loop, tool call included, and ends with the outcome; a failure leaves the blocked label.
func TestRun_reports_on_the_issue(t *testing.T) {
	for _, failing := range []bool{false, true} {
		steps := []models.Step{models.Bash("echo work"), models.Text("Done. " + signal)}
		if failing {
			steps = []models.Step{models.Error(500, "outage")}
		}
		r := newRig(t, steps...)
		r.withGitHub(labeled("maintainer", "go"))
		r.plan.Config.GitHub.TriggerLabel, r.plan.Config.GitHub.InProgressLabel, r.plan.Config.GitHub.BlockedLabel = "go", "working", "blocked"
		r.gh.labelErr = errors.New("label refused")
		o, err := r.run(t.Context())
		if (err != nil) != failing || o.CommentURL == "" {
			t.Fatalf("failing %v: Run = %+v, %v", failing, o, err)
		}
		wantLast := [2][]string{nil, {"working"}}
		if failing {
			wantLast = [2][]string{{"blocked"}, {"working"}}
		}
		if len(r.gh.labels) != 2 || !slices.Equal(r.gh.labels[0][0], []string{"working"}) || !slices.Equal(r.gh.labels[1][0], wantLast[0]) || !slices.Equal(r.gh.labels[1][1], wantLast[1]) {
			t.Errorf("failing %v: labels %v", failing, r.gh.labels)
		}
		if !strings.Contains(r.stdout.String(), "labels: label refused") {
			t.Errorf("a label that fails is not warned about:\n%s", r.stdout.String())
		}
		if !strings.Contains(r.prog.started, "is starting") || !strings.Contains(r.prog.final, "Workflow run") {
			t.Errorf("comment started %q, ended %q", r.prog.started, r.prog.final)
		}
		if failing && !strings.Contains(r.prog.final, "stopped: failed") {
			t.Errorf("final comment %q, want the failure", r.prog.final)
		}
		if !failing && (!strings.Contains(r.prog.final, "finished: complete") || !slices.ContainsFunc(r.prog.shown, func(b string) bool { return strings.Contains(b, "Bash(echo work)") })) {
			t.Errorf("comments shown %q, final %q; want the tool call, then the outcome", r.prog.shown, r.prog.final)
		}
	}
}

// TestRun_progress_comment_refused: a comment GitHub refuses is warned about, and the run goes
// on without one.
func TestRun_progress_comment_refused(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.withGitHub(labeled("maintainer", "go"))
	r.prog.startErr = errors.New("403")
	o, err := r.run(t.Context())
	if err != nil || o.CommentURL != "" || r.prog.final != "" || !strings.Contains(r.stdout.String(), "progress comment: 403") {
		t.Errorf("Run = %+v, %v, final %q", o, err, r.prog.final)
	}
}

// TestRun_fails_before_the_agent: a workspace that cannot be made, or a log that cannot be
// opened, fails the run with the status said and the workspace finished; a log names its
// input.
func TestRun_fails_before_the_agent(t *testing.T) {
	r := newRig(t)
	r.ws.prepareErr = errors.New("workspace: no room")
	if o, err := r.run(t.Context()); err == nil || o.Status != report.StatusFailed || o.Failure != "workspace: no room" {
		t.Errorf("Run = %+v, %v", o, err)
	}
	r = newRig(t)
	r.plan.Config.LogFile = "/unwritable/run.log"
	o, err := r.run(t.Context())
	var re *inputs.RuntimeError
	if !errors.As(err, &re) || re.Input != inputs.InputLogFile || o.Status != report.StatusFailed {
		t.Errorf("Run = %+v, %v; want a log-file RuntimeError", o, err)
	}
	if !slices.Equal(r.ws.finishes, []bool{false}) {
		t.Errorf("Finish calls %v, want one that failed", r.ws.finishes)
	}
}

// TestRun_hook_fails: a hook that fails stops the run before the agent.
func TestRun_hook_fails(t *testing.T) {
	r := newRig(t)
	r.plan.Config.Hooks.WorktreeReady = []string{"exit 3"}
	if o, err := r.run(t.Context()); err == nil || !strings.Contains(err.Error(), "hook worktree-ready") || o.Status != report.StatusFailed || len(r.claude.Calls()) != 0 {
		t.Errorf("Run = %+v, %v", o, err)
	}
}

// TestRun_cancelled: a job cancelled while the agent works ends as cancelled, by the error's
// type, with the workspace finished as a failure.
func TestRun_cancelled(t *testing.T) {
	r := newRig(t, models.Hang())
	ctx := r.cancelOnceTheAgentRuns(t)
	r.pub.push = func(ctx context.Context, p Push) (Pushed, error) {
		if ctx.Err() != nil {
			t.Error("publishing runs on the cancelled context")
		}
		return Pushed{Declined: "push is none"}, nil
	}
	o, err := r.run(ctx)
	var c *CancelledError
	if !errors.As(err, &c) || o.Status != report.StatusCancelled || !slices.Equal(r.ws.finishes, []bool{false}) {
		t.Errorf("Run = %+v, %v, finishes %v; want cancelled", o, err, r.ws.finishes)
	}
}

// cancelOnceTheAgentRuns is a context that is cancelled once the agent has been started (a
// hanging one: the job is cancelled while it works).
func (r *rig) cancelOnceTheAgentRuns(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for r.claude.Used() == 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancel()
	}()
	return ctx
}

// TestRun_finish_fails: a merge that fails after the agent fails the run, with where the
// commits were kept.
func TestRun_finish_fails(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.plan.Config.BranchStrategy = inputs.StrategyMergeToHead
	r.ws.commits = []gitref.Commit{agentCommit}
	r.ws.finished = Finished{KeptBranch: "sandcastle/tmp", Preserved: "/w/tree"}
	r.ws.finishErr = errors.New("workspace: merge conflict")
	o, err := r.run(t.Context())
	if err == nil || o.Status != report.StatusFailed || o.Branch != "sandcastle/tmp" || !o.Kept || o.PreservedWorktree != "/w/tree" {
		t.Errorf("Run = %+v, %v", o, err)
	}
	for _, w := range []string{"the agent's commits were kept on branch sandcastle/tmp", "Run failed: workspace: merge conflict"} {
		if !strings.Contains(r.stdout.String(), w) {
			t.Errorf("job log lacks %q", w)
		}
	}
	if !strings.HasSuffix(o.LogFile, "/main-work.log") {
		t.Errorf("log file %q, want the merge-to-head name", o.LogFile)
	}
}

// TestRun_merged: merge-to-head's commits are on the target after the run.
func TestRun_merged(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.ws.commits = []gitref.Commit{agentCommit}
	r.ws.finished = Finished{Merged: true, MergeCommit: "merge"}
	o, err := r.run(t.Context())
	if err != nil || o.Branch != "main" || o.HeadSHA != "merge" {
		t.Errorf("Run = %+v, %v; want the commits on main at the merge", o, err)
	}
}
