package report

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

func TestPRGolden(t *testing.T) {
	issue := map[string]string{"ISSUE_NUMBER": "42", "ISSUE_TITLE": "Login fails", "ACTOR": "octocat"}
	done := Outcome{Status: StatusComplete, Branch: "sandcastle/issue-42", Final: "Fixed the redirect.",
		Commits: []gitref.Commit{{SHA: "abc1234def", Subject: "Fix login"}, {SHA: "fed4321cba", Subject: "Test login"}}}
	oneCommit := Outcome{Status: StatusComplete, Branch: "deps", Commits: []gitref.Commit{{SHA: "0123456789", Subject: "Bump deps"}}}
	tests := []struct {
		name    string
		o       Outcome
		t       PRTemplates
		event   map[string]string
		base    string
		wantLen int // the title's length in characters, when it matters
	}{
		{name: "issue_defaults", o: done, event: issue},
		{name: "one_commit_no_issue", o: oneCommit},
		{name: "nothing_known", o: Outcome{Status: StatusIncomplete, Branch: "b"}},
		{name: "on_a_pull_request", o: done, event: map[string]string{"PR_NUMBER": "5", "ISSUE_NUMBER": "5", "ISSUE_TITLE": "x"}},
		{name: "templates", o: done, event: issue, base: "main", t: PRTemplates{
			Title: "[bot] {{ISSUE_TITLE}}\n(#{{ISSUE_NUMBER}}) {{STATUS}}",
			Body:  "Work for #{{ISSUE_NUMBER}} by {{ACTOR}} into {{BASE}} !`rm -rf /`\n{{COMMITS}}\n{{COMMIT_COUNT}} commits on {{BRANCH}}: {{SUMMARY}}\n{{OUTPUT}}",
		}},
		{name: "output", o: Outcome{Status: StatusComplete, Branch: "b", Output: &structured.Value{Text: `{"verdict":"ok"}`}}, t: PRTemplates{Body: "Verdict: {{OUTPUT}}"}},
		{name: "long_title_cut", o: done, t: PRTemplates{Title: strings.Repeat("é", 300)}, wantLen: 256},
		// What the agent and strangers wrote goes in as written: the GitHub client's gate
		// (githubapi.Gate) makes the whole title and body inert but for the run's own
		// "Closes #42" (TestEveryWriteGated).
		{name: "agent_text", event: issue, o: Outcome{Status: StatusComplete, Branch: "b",
			Final:   "Fixes #1, closes #2, resolves acme/other#3; thanks @acme/everyone <!-- sandcastle:pr:other -->",
			Commits: []gitref.Commit{{SHA: "abc1234def", Subject: "Fix #5 for @octocat"}}}},
		{name: "agent_text_template", o: done, t: PRTemplates{Body: "Closes #{{ISSUE_NUMBER}}\n\n{{ISSUE_BODY}}\n{{SUMMARY}}"},
			event: map[string]string{"ISSUE_NUMBER": "42", "ISSUE_TITLE": "x", "ISSUE_BODY": "Also fixes #7 cc @octocat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, body, err := tt.o.PR(tt.t, tt.base, tt.event)
			if err != nil {
				t.Fatalf("PR: %v", err)
			}
			if strings.Contains(title, "\n") || tt.wantLen > 0 && len([]rune(title)) != tt.wantLen {
				t.Errorf("title %q is not one line of %d characters", title, tt.wantLen)
			}
			golden(t, filepath.Join("testdata", "pr", tt.name+".md"), "title: "+title+"\n\n"+body+"\n")
		})
	}
}

// TestPRTemplateUnknownKey: a misspelt key is refused before the run, naming the keys there
// are, and the error says which template it is in.
func TestPRTemplateUnknownKey(t *testing.T) {
	err := CheckPRTemplates(PRTemplates{Body: "Fix {{ISSUE_TITEL}}"}, map[string]string{"ISSUE_TITLE": "x"})
	var te *PRTemplateError
	if !errors.As(err, &te) || !te.Body || !strings.Contains(err.Error(), "{{ISSUE_TITEL}}") || !strings.Contains(err.Error(), "ISSUE_TITLE, OUTPUT, STATUS, SUMMARY") {
		t.Errorf("error %v, want the body's template named and the keys listed", err)
	}
}

// TestPRTemplatesCheckedWithTheKeysTheyGet: a template that names every key the run sets
// passes the check, and renders.
func TestPRTemplatesCheckedWithTheKeysTheyGet(t *testing.T) {
	all := PRTemplates{Title: "{{BRANCH}} {{BASE}} {{COMMITS}} {{COMMIT_COUNT}} {{SUMMARY}} {{OUTPUT}} {{STATUS}}"}
	if err := CheckPRTemplates(all, nil); err != nil {
		t.Errorf("CheckPRTemplates: %v", err)
	}
	if _, _, err := (Outcome{}).PR(all, "main", nil); err != nil {
		t.Errorf("PR: %v", err)
	}
}

func TestPRTemplateErrorUnwraps(t *testing.T) {
	err := CheckPRTemplates(PRTemplates{Title: "{{X}}"}, nil)
	var mk *prompt.MissingKeysError
	if !errors.As(err, &mk) || !slices.Equal(mk.Keys, []string{"X"}) {
		t.Errorf("error %v does not unwrap to the missing keys", err)
	}
}
