package app

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func TestPushDecision(t *testing.T) {
	commits := report.Outcome{Commits: []gitref.Commit{{SHA: "c1"}}, Branch: "work"}
	tests := []struct {
		name     string
		push     inputs.PushMode
		strategy inputs.BranchStrategy
		actions  bool
		o        report.Outcome
		want     inputs.PushMode
	}{
		{"auto_branch_in_actions", inputs.PushAuto, inputs.StrategyBranch, true, commits, "auto"},
		{"auto_branch_on_the_cli", inputs.PushAuto, inputs.StrategyBranch, false, commits, ""},
		{"auto_head", inputs.PushAuto, inputs.StrategyHead, true, commits, ""},
		{"lease_head", inputs.PushLease, inputs.StrategyHead, true, commits, "lease"},
		{"force_head_on_the_cli", inputs.PushForce, inputs.StrategyHead, false, commits, "force"},
		{"none", inputs.PushNone, inputs.StrategyBranch, true, commits, ""},
		{"no_commits", inputs.PushForce, inputs.StrategyBranch, true, report.Outcome{Branch: "work"}, ""},
		{"detached", inputs.PushLease, inputs.StrategyHead, true, report.Outcome{Commits: []gitref.Commit{{SHA: "c1"}}}, ""},
		{"merge_to_head", inputs.PushForce, inputs.StrategyMergeToHead, true, commits, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan{cfg: inputs.Config{BranchStrategy: tt.strategy, GitHub: inputs.GitHubConfig{Push: tt.push}}, gh: &hub{actions: tt.actions}}
			mode, why := p.pushDecision(tt.o)
			if mode != tt.want {
				t.Errorf("mode = %q (%s), want %q", mode, why, tt.want)
			}
			if mode == "" && why == "" {
				t.Error("no push and no reason")
			}
		})
	}
}

func TestPRBase(t *testing.T) {
	pr := &event.Event{PR: &event.PR{Number: 5, HeadRef: "feature", BaseRef: "main"}}
	tests := []struct {
		name        string
		prBase      string
		startBranch string
		event       *event.Event
		branch      string
		want        string
	}{
		{"input_wins", "release", "main", pr, "feature", "release"},
		{"branch_off_the_start", "", "main", nil, "sandcastle/issue-1", "main"},
		{"stacked_on_a_pull_request_branch", "", "feature", pr, "sandcastle/fix", "feature"},
		{"the_pull_request_branch_itself", "", "feature", pr, "feature", "main"},
		{"detached_without_event", "", "", nil, "work", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan{cfg: inputs.Config{GitHub: inputs.GitHubConfig{PRBase: tt.prBase}}, gh: &hub{event: tt.event}, startBranch: tt.startBranch}
			if got := p.prBase(tt.branch); got != tt.want {
				t.Errorf("prBase(%q) = %q, want %q", tt.branch, got, tt.want)
			}
		})
	}
}

func TestRenderPR(t *testing.T) {
	issue := map[string]string{"ISSUE_NUMBER": "42", "ISSUE_TITLE": "Login fails", "BRANCH": "sandcastle/issue-42",
		"COMMITS": "- abc1234 Fix login", "SUMMARY": "Fixed the redirect."}
	tests := []struct {
		name        string
		g           inputs.GitHubConfig
		vals        map[string]string
		onlySubject string
		wantTitle   string
		wantBody    []string // substrings
	}{
		{"issue_defaults", inputs.GitHubConfig{}, issue, "", "Fix #42: Login fails", []string{"Closes #42", "Fixed the redirect.", "- abc1234 Fix login"}},
		{"one_commit_no_issue", inputs.GitHubConfig{}, map[string]string{"BRANCH": "b"}, "Bump deps", "Bump deps", []string{"_Opened by Sandcastle._"}},
		{"nothing_known", inputs.GitHubConfig{}, map[string]string{"BRANCH": "b"}, "", "Sandcastle: b", nil},
		{"templates", inputs.GitHubConfig{PRTitle: "[bot] {{ISSUE_TITLE}}\n(#{{ISSUE_NUMBER}})", PRBody: "Work for #{{ISSUE_NUMBER}} !`rm -rf /`\n{{COMMITS}}"}, issue, "",
			"[bot] Login fails (#42)", []string{"Work for #42 !`rm -rf /`", "- abc1234 Fix login"}},
		{"long_title_cut", inputs.GitHubConfig{PRTitle: strings.Repeat("é", 300)}, issue, "", strings.Repeat("é", 255) + "…", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, body, err := renderPR(tt.g, tt.vals, tt.onlySubject)
			if err != nil {
				t.Fatalf("renderPR: %v", err)
			}
			if title != tt.wantTitle {
				t.Errorf("title = %q, want %q", title, tt.wantTitle)
			}
			for _, w := range tt.wantBody {
				if !strings.Contains(body, w) {
					t.Errorf("body = %q, want it to contain %q", body, w)
				}
			}
		})
	}
}

func TestRenderPRUnknownKeyNamesTheInput(t *testing.T) {
	_, _, err := renderPR(inputs.GitHubConfig{PRTitle: "{{ISSUE_TITEL}}"}, prKeys(nil), "")
	if err == nil || !strings.Contains(err.Error(), `input "pr-title"`) || !strings.Contains(err.Error(), "ISSUE_TITEL") {
		t.Errorf("error = %v, want one naming pr-title and the unknown key", err)
	}
}

func TestSummaryTextDropsTheSignal(t *testing.T) {
	if got, want := summaryText("Done.\n<promise>COMPLETE</promise>\n", []string{"<promise>COMPLETE</promise>"}), "Done."; got != want {
		t.Errorf("summaryText = %q, want %q", got, want)
	}
}

func TestMarkerOf(t *testing.T) {
	tests := []struct{ workflow, job, name, want string }{
		{"Sandcastle", "implement", "", "sandcastle:Sandcastle:implement"},
		{"a--b <x>", "job", "matrix-1", "sandcastle:a-b x:job:matrix-1"},
		{"", "", "", "sandcastle"},
	}
	for _, tt := range tests {
		if got := markerOf(tt.workflow, tt.job, tt.name); got != tt.want {
			t.Errorf("markerOf(%q, %q, %q) = %q, want %q", tt.workflow, tt.job, tt.name, got, tt.want)
		}
	}
}

func TestPromptEventArgsYieldToPromptArgs(t *testing.T) {
	cfg := inputs.Config{PromptFile: "/p.md", Prompt: "#{{ISSUE_NUMBER}} {{ISSUE_TITLE}} on {{SOURCE_BRANCH}}", PromptArgs: map[string]string{"ISSUE_TITLE": "given", "UNUSED": "x"}}
	p := &plan{cfg: cfg, gh: &hub{event: &event.Event{Issue: &event.Issue{Number: 7, Title: "from the event", Body: "unused"}}},
		names: &workspace.Workspace{Source: "work", Target: "main"}}
	pr, err := p.renderPrompt(p.gh.eventArgs())
	warnings := p.promptWarnings
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if got, want := pr.Text(), "#7 given on work"; got != want {
		t.Errorf("prompt = %q, want %q", got, want)
	}
	if want := []string{`prompt-args: "UNUSED" is not used by the prompt`}; !slices.Equal(warnings, want) {
		t.Errorf("warnings = %q, want %q: none for unused event arguments", warnings, want)
	}
}

func TestPRMarkerFitsAnyBranchName(t *testing.T) {
	for _, branch := range []string{"agent/issue-1--retry", "a<b>c", "sandcastle/issue-42"} {
		m := prMarker(branch)
		if strings.Contains(m, "--") || strings.ContainsAny(m, "<>\r\n") || !strings.HasPrefix(m, "sandcastle:pr:") {
			t.Errorf("prMarker(%q) = %q, which cannot sit in an HTML comment", branch, m)
		}
	}
}

// TestOpenLinkedPRsLeavesOutARunsOwn: the pull request an earlier run opened closes the issue
// too, and with a person's token it is a collaborator's; it must not refuse the next run.
func TestOpenLinkedPRsLeavesOutARunsOwn(t *testing.T) {
	gh := testkit.NewGitHub(t, "ghs_t0ken", "octo/widgets")
	gh.AddLinkedPR(42, testkit.FakeLinkedPR{Number: 7, Author: "maintainer", AuthorAssociation: "COLLABORATOR", Body: "Closes #42\n\n<!-- " + prMarker("sandcastle/issue-42") + " -->"})
	gh.AddLinkedPR(42, testkit.FakeLinkedPR{Number: 8, Author: "colleague", AuthorAssociation: "MEMBER", Body: "Fixes #42"})
	gh.AddLinkedPR(42, testkit.FakeLinkedPR{Number: 9, Author: "maintainer", AuthorAssociation: "COLLABORATOR", Body: "Closes #42\n\n<!-- " + prMarker("sandcastle/other") + " -->"})
	api, err := githubapi.New(githubapi.Options{Token: "ghs_t0ken", APIURL: gh.APIURL})
	if err != nil {
		t.Fatal(err)
	}
	prs, err := permissions{&hub{api: api, owner: "octo", repo: "widgets", branch: "sandcastle/issue-42"}}.OpenLinkedPRs(t.Context(), 42)
	if err != nil {
		t.Fatalf("OpenLinkedPRs: %v", err)
	}
	if len(prs) != 2 || prs[0].Number != 8 || prs[1].Number != 9 {
		t.Errorf("linked pull requests = %+v, want #8, the colleague's, and #9, another branch's", prs)
	}
}

// TestPRValuesHaveTheCheckedKeys: the keys a template is checked against before the run are
// the keys it gets after it.
func TestPRValuesHaveTheCheckedKeys(t *testing.T) {
	p := &plan{gh: &hub{}}
	got := slices.Sorted(maps.Keys(p.prValues(report.Outcome{}, "main")))
	if want := slices.Sorted(slices.Values(prRunKeys())); !slices.Equal(got, want) {
		t.Errorf("prValues keys = %q, want prRunKeys %q", got, want)
	}
}
