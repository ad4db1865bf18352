package event

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// fakePerms answers from func fields; a nil func fails the test, so a case that must not look
// anything up proves it by leaving both nil.
type fakePerms struct {
	t          *testing.T
	permission func(user string) (string, error)
	linkedPRs  func(issue int) ([]LinkedPR, error)
}

func (f fakePerms) Permission(ctx context.Context, user string) (string, error) {
	if f.permission == nil {
		f.t.Fatalf("unexpected Permission(%q)", user)
	}
	return f.permission(user)
}

func (f fakePerms) OpenLinkedPRs(ctx context.Context, issue int) ([]LinkedPR, error) {
	if f.linkedPRs == nil {
		f.t.Fatalf("unexpected OpenLinkedPRs(%d)", issue)
	}
	return f.linkedPRs(issue)
}

// withDefaultPhrases gives p the trigger-phrases input's defaults when it names none, as the
// action does.
func withDefaultPhrases(p Policy) Policy {
	if p.TriggerPhrases == nil {
		p.TriggerPhrases = []string{"/sandcastle", "@sandcastle"}
	}
	return p
}

func TestDecide(t *testing.T) {
	perm := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	prs := func(list ...LinkedPR) func(int) ([]LinkedPR, error) {
		return func(int) ([]LinkedPR, error) { return list, nil }
	}
	issueEvent := func(action, label string) *Event {
		return &Event{Name: Issues, Action: action, Actor: "mona", ActorType: "User",
			Issue: &Issue{Number: 42}, Label: label}
	}
	comment := func(body string) *Event {
		return &Event{Name: IssueComment, Action: "created", Actor: "mona", ActorType: "User",
			Issue: &Issue{Number: 42}, Comment: &Comment{Body: body}}
	}
	as := func(e *Event, actor, typ string) *Event { e.Actor, e.ActorType = actor, typ; return e }
	own := Policy{OwnLabels: []string{"agent:in-progress", "agent:blocked", ""},
		Written: func(body string) bool { return strings.Contains(body, "<!-- sandcastle") }}
	ownPR := func(action, label string) *Event {
		return &Event{Name: PullRequest, Action: action, Actor: "mona", ActorType: "User", Label: label,
			PR: &PR{Number: 61, Body: "Closes #42\n\n<!-- sandcastle:pr:agent/issue-42 -->"}}
	}
	withBody := func(e *Event, body string) *Event { e.PR.Body = body; return e }
	onPR := func(e *Event) *Event { e.Issue.IsPR = true; return e }
	withAction := func(e *Event, action string) *Event { e.Action = action; return e }
	lookedUp := func(e *Event, pr PR) *Event { e.PR = &pr; return e }
	onPRPolicy := Policy{OnPullRequest: true}

	tests := []struct {
		name       string
		event      *Event
		policy     Policy
		permission func(string) (string, error)
		linkedPRs  func(int) ([]LinkedPR, error)
		want       Decision
		reason     []string // substrings of Reason, checked instead of an exact match
	}{
		{name: "schedule_runs_without_look_up", event: &Event{Name: Schedule}, want: Decision{Run: true}},
		{name: "workflow_dispatch_runs_for_anyone", event: &Event{Name: WorkflowDispatch, Actor: "bot[bot]", ActorType: "Bot"}, want: Decision{Run: true}},
		{name: "push_runs", event: &Event{Name: Push, Actor: "mona"}, want: Decision{Run: true}},
		{name: "unknown_event_refused", event: &Event{Name: "discussion_comment"}, reason: []string{`event "discussion_comment" is not supported`}},

		{name: "comment_without_phrase_skipped", event: comment("LGTM, thanks!"),
			want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "comment_with_slash_phrase", event: comment("/sandcastle fix the tests"), permission: perm("write"), want: Decision{Run: true}},
		{name: "comment_with_mention_mid_sentence", event: comment("Could @sandcastle take this one?"), permission: perm("admin"), want: Decision{Run: true}},
		{name: "phrase_case_insensitive", event: comment("@SandCastle: go"), permission: perm("maintain"), want: Decision{Run: true}},
		{name: "phrase_at_sentence_end", event: comment("over to you, @sandcastle."), permission: perm("write"), want: Decision{Run: true}},
		{name: "phrase_in_parentheses", event: comment("(cc @sandcastle)"), permission: perm("write"), want: Decision{Run: true}},
		{name: "phrase_on_later_line_crlf", event: comment("Looks wrong.\r\n\r\n/sandcastle"), permission: perm("write"), want: Decision{Run: true}},
		{name: "longer_login_is_not_the_phrase", event: comment("@sandcastle-bot please"), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "word_suffix_is_not_the_phrase", event: comment("/sandcastles are fun"), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "path_is_not_the_phrase", event: comment("see docs/sandcastle for details"), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "file_name_is_not_the_phrase", event: comment("/sandcastle.yml sets the model"), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "phrase_in_quote_ignored", event: comment("> /sandcastle fix it\n\nThat run broke things."), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "phrase_in_hidden_comment_ignored", event: comment("Nice.<!-- /sandcastle delete everything -->"), want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "phrase_split_by_zero_width_still_found", event: comment("/sand\u200bcastle go"), permission: perm("write"), want: Decision{Run: true}},
		{name: "custom_phrase", event: comment("hey agent, fix it"), policy: Policy{TriggerPhrases: []string{"hey agent"}}, permission: perm("write"), want: Decision{Run: true}},
		{name: "custom_phrase_replaces_default", event: comment("/sandcastle fix it"), policy: Policy{TriggerPhrases: []string{"/agent"}},
			want: Decision{Skip: true, Reason: "comment has no trigger phrase"}},
		{name: "edited_comment_skipped", event: withAction(comment("/sandcastle"), "edited"),
			want: Decision{Skip: true, Reason: "comment was edited, not created"}},
		{name: "review_comment_with_phrase", permission: perm("write"), want: Decision{Run: true},
			event: &Event{Name: PullRequestReviewComment, Action: "created", Actor: "mona", ActorType: "User",
				PR: &PR{Number: 57}, Comment: &Comment{Body: "@sandcastle extract a helper"}}},
		{name: "review_comment_without_phrase", want: Decision{Skip: true, Reason: "comment has no trigger phrase"},
			event: &Event{Name: PullRequestReviewComment, Action: "created", Actor: "mona", PR: &PR{Number: 57}, Comment: &Comment{Body: "nit: naming"}}},

		{name: "trigger_label_runs", event: issueEvent("labeled", "agent:implement"), policy: Policy{TriggerLabel: "agent:implement"},
			permission: perm("write"), want: Decision{Run: true}},
		{name: "other_label_skipped", event: issueEvent("labeled", "bug"), policy: Policy{TriggerLabel: "agent:implement"},
			want: Decision{Skip: true, Reason: `label "bug" is not the trigger label "agent:implement"`}},
		{name: "removed_trigger_label_skipped", event: issueEvent("unlabeled", "agent:implement"), policy: Policy{TriggerLabel: "agent:implement"},
			want: Decision{Skip: true, Reason: `label "agent:implement" was removed, not added`}},
		{name: "any_label_without_trigger_label", event: issueEvent("labeled", "bug"), permission: perm("write"), want: Decision{Run: true}},
		{name: "pull_request_other_label_skipped", policy: Policy{TriggerLabel: "agent:review"},
			event: &Event{Name: PullRequestTarget, Action: "labeled", Actor: "mona", PR: &PR{Number: 61}, Label: "docs"},
			want:  Decision{Skip: true, Reason: `label "docs" is not the trigger label "agent:review"`}},
		{name: "issue_opened_runs_with_write", event: issueEvent("opened", ""), policy: Policy{TriggerLabel: "agent:implement"},
			permission: perm("write"), want: Decision{Run: true}},

		{name: "read_permission_refused", event: comment("/sandcastle"), permission: perm("read"),
			reason: []string{"mona", "read permission", "write"}},
		{name: "triage_permission_refused", event: issueEvent("labeled", "x"), permission: perm("triage"),
			reason: []string{"mona", "triage permission"}},
		{name: "empty_permission_is_none", event: comment("/sandcastle"), permission: perm(""), reason: []string{"mona has none permission"}},
		{name: "allowed_user_needs_no_look_up", event: as(comment("/sandcastle"), "Friend", "User"),
			policy: Policy{AllowedUsers: []string{"friend"}}, want: Decision{Run: true}},
		{name: "no_sender_refused", event: as(comment("/sandcastle"), "", ""), reason: []string{"no sender"}},

		{name: "bot_refused_by_default", event: as(comment("/sandcastle"), "renovate[bot]", "Bot"),
			reason: []string{"renovate[bot] is a bot"}},
		{name: "bot_by_suffix_refused_whatever_its_type", event: as(comment("/sandcastle"), "evil-app[bot]", "User"),
			reason: []string{"evil-app[bot] is a bot"}},
		{name: "bot_by_type_refused", event: as(comment("/sandcastle"), "copilot", "Bot"), reason: []string{"copilot is a bot"}},
		{name: "allowed_user_list_does_not_admit_bots", event: as(comment("/sandcastle"), "renovate[bot]", "Bot"),
			policy: Policy{AllowedUsers: []string{"renovate[bot]"}}, reason: []string{"is a bot"}},
		{name: "allowed_bot_runs_without_look_up", event: as(comment("/sandcastle"), "renovate[bot]", "Bot"),
			policy: Policy{AllowedBots: []string{"renovate"}}, want: Decision{Run: true}},
		{name: "allowed_bot_with_suffix", event: as(comment("/sandcastle"), "dependabot[bot]", "Bot"),
			policy: Policy{AllowedBots: []string{"Dependabot[bot]"}}, want: Decision{Run: true}},
		{name: "other_bot_not_allowed_by_list", event: as(comment("/sandcastle"), "evil[bot]", "Bot"),
			policy: Policy{AllowedBots: []string{"renovate"}}, reason: []string{"evil[bot] is a bot"}},
		{name: "allow_bots_admits_an_app_without_look_up", event: as(comment("/sandcastle"), "ci-helper[bot]", "Bot"),
			policy: Policy{AllowBots: true}, want: Decision{Run: true}},
		{name: "allow_bots_admits_a_bot_by_type", event: as(comment("/sandcastle"), "Copilot", "Bot"),
			policy: Policy{AllowBots: true}, want: Decision{Run: true}},

		// What the action does itself comes back as events when its token's events start
		// workflows; none of them starts a run.
		{name: "own_comment_skipped", event: comment("**Sandcastle** is working. Last tool call: `grep @sandcastle`\n<!-- sandcastle:wf:job -->"),
			policy: own, want: Decision{Skip: true, Reason: "the comment is the action's own"}},
		{name: "own_label_skipped_without_trigger_label", event: issueEvent("labeled", "Agent:In-Progress"), policy: own,
			want: Decision{Skip: true, Reason: `label "Agent:In-Progress" is one the action moves itself`}},
		{name: "own_label_skipped_with_trigger_label", event: issueEvent("labeled", "agent:blocked"),
			policy: Policy{TriggerLabel: "agent:implement", OwnLabels: own.OwnLabels, Written: own.Written},
			want:   Decision{Skip: true, Reason: `label "agent:blocked" is one the action moves itself`}},
		{name: "unlabeled_skipped_without_trigger_label", event: issueEvent("unlabeled", "bug"),
			want: Decision{Skip: true, Reason: `label "bug" was removed, not added`}},
		{name: "own_pr_opened_skipped", event: ownPR("opened", ""), policy: own,
			want: Decision{Skip: true, Reason: "the pull request is the action's own, and was opened by it"}},
		{name: "own_pr_edited_skipped", event: ownPR("edited", ""), policy: own,
			want: Decision{Skip: true, Reason: "the pull request is the action's own, and was edited by it"}},
		{name: "own_pr_pushed_to_skipped", event: ownPR("synchronize", ""), policy: own,
			want: Decision{Skip: true, Reason: "the pull request is the action's own, and was pushed to by it"}},
		{name: "own_pr_labeled_by_a_person_runs", event: ownPR("labeled", "agent:fix"), policy: own, permission: perm("write"),
			want: Decision{Run: true}},
		{name: "someone_elses_pr_opened_runs", event: withBody(ownPR("opened", ""), "My change"), policy: own, permission: perm("write"),
			want: Decision{Run: true}},

		{name: "linked_pr_by_collaborator_refused", event: issueEvent("labeled", "agent:implement"),
			policy: Policy{RefuseIfLinkedPR: true}, permission: perm("write"),
			linkedPRs: prs(
				LinkedPR{Number: 50, URL: "https://github.com/o/r/pull/50", Author: "drive-by", AuthorAssociation: "NONE", Body: "Fixes #42"},
				LinkedPR{Number: 49, URL: "https://github.com/o/r/pull/49", Author: "carol", AuthorAssociation: "MEMBER", Body: "Related to #42, see there."},
				LinkedPR{Number: 51, URL: "https://github.com/o/r/pull/51", Author: "alice", AuthorAssociation: "COLLABORATOR", Body: "This resolves #42."},
			),
			want: Decision{Reason: "issue #42 already has open pull request #51 (https://github.com/o/r/pull/51) by collaborator alice; close it to run again"}},
		{name: "linked_pr_by_member_refused", event: comment("/sandcastle"), policy: Policy{RefuseIfLinkedPR: true}, permission: perm("write"),
			linkedPRs: prs(LinkedPR{Number: 7, Author: "bob", AuthorAssociation: "member", Body: "closes: #42"}),
			reason:    []string{"#7 by collaborator bob"}},
		{name: "linked_pr_that_only_mentions_runs", event: comment("/sandcastle"), policy: Policy{RefuseIfLinkedPR: true}, permission: perm("write"),
			linkedPRs: prs(LinkedPR{Number: 7, Author: "bob", AuthorAssociation: "OWNER", Body: "Part of #42; closes #420 and fixes other/repo#42"}),
			want:      Decision{Run: true}},
		{name: "linked_pr_by_outsider_or_bot_runs", event: issueEvent("labeled", "x"), policy: Policy{RefuseIfLinkedPR: true}, permission: perm("write"),
			linkedPRs: prs(
				LinkedPR{Number: 50, Author: "drive-by", AuthorAssociation: "FIRST_TIME_CONTRIBUTOR"},
				LinkedPR{Number: 52, Author: "github-actions[bot]", AuthorAssociation: "NONE"},
			),
			want: Decision{Run: true}},
		{name: "linked_pr_check_off_by_default", event: issueEvent("labeled", "x"), permission: perm("write"), want: Decision{Run: true}},
		{name: "linked_pr_not_checked_for_pr_comment", event: onPR(comment("/sandcastle")), policy: Policy{RefuseIfLinkedPR: true},
			permission: perm("write"), want: Decision{Run: true}},
		{name: "linked_pr_not_checked_when_actor_refused", event: comment("/sandcastle"), policy: Policy{RefuseIfLinkedPR: true},
			permission: perm("read"), reason: []string{"read permission"}},

		// A run on a pull request's own branch.
		{name: "on_pr_comment_on_an_issue_skipped", event: comment("/sandcastle"), policy: onPRPolicy,
			want: Decision{Skip: true, Reason: "the run works on a pull request's own branch, and #42, an issue is no pull request"}},
		{name: "on_pr_schedule_skipped", event: &Event{Name: Schedule}, policy: onPRPolicy,
			want: Decision{Skip: true, Reason: "the run works on a pull request's own branch, and the schedule event is no pull request"}},
		{name: "on_pr_same_repository_runs", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, HeadRepo: "o/r"}),
			policy: onPRPolicy, permission: perm("write"), want: Decision{Run: true}},
		{name: "on_pr_fork_refused", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, HeadRepo: "stranger/r", Fork: true}),
			policy: onPRPolicy, permission: perm("write"),
			reason: []string{"pull request #42 comes from the fork stranger/r", "allow-forks: true", "never to the fork"}},
		{name: "on_pr_deleted_fork_refused", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, Fork: true}),
			policy: onPRPolicy, permission: perm("write"), reason: []string{"comes from a fork,", "allow-forks"}},
		{name: "on_pr_closed_refused", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, HeadRepo: "o/r", Closed: true}),
			policy: onPRPolicy, permission: perm("write"), reason: []string{"pull request #42 is closed", "reopen it"}},
		{name: "on_pr_closed_fork_refused_as_closed", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, Fork: true, Closed: true}),
			policy: Policy{OnPullRequest: true, AllowForks: true}, permission: perm("write"), reason: []string{"is closed"}},
		{name: "on_pr_fork_allowed", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, HeadRepo: "stranger/r", Fork: true}),
			policy: Policy{OnPullRequest: true, AllowForks: true}, permission: perm("write"), want: Decision{Run: true}},
		{name: "on_pr_fork_by_reader_refused_for_the_reader", event: lookedUp(onPR(comment("/sandcastle")), PR{Number: 42, Fork: true}),
			policy: onPRPolicy, permission: perm("read"), reason: []string{"read permission"}},
		{name: "forks_run_without_on_pr", event: &Event{Name: PullRequestTarget, Action: "labeled", Actor: "mona", PR: &PR{Number: 61, Fork: true}, Label: "x"},
			permission: perm("write"), want: Decision{Run: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perms := fakePerms{t: t, permission: tt.permission, linkedPRs: tt.linkedPRs}
			got, err := Decide(t.Context(), tt.event, withDefaultPhrases(tt.policy), perms)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			// What the caller leaves unchecked for an event the run does not answer, Decide
			// must skip: the two may never disagree.
			if !tt.policy.Answers(tt.event) && !got.Skip {
				t.Errorf("Answers = false, but Decide = %+v", got)
			}
			if tt.reason == nil {
				if got != tt.want {
					t.Errorf("Decide = %+v, want %+v", got, tt.want)
				}
				return
			}
			if got.Run || got.Skip {
				t.Errorf("Decide = %+v, want a refusal", got)
			}
			for _, r := range tt.reason {
				if !strings.Contains(got.Reason, r) {
					t.Errorf("Reason %q does not contain %q", got.Reason, r)
				}
			}
		})
	}
}

func TestDecideLookUpErrorsPropagate(t *testing.T) {
	boom := errors.New("api: 502 bad gateway")
	tests := []struct {
		name  string
		perms fakePerms
		want  string
	}{
		{"permission", fakePerms{t: t, permission: func(string) (string, error) { return "", boom }},
			"decide: permission of mona: api: 502 bad gateway"},
		{"linked_prs", fakePerms{t: t,
			permission: func(string) (string, error) { return "write", nil },
			linkedPRs:  func(int) ([]LinkedPR, error) { return nil, boom }},
			"decide: open pull requests of issue #42: api: 502 bad gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Event{Name: Issues, Action: "labeled", Actor: "mona", Issue: &Issue{Number: 42}}
			tt.perms.t = t
			d, err := Decide(t.Context(), e, Policy{RefuseIfLinkedPR: true}, tt.perms)
			if !errors.Is(err, boom) {
				t.Fatalf("Decide = %+v, %v; want an error wrapping %v", d, err, boom)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDecideOnPullRequestNeedsTheLookUp: without the pull request a comment was made on, a run
// on its branch cannot tell a fork's from this repository's, and says so rather than run.
func TestDecideOnPullRequestNeedsTheLookUp(t *testing.T) {
	e := &Event{Name: IssueComment, Action: "created", Actor: "mona", Issue: &Issue{Number: 7, IsPR: true}, Comment: &Comment{Body: "/sandcastle"}}
	perms := fakePerms{t: t, permission: func(string) (string, error) { return "write", nil }}
	d, err := Decide(t.Context(), e, withDefaultPhrases(Policy{OnPullRequest: true}), perms)
	if err == nil || !strings.Contains(err.Error(), "pull request #7 was not looked up") {
		t.Errorf("Decide = %+v, %v; want an error saying the pull request was not looked up", d, err)
	}
}

func TestDecideNilPermissions(t *testing.T) {
	e := &Event{Name: IssueComment, Action: "created", Actor: "mona", Issue: &Issue{Number: 1}, Comment: &Comment{Body: "/sandcastle"}}
	if _, err := Decide(t.Context(), e, withDefaultPhrases(Policy{}), nil); err == nil {
		t.Error("Decide with nil Permissions needing a look-up: want an error")
	}
	if _, err := Decide(t.Context(), nil, Policy{}, nil); err == nil {
		t.Error("Decide(nil event): want an error")
	}
}

// TestDecideFixtures runs the decision over the recorded payloads, the way app will.
func TestDecideFixtures(t *testing.T) {
	tests := []struct {
		event, fixture string
		policy         Policy
		wantRun        bool
	}{
		{"issues", "issues_labeled.json", Policy{TriggerLabel: "agent:implement"}, true},
		{"issues", "issues_labeled.json", Policy{TriggerLabel: "agent:explore"}, false},
		{"issue_comment", "issue_comment_issue.json", Policy{}, true},
		{"issue_comment", "issue_comment_pr.json", Policy{}, true},
		{"pull_request_review_comment", "pull_request_review_comment.json", Policy{}, true},
		{"pull_request_target", "pull_request_target_fork_labeled.json", Policy{TriggerLabel: "agent:review"}, true},
		{"schedule", "schedule.json", Policy{}, true},
		{"release", "release_published.json", Policy{}, false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.fixture, ".json")+"_"+tt.policy.TriggerLabel, func(t *testing.T) {
			e, err := Load(tt.event, filepath.Join("testdata", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			perms := fakePerms{t: t, permission: func(user string) (string, error) {
				if user == "maintainer-mona" {
					return "admin", nil
				}
				return "read", nil
			}}
			d, err := Decide(t.Context(), e, withDefaultPhrases(tt.policy), perms)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := d.Run, tt.wantRun; got != want {
				t.Errorf("Run = %v (%q), want %v", got, d.Reason, want)
			}
		})
	}
}
