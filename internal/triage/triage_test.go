package triage

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/structured"
)

func TestSchemaValidates(t *testing.T) {
	s, err := structured.CompileSchema([]byte(Schema))
	if err != nil {
		t.Fatal(err)
	}
	spec := structured.Spec{Tag: "result", Kind: structured.Object, Schema: s}
	for _, tc := range []struct {
		output string
		ok     bool
	}{
		{`{"issues": []}`, true},
		{`{"issues": [{"issue": 3, "add_labels": ["bug"], "comment": "Thanks", "close": "not_planned"}]}`, true},
		{`{"issues": [{"issue": 0}]}`, false},
		{`{"issues": [{"issue": 3, "close": "wontfix"}]}`, false},
		{`{"issues": [{"issue": 3, "assign": "me"}]}`, false},
		{`{"issues": [{"issue": 3, "comment": ""}]}`, false},
		{`{}`, false},
	} {
		_, err := structured.Extract("<result>"+tc.output+"</result>", spec)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v; want ok %v", tc.output, err, tc.ok)
		}
	}
}

func TestCheck(t *testing.T) {
	issues := map[int]Issue{
		1:  {Found: true},
		2:  {Found: true, PullRequest: true},
		3:  {Found: true, Triaged: true},
		4:  {Found: true, Closed: true},
		5:  {Found: true},
		6:  {Found: true},
		10: {Found: true},
	}
	for n, is := range issues {
		is.Read = true
		issues[n] = is
	}
	p := Policy{Repository: "octo/repo", AllowedLabels: []string{"bug", "Question"}, MaxActions: 6}
	entries := []Entry{
		{Issue: 1, AddLabels: []string{"bug", "question", "wontfix"}, RemoveLabels: []string{"bug"}, Comment: "Looks like a bug."},
		{Issue: 2, AddLabels: []string{"bug"}},
		{Issue: 3, Comment: "again"},
		{Issue: 4, Close: "completed"},
		{Issue: 9, Comment: "who?"},
		{Issue: 5, Repository: "octo/other", Close: "completed"},
		{Issue: 1, Close: "completed"},
		{Issue: 6, Comment: "Fixed in 1.2.", Close: "completed"},
		{Issue: 10, AddLabels: []string{"bug"}},
	}
	var got []string
	for _, a := range Check(entries, issues, p) {
		got = append(got, fmt.Sprintf("#%d %s %s: %s", a.Issue, a.Kind, a.Value, a.Refused))
	}
	want := []string{
		"#1 add-label bug: ",
		"#1 add-label Question: ",
		`#1 add-label wontfix: label "wontfix" is not in allowed-labels`,
		"#1 remove-label bug: ",
		"#1 comment Looks like a bug.: ",
		"#2 add-label bug: #2 is a pull request",
		"#3 comment again: #3 was triaged already",
		"#4 close completed: #4 is closed already",
		"#9 comment who?: octo/repo has no issue #9",
		"#5 close completed: octo/other is not this run's repository (octo/repo)",
		"#1 close completed: a second entry for #1",
		"#6 comment Fixed in 1.2.: ",
		"#6 close completed: ",
		"#10 add-label bug: over max-actions (6)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Check =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	p.AllowPRs, p.AllowedLabels = true, nil
	a := Check([]Entry{{Issue: 2, AddLabels: []string{"bug"}, Comment: "on the pull request"}}, issues, p)
	if a[0].Refused != "no label is allowed (allowed-labels is empty)" || a[1].Refused != "" {
		t.Errorf("with allow PRs and no labels: %+v", a)
	}
	if got := Touched(a); !slices.Equal(got, []int{2}) {
		t.Errorf("Touched = %v; want [2]", got)
	}
}

func TestParse(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"issues": []map[string]any{{"issue": 3, "add_labels": []string{"bug"}, "close": "completed"}}})
	got, err := Parse(b)
	if err != nil || len(got) != 1 || got[0].Issue != 3 || got[0].Close != "completed" || got[0].AddLabels[0] != "bug" {
		t.Errorf("Parse = %+v, %v", got, err)
	}
	if _, err := Parse([]byte(`[]`)); err == nil {
		t.Error("Parse of an array: no error")
	}
}

// TestCheckLabelSpelling: a label matches an allowed one as GitHub matches names, ASCII letters
// in any case and nothing else folded, and the allowed label's own spelling is what is sent, so
// no new label is made from the agent's ("queſtion" with a long s folds to "question" in Unicode).
func TestCheckLabelSpelling(t *testing.T) {
	issues := map[int]Issue{1: {Found: true, Read: true}}
	p := Policy{Repository: "octo/repo", AllowedLabels: []string{"question", "Bug"}, MaxActions: 9}
	got := Check([]Entry{{Issue: 1, AddLabels: []string{"que\u017ftion", "QUESTION", "bug", "\u212aelvin"}, RemoveLabels: []string{"BUG"}}}, issues, p)
	var lines []string
	for _, a := range got {
		lines = append(lines, fmt.Sprintf("%s %s: %s", a.Kind, a.Value, a.Refused))
	}
	want := []string{
		"add-label que\u017ftion: label \"que\u017ftion\" is not in allowed-labels",
		"add-label question: ",
		"add-label Bug: ",
		"add-label \u212aelvin: label \"\u212aelvin\" is not in allowed-labels",
		"remove-label Bug: ",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Check =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckUnread: nothing is done to an issue the run did not read, whatever the entry asks.
func TestCheckUnread(t *testing.T) {
	p := Policy{Repository: "octo/repo", AllowedLabels: []string{"bug"}, MaxActions: 5}
	a := Check([]Entry{{Issue: 8, AddLabels: []string{"bug"}, Close: "not_planned"}, {Issue: 9, Comment: "read"}},
		map[int]Issue{8: {Found: true}, 9: {Found: true, Read: true}}, p)
	if len(a) != 3 || !strings.Contains(a[0].Refused, "#8 was not read by this run") || a[1].Refused != a[0].Refused || a[2].Refused != "" {
		t.Errorf("Check = %+v; want #8's actions refused as unread, #9's comment planned", a)
	}
}
