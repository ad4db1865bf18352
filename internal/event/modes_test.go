package event

import (
	"strings"
	"testing"
)

// The policies of the modes that share comments on pull requests, as the mode table gives them
// (inputs.TestLoad_modeDefaults checks the table's side): both installed, a comment starts the
// one it names and not the other.
var (
	prPolicy     = Policy{Subjects: []Subject{SubjectPullRequest}, TriggerPhrases: []string{"/sandcastle", "@sandcastle"}, NotBefore: []string{"review"}}
	reviewPolicy = Policy{Subjects: []Subject{SubjectPullRequest}, TriggerPhrases: []string{"/sandcastle review", "@sandcastle review"}}
)

func TestDecideReviewOrPR(t *testing.T) {
	t.Parallel()
	write := fakePerms{t: t, permission: func(string) (string, error) { return "write", nil }}
	tests := []struct {
		body       string
		pr, review bool // whether each mode runs
	}{
		{"/sandcastle review", false, true},
		{"@sandcastle review this, please", false, true},
		{"/sandcastle   Review.", false, true},
		{"(/sandcastle review)", false, true},
		{"/sandcastle review /sandcastle review", false, true},
		{"/sandcastle fix the test", true, false},
		{"/sandcastle reviewer comments are addressed?", true, false},
		{"/sandcastle fix it, then /sandcastle review", true, true},
		{"/sandcastle review\n/sandcastle rename x", true, true},
		{"> /sandcastle review\nthanks", false, false},
		{"please review", false, false},
	}
	for _, tt := range tests {
		e := &Event{Name: IssueComment, Action: "created", Actor: "mona", ActorType: "User",
			Issue: &Issue{Number: 5, IsPR: true}, Comment: &Comment{Body: tt.body}}
		for _, m := range []struct {
			name   string
			policy Policy
			want   bool
		}{{"pr", prPolicy, tt.pr}, {"review", reviewPolicy, tt.review}} {
			d, err := Decide(t.Context(), e, m.policy, write)
			if err != nil {
				t.Fatal(err)
			}
			if d.Run != m.want || !d.Run && !d.Skip {
				t.Errorf("%q: mode %s: %+v, want run %v (else skipped)", tt.body, m.name, d, m.want)
			}
		}
	}
}

// TestDecideSubjects: a mode answers the events about what it works on and skips the rest,
// before anything is looked up.
func TestDecideSubjects(t *testing.T) {
	t.Parallel()
	none := fakePerms{t: t}
	write := fakePerms{t: t, permission: func(string) (string, error) { return "write", nil }}
	issueComment := &Event{Name: IssueComment, Action: "created", Actor: "mona", Issue: &Issue{Number: 4}, Comment: &Comment{Body: "/sandcastle"}}
	prComment := &Event{Name: IssueComment, Action: "created", Actor: "mona", Issue: &Issue{Number: 5, IsPR: true}, Comment: &Comment{Body: "/sandcastle"}}
	reviewComment := &Event{Name: PullRequestReviewComment, Action: "created", Actor: "mona", PR: &PR{Number: 5}, Comment: &Comment{Body: "/sandcastle"}}
	labelled := &Event{Name: Issues, Action: "labeled", Actor: "mona", Issue: &Issue{Number: 4}, Label: "sandcastle"}
	opened := &Event{Name: PullRequest, Action: "opened", Actor: "mona", PR: &PR{Number: 5}}
	schedule := &Event{Name: Schedule}
	implement := []Subject{SubjectIssue}
	onPR := []Subject{SubjectPullRequest}
	triage := []Subject{SubjectWorkflow}
	tests := []struct {
		event    *Event
		subjects []Subject
		run      bool
		reason   string
	}{
		{labelled, implement, true, ""},
		{issueComment, implement, true, ""},
		{prComment, implement, false, "the issue_comment event is about a pull request, and this run answers an issue"},
		{reviewComment, implement, false, "the pull_request_review_comment event is about a pull request"},
		{prComment, onPR, true, ""},
		{reviewComment, onPR, true, ""},
		{opened, onPR, true, ""},
		{issueComment, onPR, false, "the issue_comment event is about an issue, and this run answers a pull request"},
		{schedule, triage, true, ""},
		{labelled, triage, false, "the issues event is about an issue, and this run answers the workflow"},
		{schedule, implement, false, "the schedule event is about the workflow"},
		{prComment, nil, true, ""},
		{&Event{Name: "discussion"}, triage, false, `event "discussion" is not supported`},
	}
	for _, tt := range tests {
		perms := none
		if tt.run {
			perms = write
		}
		d, err := Decide(t.Context(), tt.event, Policy{Subjects: tt.subjects, TriggerPhrases: []string{"/sandcastle"}}, perms)
		if err != nil {
			t.Fatal(err)
		}
		if d.Run != tt.run || !tt.run && !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%s %s with %q: %+v, want run %v, reason %q", tt.event.Name, tt.event.Action, tt.subjects, d, tt.run, tt.reason)
		}
	}
}
