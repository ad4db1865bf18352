package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// prComment is an issue_comment with the trigger phrase on pull request 7, looked up: its head
// is in the repository of the event, or in a fork.
func prComment(fork bool) *event.Event {
	pr := &event.PR{Number: 7, Title: "Add x", HeadRef: "feature", BaseRef: "main", HeadSHA: strings.Repeat("a", 40), HeadRepo: "o/r"}
	if fork {
		pr.HeadRepo, pr.Fork = "stranger/r", true
	}
	return &event.Event{Name: event.IssueComment, Action: "created", Actor: "maintainer", ActorType: "User", Repository: "o/r",
		Issue: &event.Issue{Number: 7, Title: "Add x", IsPR: true}, PR: pr, Comment: &event.Comment{ID: 11, Body: "/sandcastle fix it"}}
}

// TestOnPullRequest: a run on a pull request's own branch works in a worktree on its head
// branch, or for a fork's head or one on the default branch, on a branch of this repository
// named after the pull request and its head; any other run keeps its strategy and branch.
func TestOnPullRequest(t *testing.T) {
	t.Parallel()
	cfg := inputs.Config{BranchStrategy: inputs.StrategyHead, GitHub: inputs.GitHubConfig{OnPullRequest: true, Push: inputs.PushLease}}
	if got := onPullRequest(cfg, prComment(false).PR); got.BranchStrategy != inputs.StrategyBranch || got.Branch != "feature" || got.GitHub.Push != inputs.PushLease {
		t.Errorf("same repository: strategy %s, branch %q, push %s; want branch feature, with the lease kept", got.BranchStrategy, got.Branch, got.GitHub.Push)
	}
	if got := onPullRequest(cfg, prComment(true).PR); got.Branch != "sandcastle/pr-7-aaaaaaa" {
		t.Errorf("fork: branch %q, want sandcastle/pr-7-aaaaaaa", got.Branch)
	}
	if got := prBranch(&event.PR{Number: 8, Fork: true}); got != "sandcastle/pr-8" || gitref.Check(got) != nil {
		t.Errorf("a fork's head without a commit id: branch %q", got)
	}
	onMain := &event.PR{Number: 9, HeadRef: "main", BaseRef: "release", HeadSHA: strings.Repeat("b", 40), HeadRepo: "o/r", DefaultBranch: "main"}
	if got := onPullRequest(cfg, onMain); got.Branch != "sandcastle/pr-9-bbbbbbb" {
		t.Errorf("a head on the default branch: branch %q, want sandcastle/pr-9-bbbbbbb, never main", got.Branch)
	}
	if got := onPullRequest(cfg, nil); got.BranchStrategy != inputs.StrategyHead || got.Branch != "" {
		t.Errorf("no pull request: %s %q, want the config as it was", got.BranchStrategy, got.Branch)
	}
	off := cfg
	off.GitHub.OnPullRequest = false
	if got := onPullRequest(off, prComment(false).PR); got.BranchStrategy != inputs.StrategyHead {
		t.Errorf("a run not on a pull request's branch: strategy %s, want head", got.BranchStrategy)
	}
}

// TestRun_on_a_pull_request: the run on a same-repository pull request's branch reacts 👀 as it
// starts, then 🚀, pushes with a lease from the head it looked up; a fork's is refused unless
// allow-forks, and then its commits go to a branch of this repository, which the comment links.
func TestRun_on_a_pull_request(t *testing.T) {
	done := models.Text("Done. " + signal)
	t.Run("same_repository", func(t *testing.T) {
		r := prRig(t, false, done)
		o, err := r.run(t.Context())
		if err != nil || o.Status != report.StatusComplete || !o.Pushed || o.BranchURL != "" {
			t.Fatalf("Run = %+v, %v; want it complete and pushed, no link of its own", o, err)
		}
		if got := r.gh.reactions; !slices.Equal(got, []string{"+eyes", "-eyes", "+rocket"}) {
			t.Errorf("reactions %q, want eyes, then rocket in its place", got)
		}
		if p := r.pub.pushes[0]; p.Branch != "feature" || p.Lease != "lease-of-feature" {
			t.Errorf("push %+v; want feature with the lease", p)
		}
	})
	t.Run("fork_refused", func(t *testing.T) {
		r := prRig(t, true)
		r.ws.prepareErr = errors.New("a refused run prepares no workspace")
		o, err := r.run(t.Context())
		if err != nil || o.Status != report.StatusRefused || !strings.Contains(o.RefusalReason, "allow-forks") {
			t.Fatalf("Run = %+v, %v; want refused, naming allow-forks", o, err)
		}
		if len(r.gh.answers) != 1 || !strings.Contains(r.gh.answers[0], "stranger/r") || len(r.gh.reactions) != 0 || len(r.pub.pushes) != 0 {
			t.Errorf("answers %q, reactions %q, pushes %+v; want one answer naming the fork, nothing else", r.gh.answers, r.gh.reactions, r.pub.pushes)
		}
	})
	t.Run("fork_allowed", func(t *testing.T) {
		r := prRig(t, true, done)
		r.plan.Config.GitHub.AllowForks = true
		r.ws.source = "sandcastle/pr-7-aaaaaaa"
		r.pub.lease = func(branch, start, known string) string {
			if known != "" {
				t.Errorf("Lease(%q, %q, %q): a fork's head is no lease for a branch of this repository", branch, start, known)
			}
			return ""
		}
		o, err := r.run(t.Context())
		if err != nil || o.BranchURL != "https://github.com/o/r/tree/sandcastle/pr-7-aaaaaaa" {
			t.Fatalf("Run = %+v, %v; want the branch of this repository linked", o, err)
		}
		if !strings.Contains(r.prog.final, "[sandcastle/pr-7-aaaaaaa](https://github.com/o/r/tree/sandcastle/pr-7-aaaaaaa)") ||
			!strings.Contains(r.prog.final, "never pushed to") {
			t.Errorf("final comment:\n%s\nwant the branch linked, and the fork left alone", r.prog.final)
		}
	})
	t.Run("failed", func(t *testing.T) {
		r := prRig(t, false, done)
		r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{}, errors.New("push failed") }
		if _, err := r.run(t.Context()); err == nil {
			t.Fatal("Run = nil, want the push's failure")
		}
		if got := r.gh.reactions; !slices.Equal(got, []string{"+eyes", "-eyes", "+confused"}) {
			t.Errorf("reactions %q, want eyes, then confused in its place", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		r := prRig(t, false, models.Hang())
		ctx := r.cancelOnceTheAgentRuns(t)
		var c *CancelledError
		if _, err := r.run(ctx); !errors.As(err, &c) {
			t.Fatalf("Run = %v, want cancelled", err)
		}
		if got := r.gh.reactions; !slices.Equal(got, []string{"+eyes", "-eyes", "+confused"}) {
			t.Errorf("reactions %q, want eyes, then confused in its place, on a context the cancel does not end", got)
		}
	})
	t.Run("reactions_refused", func(t *testing.T) {
		r := prRig(t, false, done)
		r.gh.reactErr = errors.New("403 Resource not accessible by integration")
		if o, err := r.run(t.Context()); err != nil || o.Status != report.StatusComplete {
			t.Fatalf("Run = %+v, %v; want the run done all the same", o, err)
		}
		if !strings.Contains(r.stdout.String(), "reaction: 403 Resource not accessible by integration") {
			t.Errorf("the job log does not warn about the reaction:\n%s", r.stdout.String())
		}
	})
	t.Run("no_pull_request", func(t *testing.T) {
		r := prRig(t, false)
		r.plan.Event.Issue.IsPR, r.plan.Event.PR = false, nil
		r.ws.prepareErr = errors.New("a skipped run prepares no workspace")
		o, err := r.run(t.Context())
		if err != nil || o.Status != report.StatusSkipped || len(r.gh.answers) != 0 || len(r.gh.reactions) != 0 {
			t.Errorf("Run = %+v, %v, answers %q, reactions %q; want skipped quietly", o, err, r.gh.answers, r.gh.reactions)
		}
	})
}

// prRig is a run on pull request 7's branch, feature, from a comment: the agent, scripted by
// steps, commits, and the branch is pushed with a lease.
func prRig(t *testing.T, fork bool, steps ...models.Step) *rig {
	t.Helper()
	r := newRig(t, steps...)
	r.withGitHub(prComment(fork))
	r.plan.RepoURL = "https://github.com/o/r"
	r.plan.Config = onPullRequest(r.plan.Config, r.plan.Event.PR)
	r.plan.Config.GitHub.OnPullRequest, r.plan.Config.GitHub.Push = true, inputs.PushLease
	r.plan.Config.GitHub.TriggerPhrases = []string{"/sandcastle"}
	r.ws.source = "feature"
	r.ws.commits = []gitref.Commit{agentCommit}
	r.pub.lease = func(branch, start, known string) string {
		if branch != "feature" || known != strings.Repeat("a", 40) {
			t.Errorf("Lease(%q, %q, %q); want feature, known at the head looked up", branch, start, known)
		}
		return "lease-of-feature"
	}
	r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{Pushed: true, SHA: agentCommit.SHA}, nil }
	return r
}
