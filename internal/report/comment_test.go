package report

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCommentBodyGolden(t *testing.T) {
	tests := []struct {
		name    string
		comment Comment
	}{
		{name: "starting", comment: Comment{Phase: PhaseWorking, RunURL: "https://github.com/o/r/actions/runs/1"}},
		{
			name: "working",
			comment: Comment{Phase: PhaseWorking, Iteration: 2, MaxIterations: 5, Commits: 1,
				LastTool: "Bash(go test ./... | tee `log` @octocat)", RunURL: "https://github.com/o/r/actions/runs/1"},
		},
		{
			name: "done_with_pull_request",
			comment: Comment{Phase: PhaseDone, Status: "complete", Iteration: 2, MaxIterations: 5, Commits: 3,
				Branch: "sandcastle/issue-42", Pushed: true, PRNumber: 7, PRURL: "https://github.com/o/r/pull/7",
				RunURL: "https://github.com/o/r/actions/runs/1"},
		},
		{
			name: "done_with_ready_pull_request",
			comment: Comment{Phase: PhaseDone, Status: "complete", Iteration: 1, MaxIterations: 5, Commits: 1,
				Branch: "sandcastle/issue-42", Pushed: true, PRNumber: 7, PRURL: "https://github.com/o/r/pull/7",
				PRNote: "opened ready for review, since this repository does not support draft pull requests"},
		},
		{
			name: "failed_branch_moved",
			comment: Comment{Phase: PhaseFailed, Status: "branch-moved", Iteration: 1, Commits: 1, Branch: "feature",
				Recovery: "sandcastle/recovery/feature-1-1", Reason: "push feature to origin: the remote branch changed"},
		},
		{
			name:    "failed_nothing_done",
			comment: Comment{Phase: PhaseFailed, Status: "failed", Iteration: 1, Reason: "agent exited with code 1: <b>boom</b>"},
		},
		{name: "refused", comment: Comment{Phase: PhaseRefused, Reason: "octocat has read permission; write is needed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, filepath.Join("testdata", "comment", tt.name+".md"), CommentBody(tt.comment))
		})
	}
}

func TestCommentBodyAgentTextCannotMentionOrFormat(t *testing.T) {
	body := CommentBody(Comment{Phase: PhaseWorking, Iteration: 1, MaxIterations: 1, LastTool: "Bash(echo @everyone **x** [a](https://evil.example))"})
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
