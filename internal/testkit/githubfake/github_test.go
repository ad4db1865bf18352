package githubfake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

const (
	ghToken  = "ghs_FakeGitHubToken0123456789ab"
	prMarker = "sandcastle:pr:issue-1"
)

// The endpoints, as the fake names them.
const (
	pullsPath    = "/repos/{owner}/{repo}/pulls"
	pullPath     = "/repos/{owner}/{repo}/pulls/{number}"
	commentsPath = "/repos/{owner}/{repo}/issues/{number}/comments"
	commentPath  = "/repos/{owner}/{repo}/issues/comments/{id}"
	labelsPath   = "/repos/{owner}/{repo}/issues/{number}/labels"
	labelPath    = "/repos/{owner}/{repo}/issues/{number}/labels/{name}"
	permPath     = "/repos/{owner}/{repo}/collaborators/{user}/permission"
)

// newClient returns the fake and internal/githubapi's real client pointed at it, as the app
// would build it from GITHUB_API_URL for a run on issue 1 (whose closing reference its gate
// keeps live), with waits between retries skipped.
func newClient(t *testing.T) (*githubfake.GitHub, *githubapi.Client) {
	t.Helper()
	gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
	return gh, clientFor(t, gh, ghToken)
}

func clientFor(t *testing.T, gh *githubfake.GitHub, token string) *githubapi.Client {
	t.Helper()
	c, err := githubapi.New(githubapi.Options{
		Token:  token,
		APIURL: gh.APIURL,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Gate:   githubapi.Gate{Closes: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordingClient is a client of gh whose waits between retries are recorded, not waited.
func recordingClient(t *testing.T, gh *githubfake.GitHub) (*githubapi.Client, *[]time.Duration) {
	t.Helper()
	var waits []time.Duration
	c, err := githubapi.New(githubapi.Options{Token: ghToken, APIURL: gh.APIURL,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return c, &waits
}

func prSpec(title, body string) githubapi.PRSpec {
	return githubapi.PRSpec{Owner: "octo", Repo: "repo", Head: "sandcastle/issue-1", Base: "main",
		Title: title, Body: body, Draft: true, Marker: prMarker}
}

// TestGitHub_pr_created_then_updated: a re-run finds its pull request by the marker and
// updates it; the draft flag, head and base stay as created.
func TestGitHub_pr_created_then_updated(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.SetLabels(1, "sandcastle") // issue 1 exists, so the pull request is #2

	first, created, err := c.UpsertPR(t.Context(), prSpec("first", "Fixes #1"))
	if err != nil || !created {
		t.Fatalf("first UpsertPR: created %v, err %v", created, err)
	}
	second, created, err := c.UpsertPR(t.Context(), prSpec("second", "Fixes #1 again"))
	if err != nil || created {
		t.Fatalf("second UpsertPR: created %v, err %v", created, err)
	}
	if got, want := second, first; got != want {
		t.Errorf("second UpsertPR returned %+v, want %+v", got, want)
	}

	prs := gh.PRs()
	if got, want := len(prs), 1; got != want {
		t.Fatalf("%d pull requests, want %d: %+v", got, want, prs)
	}
	pr := prs[0]
	want := githubfake.PR{Number: 2, Head: "octo:sandcastle/issue-1", Base: "main", Title: "second",
		Body: "Fixes #1 again\n\n<!-- " + prMarker + " -->", Draft: true, State: "open",
		URL: gh.URL + "/octo/repo/pull/2", Edits: 1}
	if pr != want {
		t.Errorf("pull request = %+v\nwant %+v", pr, want)
	}
	if got, want := first.URL, want.URL; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	if got, want := gh.Calls("POST", pullsPath), 1; got != want {
		t.Errorf("POST pulls: %d calls, want %d", got, want)
	}
	if got, want := gh.Calls("PATCH", pullPath), 1; got != want {
		t.Errorf("PATCH pull: %d calls, want %d", got, want)
	}
	if got := gh.Bodies("POST", pullsPath); len(got) != 1 || !strings.Contains(got[0], `"draft":true`) {
		t.Errorf("POST pulls bodies = %q, want one asking for a draft", got)
	}
}

// TestGitHub_pr_list_filters: pull requests that are closed or from another head are not
// the run's, so a new one is opened beside them.
func TestGitHub_pr_list_filters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing githubfake.PR
	}{
		{"closed", githubfake.PR{Head: "sandcastle/issue-1", Base: "main", Body: "<!-- " + prMarker + " -->", State: "closed"}},
		{"other_head", githubfake.PR{Head: "sandcastle/issue-9", Base: "main", Body: "<!-- " + prMarker + " -->"}},
		{"other_owner", githubfake.PR{Head: "fork:sandcastle/issue-1", Base: "main", Body: "<!-- " + prMarker + " -->"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, c := newClient(t)
			old := gh.AddPR(tt.existing)
			pr, created, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
			if err != nil || !created {
				t.Fatalf("UpsertPR: created %v, err %v", created, err)
			}
			if pr.Number == old.Number {
				t.Errorf("UpsertPR reused #%d", old.Number)
			}
			if got, want := len(gh.PRs()), 2; got != want {
				t.Errorf("%d pull requests, want %d", got, want)
			}
		})
	}
}

// TestGitHub_pr_already_exists: like GitHub, the fake refuses a second open pull request
// from one head with 422, which the client answers by adopting the first.
func TestGitHub_pr_already_exists(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	human := gh.AddPR(githubfake.PR{Head: "sandcastle/issue-1", Base: "main", Title: "by hand"})
	pr, created, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
	if err != nil || created {
		t.Fatalf("UpsertPR: created %v, err %v", created, err)
	}
	if got, want := pr.Number, human.Number; got != want {
		t.Errorf("UpsertPR updated #%d, want #%d", got, want)
	}
	if got, want := gh.Calls("POST", pullsPath), 1; got != want {
		t.Errorf("POST pulls: %d calls, want %d (the refused one)", got, want)
	}
	if got, want := len(gh.PRs()), 1; got != want {
		t.Errorf("%d pull requests, want %d", got, want)
	}
}

// TestGitHub_adopted_pr_keeps_their_title_and_body: a pull request someone else opened from
// the run's branch keeps their title and body, on adoption and on every later run; the run's
// text sits in a section of its own, which is what later runs replace, and what they wrote
// below it stays too.
func TestGitHub_adopted_pr_keeps_their_title_and_body(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	human := gh.AddPR(githubfake.PR{Head: "sandcastle/issue-1", Base: "main", Title: "My own title", Body: "What I want, in my words."})
	pr, created, err := c.UpsertPR(t.Context(), prSpec("Run title", "Run summary one"))
	if err != nil || created || pr.Number != human.Number || !pr.Adopted {
		t.Fatalf("UpsertPR = %+v, created %v, err %v; want #%d adopted", pr, created, err, human.Number)
	}
	gh.SetPRBody(human.Number, gh.PRs()[0].Body+"\n\nAdded later by me.")
	spec := prSpec("Run title again", "Run summary two")
	spec.Base = "develop"
	if _, _, err := c.UpsertPR(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	got := gh.PRs()[0]
	if got.Title != "My own title" || got.Base != "main" {
		t.Errorf("title %q, base %q; want theirs kept", got.Title, got.Base)
	}
	for _, want := range []string{"What I want, in my words.", "Run summary two", "Added later by me.", "<!-- " + prMarker + " -->"} {
		if !strings.Contains(got.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, got.Body)
		}
	}
	if strings.Contains(got.Body, "Run summary one") || strings.Count(got.Body, prMarker) != 2 {
		t.Errorf("body keeps the earlier run's text or repeats its section:\n%s", got.Body)
	}
}

// TestGitHub_draft_refused_opens_ready: where drafts are not supported GitHub answers 422, and
// the client opens the pull request ready for review once, saying so.
func TestGitHub_draft_refused_opens_ready(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.RefuseDrafts()
	pr, created, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
	if err != nil || !created || !pr.DraftRefused {
		t.Fatalf("UpsertPR = %+v, created %v, err %v; want it created, the draft refused", pr, created, err)
	}
	if prs := gh.PRs(); len(prs) != 1 || prs[0].Draft {
		t.Errorf("pull requests = %+v, want one, ready for review", prs)
	}
	if got, want := gh.Calls("POST", pullsPath), 2; got != want {
		t.Errorf("POST pulls: %d calls, want %d", got, want)
	}
}

// TestGitHub_actions_may_not_create_prs: with the repository's "Allow GitHub Actions to create
// and approve pull requests" off, GitHub answers 403, and the error names that setting.
func TestGitHub_actions_may_not_create_prs(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.RefuseActionsPRs()
	_, _, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
	for _, want := range []string{"403 GitHub Actions is not permitted to create or approve pull requests", "Workflow permissions", "Allow GitHub Actions to create and approve pull requests"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("UpsertPR error = %v, want it to contain %q", err, want)
		}
	}
	if got, want := gh.Calls("POST", pullsPath), 1; got != want {
		t.Errorf("POST pulls: %d calls, want %d: a 403 that is no rate limit is not retried", got, want)
	}
}

// TestGitHub_head_not_yet_seen_is_retried: right after the push GitHub may not know the head
// branch yet and answers 422 on head; the creation is tried again a few seconds later.
func TestGitHub_head_not_yet_seen_is_retried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		times   int
		created bool
		waits   int
	}{
		{"seen_soon", 2, true, 2},
		{"never_seen", 10, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
			c, waits := recordingClient(t, gh)
			gh.HeadNotYetSeenNext(tt.times)
			_, created, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
			if created != tt.created || (err == nil) != tt.created {
				t.Fatalf("UpsertPR: created %v, err %v; want created %v", created, err, tt.created)
			}
			if !tt.created && !strings.Contains(err.Error(), "PullRequest head invalid") {
				t.Errorf("error %q does not say GitHub refused the head", err)
			}
			if len(*waits) != tt.waits || (*waits)[0] < time.Second {
				t.Errorf("waits = %v, want %d of at least a second", *waits, tt.waits)
			}
		})
	}
}

// TestGitHub_too_many_requests_waits_a_minute: a 429 that says nothing of when to come back
// is retried only after a minute, as GitHub asks.
func TestGitHub_too_many_requests_waits_a_minute(t *testing.T) {
	t.Parallel()
	gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
	c, waits := recordingClient(t, gh)
	gh.SetPermission("alice", "write")
	gh.TooManyRequestsNext("GET", permPath, 1)
	if got, err := c.Permission(t.Context(), "octo", "repo", "alice"); err != nil || got != "write" {
		t.Fatalf("Permission = %q, %v", got, err)
	}
	if len(*waits) != 1 || (*waits)[0] < time.Minute {
		t.Errorf("waits = %v, want one of at least a minute", *waits)
	}
}

// TestGitHub_injected_422: FailNext answers one request and changes nothing; the client
// reports GitHub's message.
func TestGitHub_injected_422(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.FailNext("POST", pullsPath, http.StatusUnprocessableEntity,
		`{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"No commits between main and sandcastle/issue-1"}]}`)

	_, _, err := c.UpsertPR(t.Context(), prSpec("title", "body"))
	var apiErr *githubapi.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnprocessableEntity {
		t.Fatalf("UpsertPR error = %v, want a githubapi.Error with status 422", err)
	}
	if !strings.Contains(err.Error(), "No commits between main and sandcastle/issue-1") {
		t.Errorf("error %q does not carry GitHub's message", err)
	}
	if got := gh.PRs(); len(got) != 0 {
		t.Errorf("pull requests after a refused creation: %+v", got)
	}
	if _, created, err := c.UpsertPR(t.Context(), prSpec("title", "body")); err != nil || !created {
		t.Errorf("UpsertPR after the failure: created %v, err %v; want the failure answered once", created, err)
	}
}

// TestGitHub_comment_edited_not_duplicated: the progress comment is found by its marker on
// any page and edited in place.
func TestGitHub_comment_edited_not_duplicated(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	const marker = "sandcastle:progress:issue-1"
	// Earlier comments put the progress comment on the second page (GitHub's pages hold at
	// most 100).
	for i := range 150 {
		gh.AddComment(1, "someone", "NONE", fmt.Sprintf("chatter %d", i))
	}
	first, created, err := c.UpsertComment(t.Context(), "octo", "repo", 1, marker, "iteration 1 of 3")
	if err != nil || !created {
		t.Fatalf("first UpsertComment: created %v, err %v", created, err)
	}
	second, created, err := c.UpsertComment(t.Context(), "octo", "repo", 1, marker, "done")
	if err != nil || created {
		t.Fatalf("second UpsertComment: created %v, err %v", created, err)
	}
	if got, want := second, first; got != want {
		t.Errorf("second UpsertComment returned %+v, want %+v", got, want)
	}

	comments := gh.Comments(1)
	if got, want := len(comments), 151; got != want {
		t.Fatalf("%d comments, want %d", got, want)
	}
	got := comments[150]
	want := githubfake.Comment{ID: first.ID, Issue: 1, Body: "done\n\n<!-- " + marker + " -->",
		URL: fmt.Sprintf("%s/octo/repo/issues/1#issuecomment-%d", gh.URL, first.ID), Edits: 1,
		Author: "github-actions[bot]", AuthorAssociation: "NONE"}
	if got != want {
		t.Errorf("comment = %+v\nwant %+v", got, want)
	}
	if got, want := gh.Calls("GET", commentsPath), 2+2; got != want {
		t.Errorf("GET comments: %d calls, want %d (two pages for each upsert)", got, want)
	}
	if got, want := gh.Calls("POST", commentsPath), 1; got != want {
		t.Errorf("POST comments: %d calls, want %d", got, want)
	}
	if got, want := gh.Calls("PATCH", commentPath), 1; got != want {
		t.Errorf("PATCH comment: %d calls, want %d", got, want)
	}
}

// TestGitHub_labels: labels are added once (GitHub compares them without case) and removed
// by a name escaped in the path; removing an absent label is GitHub's 404.
func TestGitHub_labels(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.SetLabels(1, "sandcastle")
	if err := c.AddLabels(t.Context(), "octo", "repo", 1, "in progress", "Sandcastle", "area/ci"); err != nil {
		t.Fatal(err)
	}
	if got, want := gh.Labels(1), []string{"sandcastle", "in progress", "area/ci"}; !slices.Equal(got, want) {
		t.Errorf("labels after add = %q, want %q", got, want)
	}
	for _, l := range []string{"in progress", "area/ci", "absent"} {
		if err := c.RemoveLabel(t.Context(), "octo", "repo", 1, l); err != nil {
			t.Errorf("RemoveLabel(%q): %v", l, err)
		}
	}
	if got, want := gh.Labels(1), []string{"sandcastle"}; !slices.Equal(got, want) {
		t.Errorf("labels after remove = %q, want %q", got, want)
	}
	if got, want := gh.Calls("DELETE", labelPath), 3; got != want {
		t.Errorf("DELETE label: %d calls, want %d", got, want)
	}
	if got, want := gh.Bodies("POST", labelsPath), []string{`["in progress","Sandcastle","area/ci"]` + "\n"}; !slices.Equal(got, want) {
		t.Errorf("POST labels bodies = %q, want %q", got, want)
	}
}

// TestGitHub_permission: roles come back as set; a user the repository does not know gets
// 404, which the client reads as none.
func TestGitHub_permission(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	roles := []string{"admin", "maintain", "write", "triage", "read", "none"}
	for _, role := range roles {
		gh.SetPermission("user-"+role, role)
	}
	for _, role := range append(roles, "stranger") {
		t.Run(role, func(t *testing.T) {
			want := role
			if role == "stranger" {
				want = "none"
			}
			got, err := c.Permission(t.Context(), "octo", "repo", "User-"+role) // logins ignore case
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Permission = %q, want %q", got, want)
			}
		})
	}
	if got, err := c.Permission(t.Context(), "octo", "repo", "some-app[bot]"); err != nil || got != "none" {
		t.Errorf("Permission of an App's bot = %q, %v; want none: an App is never a collaborator", got, err)
	}
	gh.ForbidNext("GET", permPath, "Resource not accessible by integration", "pull_requests=write")
	if _, err := c.Permission(t.Context(), "octo", "repo", "user-read"); err == nil || !strings.Contains(err.Error(), "Resource not accessible by integration") || !strings.Contains(err.Error(), "pull-requests: write") {
		t.Errorf("Permission after ForbidNext = %v; want the 403 with the permission GitHub accepts", err)
	}
	if got, want := gh.Calls("GET", permPath), len(roles)+3; got != want {
		t.Errorf("GET permission: %d calls, want %d", got, want)
	}
}

// TestGitHub_rate_limit: a secondary rate limit is retried; one that outlasts the retries
// is the client's clear error.
func TestGitHub_rate_limit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		times   int
		wantErr bool
	}{
		{"lifts", 2, false},
		{"outlasts_retries", 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, c := newClient(t)
			gh.SetPermission("alice", "write")
			gh.RateLimitNext("GET", permPath, tt.times, 0)
			got, err := c.Permission(t.Context(), "octo", "repo", "alice")
			var retry *githubapi.RetryError
			if gotErr := errors.As(err, &retry) && retry.RateLimited; gotErr != tt.wantErr {
				t.Fatalf("Permission = %q, %v; want a rate-limit error: %v", got, err, tt.wantErr)
			}
			if !tt.wantErr && got != "write" {
				t.Errorf("Permission = %q, want write", got)
			}
			if got, want := gh.Calls("GET", permPath), min(tt.times+1, 4); got != want {
				t.Errorf("GET permission: %d calls, want %d", got, want)
			}
		})
	}
}

// TestGitHub_linked_prs: the timeline lists the cross-references GitHub would: set ones,
// and the fake's own pull requests whose body mentions the issue.
func TestGitHub_linked_prs(t *testing.T) {
	t.Parallel()
	gh, c := newClient(t)
	gh.AddLinkedPR(1, githubfake.LinkedPR{Number: 10, Author: "alice", AuthorAssociation: "COLLABORATOR"})
	gh.AddLinkedPR(1, githubfake.LinkedPR{Number: 11, Author: "bob", AuthorAssociation: "MEMBER", State: "closed"})
	gh.AddLinkedPR(1, githubfake.LinkedPR{Number: 3, Author: "carol", AuthorAssociation: "OWNER", Repo: "other/repo"})
	pr, _, err := c.UpsertPR(t.Context(), prSpec("title", "Fixes #1"))
	if err != nil {
		t.Fatal(err)
	}

	got, err := c.OpenLinkedPRs(t.Context(), "octo", "repo", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []githubapi.LinkedPR{
		{Number: 10, URL: gh.URL + "/octo/repo/pull/10", Author: "alice", AuthorAssociation: "COLLABORATOR"},
		{Number: pr.Number, URL: pr.URL, Author: "github-actions[bot]", AuthorAssociation: "NONE", Body: gh.PRs()[0].Body},
	}
	if !slices.Equal(got, want) {
		t.Errorf("OpenLinkedPRs = %+v\nwant %+v", got, want)
	}
	if got, want := pr.Number, 12; got != want {
		t.Errorf("new pull request is #%d, want #%d (after every number in use)", got, want)
	}
}

// TestGitHub_refuses: a wrong token is 401 and another repository 404, before any state
// changes.
func TestGitHub_refuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		token  string
		owner  string
		status int
	}{
		{"wrong_token", "ghs_wrong", "octo", http.StatusUnauthorized},
		{"other_repository", ghToken, "other", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
			c := clientFor(t, gh, tt.token)
			err := c.AddLabels(t.Context(), tt.owner, "repo", 1, "sandcastle")
			var apiErr *githubapi.Error
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status {
				t.Fatalf("AddLabels error = %v, want status %d", err, tt.status)
			}
			if got := gh.Labels(1); len(got) != 0 {
				t.Errorf("labels = %q, want none", got)
			}
			if got, want := gh.Calls("POST", labelsPath), 1; got != want {
				t.Errorf("POST labels: %d calls, want %d", got, want)
			}
		})
	}
}
