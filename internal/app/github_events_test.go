package app

import (
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestOwnEventsStartNothing: with a token whose events start workflows (a personal access
// token, an App's), every label a run moves, every comment it posts or edits and the pull
// request it opens, edits or pushes to come back as events. None of them starts a run, even
// without a trigger label and with a trigger phrase in the progress comment's text.
func TestOwnEventsStartNothing(t *testing.T) {
	progress := "**Sandcastle** is working: iteration 1 of 3.\n\nLast tool call: `grep -r @sandcastle`\n\n<!-- sandcastle:Sandcastle:agent -->"
	issue := map[string]any{"number": 42, "title": "Greet", "body": "", "state": "open"}
	pr := map[string]any{"number": 43, "title": "Fix #42: Greet", "body": "Closes #42\n\n<!-- sandcastle:pr:sandcastle/issue-42 -->",
		"head": map[string]any{"ref": "sandcastle/issue-42", "sha": strings.Repeat("a", 40), "repo": map[string]any{"full_name": ghRepo}},
		"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": ghRepo}}}
	sender := map[string]any{"login": "maintainer", "type": "User"} // the owner of the token
	repo := map[string]any{"full_name": ghRepo}
	tests := []struct {
		name, event string
		payload     map[string]any
	}{
		{"progress_comment_posted", "issue_comment", map[string]any{"action": "created", "issue": issue,
			"comment": map[string]any{"body": progress}, "sender": sender, "repository": repo}},
		{"progress_comment_edited", "issue_comment", map[string]any{"action": "edited", "issue": issue,
			"comment": map[string]any{"body": progress}, "sender": sender, "repository": repo}},
		{"in_progress_label_added", "issues", map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle:in-progress"},
			"issue": issue, "sender": sender, "repository": repo}},
		{"blocked_label_added", "issues", map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle:blocked"},
			"issue": issue, "sender": sender, "repository": repo}},
		{"in_progress_label_removed", "issues", map[string]any{"action": "unlabeled", "label": map[string]any{"name": "sandcastle:in-progress"},
			"issue": issue, "sender": sender, "repository": repo}},
		{"pull_request_opened", "pull_request", map[string]any{"action": "opened", "pull_request": pr, "sender": sender, "repository": repo}},
		{"pull_request_edited", "pull_request", map[string]any{"action": "edited", "pull_request": pr, "sender": sender, "repository": repo}},
		{"pull_request_pushed_to", "pull_request", map[string]any{"action": "synchronize", "pull_request": pr, "sender": sender, "repository": repo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newFakeAction(t) // a claude with no script: it fails the run if it runs
			g := withGitHub(t, a, ghToken)
			g.api.SetPermission("maintainer", "admin")
			g.api.SetLabels(42, "bug")
			g.event(t, tt.event, tt.payload)
			a.input("prompt", "never sent")
			a.input("branch-strategy", "branch")
			a.input("branch", "sandcastle/issue-42")
			a.input("in-progress-label", "sandcastle:in-progress")
			a.input("blocked-label", "sandcastle:blocked")
			before := stateOf(t, a.env, a.dir)

			_, out := a.runWant(0)
			if out["status"] != "skipped" || out["refusal-reason"] == "" {
				t.Errorf("outputs %v; want skipped, with the reason", out)
			}
			if got := stateOf(t, a.env, a.dir); got != before {
				t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", before, got)
			}
			for _, call := range [][2]string{
				{"POST", "/repos/{owner}/{repo}/issues/{number}/comments"},
				{"POST", "/repos/{owner}/{repo}/issues/{number}/labels"},
				{"DELETE", "/repos/{owner}/{repo}/issues/{number}/labels/{name}"},
				{"GET", "/repos/{owner}/{repo}/collaborators/{user}/permission"},
			} {
				if n := g.api.Calls(call[0], call[1]); n != 0 {
					t.Errorf("%s %s: %d calls; an event of the action's own asks GitHub nothing", call[0], call[1], n)
				}
			}
		})
	}
}

// TestAppBotStartsRunsOnlyWhenAllowed: a GitHub App's bot is never a collaborator, so its
// permission is always none. * in allowed-bots admits it without that look-up; without it
// (or allowed-bots) it is refused, quietly, since a bot is never answered.
func TestAppBotStartsRunsOnlyWhenAllowed(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(map[bool]string{true: "allow_bots", false: "not_allowed"}[allow], func(t *testing.T) {
			var steps []models.Step
			if allow {
				steps = []models.Step{commitBash("work.txt", "bot", "Bot-requested work"), models.Text("Done. " + signal)}
			}
			a := newAction(t, steps...)
			if !allow {
				a.env["PATH"] = hermeticEnv(t)["PATH"]
			}
			g := withGitHub(t, a, ghToken)
			payload := labeledIssue("triage-app[bot]", "sandcastle", "Work")
			payload["sender"] = map[string]any{"login": "triage-app[bot]", "type": "Bot"}
			g.event(t, "issues", payload)
			a.input("prompt", "Work, commit, then print "+signal)
			a.input("trigger-label", "sandcastle")
			a.input("branch-strategy", "branch")
			a.input("branch", "sandcastle/issue-42")
			if allow {
				a.input("allowed-bots", "*")
			}

			_, out := a.runWant(0)
			want := map[bool]string{true: "complete", false: "refused"}[allow]
			if out["status"] != want {
				t.Errorf("status %q (%s), want %s", out["status"], out["refusal-reason"], want)
			}
			if allow && g.remoteSHA(t, "sandcastle/issue-42") != out["head-sha"] {
				t.Errorf("the bot's run did not push its commit")
			}
			if !allow && len(g.api.Comments(42)) != 0 {
				t.Errorf("a refused bot was answered: %+v", g.api.Comments(42))
			}
		})
	}
}

// TestRefuseIfOpenPROnlyForClosingPRs: a collaborator's open pull request that merely mentions
// the issue does not hold a run back; one whose description would close it does.
func TestRefuseIfOpenPROnlyForClosingPRs(t *testing.T) {
	a := newFakeAction(t, models.Text("Nothing to do."))
	g := withGitHub(t, a, ghToken)
	g.maintainerLabels(t)
	g.api.AddLinkedPR(42, githubfake.LinkedPR{Number: 7, Author: "alice", AuthorAssociation: "COLLABORATOR", Body: "Groundwork for #42; see there."})
	a.input("branch-strategy", "branch")
	a.input("branch", "sandcastle/issue-42")
	if _, out := a.runWant(0); out["status"] == "refused" {
		t.Errorf("a mention held the run back: %s", out["refusal-reason"])
	}
	g.api.AddLinkedPR(42, githubfake.LinkedPR{Number: 8, Author: "bob", AuthorAssociation: "MEMBER", Body: "Fixes #42"})
	writeFile(t, a.outputs, "")
	if _, out := a.runWant(0); out["status"] != "refused" || !strings.Contains(out["refusal-reason"], "pull request #8") || !strings.Contains(out["refusal-reason"], "by collaborator bob") {
		t.Errorf("outputs %v; want the closing pull request #8 to refuse the run", out)
	}
}
