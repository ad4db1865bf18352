package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

func TestSummaryGolden(t *testing.T) {
	tests := []struct {
		name string
		run  Outcome
	}{
		{
			name: "complete_signal_commits",
			run: Outcome{
				Status:        StatusComplete,
				Branch:        "sandcastle/fix-login",
				Signal:        "<promise>COMPLETE</promise>",
				MaxIterations: 5,
				Iterations: []Iteration{
					{Number: 1, Usage: agent.Usage{InputTokens: 12000, OutputTokens: 3400, CacheReadTokens: 150000, CacheCreationTokens: 9000, CostUSD: 0.1834}},
					{Number: 2, Signal: "<promise>COMPLETE</promise>", Usage: agent.Usage{InputTokens: 800, OutputTokens: 1200, CacheReadTokens: 160000, CostUSD: 0.05}},
				},
				Commits: []gitref.Commit{
					{SHA: "3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49", Subject: "Fix login redirect"},
					{SHA: "9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a00", Subject: "Add regression test for session_timeout"},
				},
				Output:  &structured.Value{JSON: []byte(`{"summary":"Fixed the redirect","files":["login.go","login_test.go"]}`)},
				LogFile: ".sandcastle/logs/main.log",
			},
		},
		{
			name: "incomplete_no_signal",
			run: Outcome{
				Status:        StatusIncomplete,
				Branch:        "main",
				MaxIterations: 3,
				Iterations: []Iteration{
					{Number: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 50}},
					{Number: 2, Usage: agent.Usage{InputTokens: 200, OutputTokens: 60, CostUSD: 0.01}},
					{Number: 3, Usage: agent.Usage{InputTokens: 300, OutputTokens: 70, CostUSD: 0.02}},
				},
				Commits: []gitref.Commit{{SHA: "abc1234", Subject: "WIP"}},
			},
		},
		{
			name: "failed_preserved_worktree",
			run: Outcome{
				Status:            StatusFailed,
				Branch:            "sandcastle/20260102-150405-a1b2c3",
				MaxIterations:     1,
				Iterations:        []Iteration{{Number: 1, Usage: agent.Usage{InputTokens: 5000, OutputTokens: 20, CostUSD: 0.000001}}},
				PreservedWorktree: ".sandcastle/worktrees/sandcastle-20260102-150405-a1b2c3",
			},
		},
		{
			name: "hostile_agent_text",
			run: Outcome{
				Status:        StatusComplete,
				Branch:        "feat/a|b`c",
				Signal:        "`DONE` | <b>",
				MaxIterations: 1,
				Iterations:    []Iteration{{Number: 1, Signal: "`DONE` | <b>"}},
				Commits: []gitref.Commit{
					{SHA: "1111111111", Subject: "![x](https://evil.example/p.png) <details><summary>open"},
					{SHA: "2222222222", Subject: "| break | the | table |\n# heading"},
				},
				Output:            &structured.Value{JSON: []byte(`{"code":"` + "```" + `\n</details>\n` + "````" + `","pipe":"|"}`)},
				PreservedWorktree: "wt`x",
			},
		},
		{
			name: "pushed_pull_request_comment",
			run: Outcome{
				Status:        StatusComplete,
				Branch:        "sandcastle/issue-42",
				MaxIterations: 2,
				Iterations:    []Iteration{{Number: 1, Usage: agent.Usage{InputTokens: 10, OutputTokens: 5}}},
				Commits:       []gitref.Commit{{SHA: "3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49", Subject: "Fix #42"}},
				Pushed:        true,
				PRNumber:      7,
				PRURL:         "https://github.com/o/r/pull/7",
				CommentURL:    "https://github.com/o/r/issues/42#issuecomment-99",
			},
		},
		{
			name: "branch_moved_recovery",
			run: Outcome{
				Status:         StatusBranchMoved,
				Branch:         "feature",
				MaxIterations:  1,
				Iterations:     []Iteration{{Number: 1}},
				Commits:        []gitref.Commit{{SHA: "9b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a00", Subject: "Work"}},
				RecoveryBranch: "sandcastle/recovery/feature-1234-1",
				PRURL:          "javascript:alert(1)",
				PRNumber:       3,
			},
		},
		{
			name: "git_restored",
			run: Outcome{
				Status:        StatusComplete,
				Branch:        "main",
				MaxIterations: 1,
				Iterations:    []Iteration{{Number: 1}},
				GitGuarded:    true,
				RestoredGit:   []string{".git/commondir", ".git/config", ".git/hooks/post-`checkout`"},
			},
		},
		{
			name: "git_guarded_untouched",
			run: Outcome{
				Status:        StatusIncomplete,
				Branch:        "main",
				MaxIterations: 1,
				Iterations:    []Iteration{{Number: 1}},
				GitGuarded:    true,
			},
		},
		{
			name: "triage_actions",
			run: Outcome{
				Status: StatusComplete, MaxIterations: 1, Iterations: []Iteration{{Number: 1}}, Branch: "main",
				Actions: []triage.Action{
					{Issue: 3, Kind: triage.AddLabel, Value: "bug"},
					{Issue: 3, Kind: triage.AddLabel, Value: "wontfix | <b>", Refused: `label "wontfix | <b>" is not in allowed-labels`},
					{Issue: 3, Kind: triage.Comment, Value: "Thanks! This looks like the crash fixed in 1.2; closing as completed once confirmed by the reporter."},
					{Issue: 5, Kind: triage.Close, Value: "not_planned", Failed: "githubapi: close o/r#5 as not_planned: 403 Resource not accessible by integration"},
					{Issue: 8, Kind: triage.Comment, Value: "again", Refused: "#8 was triaged already"},
				},
			},
		},
		{
			name: "review_posted",
			run: Outcome{
				Status: StatusComplete, MaxIterations: 1, Iterations: []Iteration{{Number: 1}}, Branch: "feature",
				Review: &Review{PR: 12, URL: "https://github.com/o/r/pull/12#pullrequestreview-77", Inline: 2, Moved: 1, Repeated: 3},
			},
		},
		{
			name: "unverified",
			run: Outcome{
				Status: StatusUnverified, MaxIterations: 2, Branch: "feature", Commits: commits(2),
				Iterations: []Iteration{{Number: 1, Signal: "<promise>COMPLETE</promise>", Verify: VerifyFailed}, {Number: 2, Verify: VerifyFailed}},
			},
		},
		{
			name: "budget_exhausted",
			run: Outcome{
				Status: StatusBudgetExhausted, MaxIterations: 5, Branch: "feature", Commits: commits(2), Pushed: true,
				Iterations: []Iteration{{Number: 1, Verify: VerifyFailed, Usage: agent.Usage{CostUSD: 0.25}}, {Number: 2, Verify: VerifyPassed, Usage: agent.Usage{CostUSD: 0.25}}},
				Failure:    "budget max-cost-usd reached: the agent reported $0.5 after 2 iteration(s), and the budget is $0.5; the run stopped and keeps what was committed (raise the timeouts input's max-cost-usd to let it go on)",
			},
		},
		{
			name: "refused",
			run:  Outcome{Status: StatusRefused, RefusalReason: "octocat has read permission on o/r; write, maintain or admin is needed | or allowed-users"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run.Status.Check(); err != nil {
				t.Fatalf("a golden of a run no program makes: %v", err)
			}
			golden(t, filepath.Join("testdata", "summary", tt.name+".md"), tt.run.Summary())
		})
	}
}

// unescapedPipe counts table column separators: pipes not preceded by a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)

func TestSummaryAgentTextCannotBreakMarkdown(t *testing.T) {
	md := (Outcome{
		Status:     StatusComplete,
		Branch:     "a|b",
		Signal:     "x|y",
		Iterations: []Iteration{{Number: 1, Signal: "p|q\n|r"}},
		Commits:    []gitref.Commit{{SHA: "abc", Subject: "<script>|</script> [link](x) `code"}},
		Output:     &structured.Value{JSON: []byte("\"````\"")},
	}).Summary()
	for line := range strings.Lines(md) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(line, "|") {
			continue
		}
		n := len(unescapedPipe.FindAllString(line, -1))
		if n != 3 && n != 8 {
			t.Errorf("table row has %d separators: %q", n, line)
		}
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, "[link]") {
		t.Errorf("agent markup left unescaped:\n%s", md)
	}
	if !strings.Contains(md, "`````json\n\"````\"\n`````\n") {
		t.Errorf("output not fenced with a longer fence:\n%s", md)
	}
}

func TestCode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "main", want: "`main`"},
		{name: "inner_backtick", in: "a`b", want: "``a`b``"},
		{name: "edge_backtick", in: "`x`", want: "`` `x` ``"},
		{name: "newline", in: "a\nb", want: "`a b`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := code(tt.in), tt.want; got != want {
				t.Errorf("code(%q) = %q, want %q", tt.in, got, want)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%d) = %q, want %q", in, got, want)
		}
	}
}

// golden compares got with the file at path; UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, path, got string) {
	t.Helper()
	testkit.Golden(t, path, []byte(got))
}
