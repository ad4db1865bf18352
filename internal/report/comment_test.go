package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// commits returns n commits of the agent.
func commits(n int) []gitref.Commit {
	cs := make([]gitref.Commit, n)
	for i := range cs {
		cs[i] = gitref.Commit{SHA: strings.Repeat(string(rune('a'+i)), 40), Subject: "work"}
	}
	return cs
}

// iterationsOf returns n iterations without usage.
func iterationsOf(n int) []Iteration {
	its := make([]Iteration, n)
	for i := range its {
		its[i].Number = i + 1
	}
	return its
}

func TestCommentGolden(t *testing.T) {
	const run = "https://github.com/o/r/actions/runs/1"
	tests := []struct {
		name string
		body string
	}{
		{"starting", Progress{RunURL: run}.Comment()},
		{"working", Progress{Iteration: 2, MaxIterations: 5, Commits: 1, LastTool: "Bash(go test ./... | tee `log` @octocat)", RunURL: run}.Comment()},
		{"done_with_pull_request", Outcome{Status: StatusComplete, Iterations: iterationsOf(2), MaxIterations: 5, Commits: commits(3),
			Branch: "sandcastle/issue-42", Pushed: true, PRNumber: 7, PRURL: "https://github.com/o/r/pull/7", RunURL: run}.Comment()},
		{"done_with_ready_pull_request", Outcome{Status: StatusComplete, Iterations: iterationsOf(1), MaxIterations: 5, Commits: commits(1),
			Branch: "sandcastle/issue-42", Pushed: true, PRNumber: 7, PRURL: "https://github.com/o/r/pull/7",
			PRNote: "opened ready for review, since this repository does not support draft pull requests"}.Comment()},
		{"failed_branch_moved", Outcome{Status: StatusBranchMoved, Iterations: iterationsOf(1), Commits: commits(1), Branch: "feature",
			RecoveryBranch: "sandcastle/recovery/feature-1-1", Failure: "push feature to origin: the remote branch changed"}.Comment()},
		{"failed_nothing_done", Outcome{Status: StatusFailed, Iterations: iterationsOf(1), Failure: "agent exited with code 1: <b>boom</b>"}.Comment()},
		{"failed_merge_kept_branch", Outcome{Status: StatusFailed, Iterations: iterationsOf(1), Commits: commits(2), Branch: "sandcastle/20260102-150405-a1b2c3", Kept: true,
			Failure: "workspace: merge sandcastle/20260102-150405-a1b2c3 into main: conflict"}.Comment()},
		{"done_on_a_forks_pull_request", Outcome{Status: StatusComplete, Iterations: iterationsOf(1), MaxIterations: 5, Commits: commits(2),
			Branch: "sandcastle/pr-7-abc1234", BranchURL: "https://github.com/o/r/tree/sandcastle/pr-7-abc1234", Pushed: true, RunURL: run}.Comment()},
		{"unverified", Outcome{Status: StatusUnverified, Iterations: iterationsOf(3), MaxIterations: 3, Commits: commits(2),
			Branch: "sandcastle/issue-42", Pushed: true, RunURL: run}.Comment()},
		{"budget_exhausted", Outcome{Status: StatusBudgetExhausted, Iterations: iterationsOf(2), MaxIterations: 5, Commits: commits(2),
			Branch: "sandcastle/issue-42", Pushed: true, RunURL: run,
			Failure: "budget run-minutes reached: the run took its 30 minute(s); the run stopped and keeps what was committed (raise the timeouts input's run-minutes to let it go on)"}.Comment()},
		{"refused", Outcome{Status: StatusRefused, RefusalReason: "octocat has read permission; write is needed"}.Comment()},
		{"reply", Outcome{Status: StatusComplete, Iterations: iterationsOf(1), MaxIterations: 5, Commits: commits(1),
			Branch: "feature", Pushed: true, RunURL: run, Final: "Renamed `Run` to `Start`, as asked.\n\nThe tests pass."}.Reply()},
		{"reply_nothing_changed", Outcome{Status: StatusComplete, Iterations: iterationsOf(1), MaxIterations: 5, Branch: "feature", RunURL: run,
			Final: "\nThe comment asks for a design decision, not a change to the code:\n- keep `Run`, or\n- rename it.\n"}.Reply()},
		{"reply_failed", Outcome{Status: StatusFailed, Iterations: iterationsOf(1), Branch: "feature", Failure: "push feature to origin: rejected",
			Commits: commits(1), Final: "Renamed `Run`."}.Reply()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", "comment", tt.name+".md"), tt.body)
		})
	}
}

func TestCommentAgentTextCannotMentionOrFormat(t *testing.T) {
	body := Progress{Iteration: 1, MaxIterations: 1, LastTool: "Bash(echo @everyone **x** [a](https://evil.example))"}.Comment()
	line := ""
	for l := range strings.Lines(body) {
		if strings.HasPrefix(l, "Last tool call:") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "Last tool call: `") || !strings.HasSuffix(strings.TrimSpace(line), "`") {
		t.Errorf("tool call line = %q, want it inside one code span", line)
	}
}

// TestReplyAgentTextStaysInTheQuote: through the gate's inerting and rendered as GitHub renders
// it, whatever the agent's answer holds (line breaks of every kind, a fence or an HTML block it
// leaves open, a closing tag, a list, a heading), it stays inside the quote, and the comment's
// own list and link follow it intact.
func TestReplyAgentTextStaysInTheQuote(t *testing.T) {
	final := "Done.\r- spoofed item\r\n# spoofed heading\n```\n<details>\n\n\n- spoofed too\n</blockquote>\n---"
	md := Outcome{Status: StatusComplete, Iterations: iterationsOf(1), Commits: commits(2), Branch: "feature", Pushed: true,
		RunURL: "https://github.com/o/r/actions/runs/1", Final: final}.Reply()
	html, err := testkit.Render(event.Inert(md))
	if err != nil {
		t.Fatal(err)
	}
	end := strings.Index(html, "</blockquote>\n<ul>")
	if end < 0 || strings.Count(html, "<blockquote>") != 1 || strings.Count(html, "</blockquote>") != 1 {
		t.Fatalf("want one quote, the comment's list right after it:\n%s", html)
	}
	if strings.LastIndex(html, "spoofed") > end {
		t.Errorf("the answer goes on after the quote:\n%s", html)
	}
	if rest := html[end:]; strings.Count(rest, "<li>") != 1 || !strings.Contains(rest, "<li>2 commits pushed to <code>feature</code></li>") ||
		!strings.Contains(rest, `<a href="https://github.com/o/r/actions/runs/1">Workflow run</a>`) {
		t.Errorf("the comment's own list and link, after the quote:\n%s", rest)
	}
}
