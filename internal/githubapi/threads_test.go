package githubapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

const (
	replyEndpoint  = "/repos/{owner}/{repo}/pulls/{number}/comments/{id}/replies"
	issueReactions = "/repos/{owner}/{repo}/issues/comments/{id}/reactions"
)

// TestRepo_PullRequest reads the pull request a comment was made on, as GitHub has it now: its
// branches, its head, whether the head is a fork's (or a deleted fork's), and the repository's
// default branch.
func TestRepo_PullRequest(t *testing.T) {
	r, gh := repoRig(t, "")
	gh.AddPR(githubfake.PR{Number: 5, Head: "feature", Base: "main", Title: "Add x", Body: "Adds x", HeadSHA: strings.Repeat("a", 40)})
	gh.AddPR(githubfake.PR{Number: 6, Head: "stranger:patch-1", Base: "main", Title: "Typo", HeadSHA: strings.Repeat("b", 40)})
	gh.AddPR(githubfake.PR{Number: 7, Head: "done", Base: "main", State: "closed"})

	got, err := r.PullRequest(t.Context(), 5)
	want := &event.PR{Number: 5, Title: "Add x", Body: "Adds x", HeadRef: "feature", BaseRef: "main", HeadSHA: strings.Repeat("a", 40), HeadRepo: "octo/widgets",
		DefaultBranch: "main"}
	if err != nil || *got != *want {
		t.Errorf("PullRequest(5) = %+v, %v; want %+v", got, err, want)
	}
	got, err = r.PullRequest(t.Context(), 6)
	if err != nil || !got.Fork || got.HeadRepo != "stranger/widgets" || got.HeadRef != "patch-1" {
		t.Errorf("PullRequest(6) = %+v, %v; want the fork stranger/widgets's patch-1", got, err)
	}
	if got, err = r.PullRequest(t.Context(), 7); err != nil || !got.Closed {
		t.Errorf("PullRequest(7) = %+v, %v; want it closed", got, err)
	}
	if _, err := r.PullRequest(t.Context(), 99); err == nil || !strings.Contains(err.Error(), "get pull request octo/widgets#99") || !strings.Contains(err.Error(), "404") {
		t.Errorf("PullRequest(99) error = %v, want a 404 naming the pull request", err)
	}
}

// TestRepo_PullRequest_forbidden_says_what_to_grant: a token that may not read pull requests
// (a permissions: block without pull-requests) gets a hint naming the permission, the one
// GitHub names when it does.
func TestRepo_PullRequest_forbidden_says_what_to_grant(t *testing.T) {
	for _, tt := range []struct{ accepted, want string }{
		{"", "the token may not read pull requests: give the job `pull-requests: read`"},
		{"pull_requests=read", "GitHub says the look-up needs `pull-requests: read`"},
	} {
		r, gh := repoRig(t, "")
		gh.AddPR(githubfake.PR{Number: 5, Head: "feature", Base: "main", HeadSHA: strings.Repeat("a", 40)})
		gh.ForbidNext("GET", "/repos/{owner}/{repo}/pulls/{number}", "Resource not accessible by integration", tt.accepted)
		_, err := r.PullRequest(t.Context(), 5)
		if err == nil || !strings.Contains(err.Error(), "get pull request octo/widgets#5: 403 Resource not accessible by integration; "+tt.want) {
			t.Errorf("accepted %q: PullRequest(5) error = %v, want the 403 and %q", tt.accepted, err, tt.want)
		}
	}
}

// threadRig is a Repo on pull request 42 whose run a review comment started, replying (when
// reply) to the comment that starts the thread.
func threadRig(t *testing.T, reply bool) (*Repo, *githubfake.GitHub, githubfake.ReviewComment) {
	t.Helper()
	r, gh := repoRig(t, "")
	gh.AddPR(githubfake.PR{Number: 42, Head: "feature", Base: "main"})
	first := gh.AddReviewComment(githubfake.ReviewComment{PR: 42, Path: "main.go", Line: 3, DiffHunk: "@@ -1 +1,3 @@",
		Body: "@sandcastle extract a helper", Author: "maintainer", AuthorAssociation: "MEMBER"})
	trigger := first
	if reply {
		trigger = gh.AddReviewComment(githubfake.ReviewComment{PR: 42, InReplyTo: first.ID, Path: "main.go", Line: 3,
			Body: "/sandcastle do it", Author: "maintainer", AuthorAssociation: "MEMBER"})
	}
	r.Trigger = Trigger{ID: trigger.ID, Thread: first.ID}
	return r, gh, first
}

// TestLiveComment_in_a_review_thread: the progress of a run a review comment started is a
// reply in its thread, edited there, never a comment on the pull request's conversation; a
// re-run edits the same reply, and a stranger's reply that copies the marker is left alone.
func TestLiveComment_in_a_review_thread(t *testing.T) {
	for _, reply := range []bool{false, true} {
		t.Run(map[bool]string{false: "on_the_first_comment", true: "on_a_reply"}[reply], func(t *testing.T) {
			r, gh, first := threadRig(t, reply)
			gh.AddReviewComment(githubfake.ReviewComment{PR: 42, InReplyTo: first.ID, Body: "fake status <!-- sandcastle:wf:job -->",
				Author: "stranger", AuthorAssociation: "NONE"})
			live := r.LiveComment(func(w string) { t.Error("warning: " + w) })
			if err := live.Start(t.Context(), "starting"); err != nil {
				t.Fatal(err)
			}
			live.Finish(t.Context(), "finished")
			again := r.LiveComment(func(w string) { t.Error("warning: " + w) })
			if err := again.Start(t.Context(), "starting again"); err != nil {
				t.Fatal(err)
			}
			again.Finish(t.Context(), "finished again")

			var ours []githubfake.ReviewComment
			for _, c := range gh.ReviewComments(42) {
				if c.Author == "github-actions[bot]" {
					ours = append(ours, c)
				}
			}
			if len(ours) != 1 || ours[0].InReplyTo != first.ID || !strings.HasPrefix(ours[0].Body, "finished again") || ours[0].Edits != 3 {
				t.Fatalf("the run's review comments = %+v; want one reply to %d, edited to the re-run's end", ours, first.ID)
			}
			if live.URL() != ours[0].URL || !strings.Contains(live.URL(), "/pull/42#discussion_r") {
				t.Errorf("URL = %q, want the reply's %q", live.URL(), ours[0].URL)
			}
			if got := gh.Comments(42); len(got) != 0 {
				t.Errorf("comments on the conversation = %+v, want none", got)
			}
			if n := gh.Calls("POST", replyEndpoint); n != 1 {
				t.Errorf("%d replies posted, want 1", n)
			}
		})
	}
}

// TestRepo_Answer_in_a_review_thread: a refusal is answered where it was asked.
func TestRepo_Answer_in_a_review_thread(t *testing.T) {
	r, gh, first := threadRig(t, false)
	url, err := r.Answer(t.Context(), "**Sandcastle** did not run")
	if err != nil || !strings.Contains(url, "#discussion_r") {
		t.Fatalf("Answer = %q, %v", url, err)
	}
	got := gh.ReviewComments(42)
	if len(got) != 2 || got[1].InReplyTo != first.ID || !Marked(got[1].Body, "sandcastle:wf:job:refused") || len(gh.Comments(42)) != 0 {
		t.Errorf("review comments %+v, comments %+v; want the refusal as a reply in the thread", got, gh.Comments(42))
	}
}

// TestReply_to_a_reply_is_refused: GitHub takes replies to a thread's first comment only,
// which is why a Trigger names the thread; the fake refuses the others as GitHub does.
func TestReply_to_a_reply_is_refused(t *testing.T) {
	r, _, _ := threadRig(t, true)
	r.Trigger.Thread = r.Trigger.ID // the reply itself
	if _, err := r.Answer(t.Context(), "body"); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("a reply to a reply: %v, want GitHub's 422", err)
	}
}

// TestRepo_React: reactions go on the comment that started the run, an issue comment's or a
// review comment's through its own endpoint, and come off again; a run no comment started
// reacts to nothing.
func TestRepo_React(t *testing.T) {
	t.Run("issue_comment", func(t *testing.T) {
		r, gh := repoRig(t, "")
		c := gh.AddComment(42, "maintainer", "MEMBER", "/sandcastle")
		r.Trigger = Trigger{ID: c.ID}
		eyes, err := r.React(t.Context(), "eyes")
		if err != nil || eyes == 0 {
			t.Fatalf("React(eyes) = %d, %v", eyes, err)
		}
		if again, err := r.React(t.Context(), "eyes"); err != nil || again != eyes {
			t.Errorf("React(eyes) again = %d, %v; want GitHub's answer, the same reaction %d", again, err, eyes)
		}
		if err := r.Unreact(t.Context(), eyes); err != nil {
			t.Fatal(err)
		}
		if err := r.Unreact(t.Context(), eyes); err != nil {
			t.Errorf("taking off a reaction already gone: %v, want no error", err)
		}
		if _, err := r.React(t.Context(), "rocket"); err != nil {
			t.Fatal(err)
		}
		if got := gh.Reactions(c.ID); !slices.Equal(got, []string{"rocket"}) {
			t.Errorf("reactions = %q, want rocket alone", got)
		}
		if _, err := r.React(t.Context(), "party"); err == nil || !strings.Contains(err.Error(), "422") {
			t.Errorf("React(party) = %v, want GitHub's 422", err)
		}
	})
	t.Run("review_comment", func(t *testing.T) {
		r, gh, _ := threadRig(t, true)
		if _, err := r.React(t.Context(), "confused"); err != nil {
			t.Fatal(err)
		}
		if got := gh.Reactions(r.Trigger.ID); !slices.Equal(got, []string{"confused"}) || gh.Calls("POST", issueReactions) != 0 {
			t.Errorf("reactions = %q; want confused on the review comment, through the pulls endpoint", got)
		}
	})
	t.Run("no_comment", func(t *testing.T) {
		r, gh := repoRig(t, "")
		if id, err := r.React(t.Context(), "eyes"); id != 0 || err != nil || len(gh.Requests()) != 0 {
			t.Errorf("React without a trigger = %d, %v, requests %q; want nothing asked", id, err, gh.Requests())
		}
		if err := r.Unreact(t.Context(), 0); err != nil {
			t.Error(err)
		}
	})
}
