package githubfake_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

// The fake's issue, review and reaction routes, driven through go-github as a client of them
// would drive them.

// goGitHub returns the fake and a go-github client of it with the fake's token.
func goGitHub(t *testing.T) (*githubfake.GitHub, *github.Client) {
	t.Helper()
	gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
	c, err := github.NewClient(nil).WithAuthToken(ghToken).WithEnterpriseURLs(gh.APIURL+"/", gh.APIURL+"/")
	if err != nil {
		t.Fatal(err)
	}
	return gh, c
}

// wantStatus fails the test unless err is GitHub's answer with status.
func wantStatus(t *testing.T, what string, err error, status int) {
	t.Helper()
	var e *github.ErrorResponse
	if !errors.As(err, &e) || e.Response.StatusCode != status {
		t.Errorf("%s: err %v, want HTTP %d", what, err, status)
	}
}

func labelNames(ls []*github.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}

// TestGitHub_issue_get_list_edit: issues are read with their labels, listed by state (open
// unless asked), and closed or reopened with a reason; a pull request reads as an issue that
// is one, and a bad state or reason is a 422 that changes nothing.
func TestGitHub_issue_get_list_edit(t *testing.T) {
	t.Parallel()
	gh, c := goGitHub(t)
	ctx := t.Context()
	open := gh.AddIssue(githubfake.Issue{Title: "Crash on start", Body: "It crashes."}, "bug", "sandcastle")
	closed := gh.AddIssue(githubfake.Issue{Title: "Old", State: "closed", StateReason: "completed", Author: "alice"})
	pr := gh.AddPR(githubfake.PR{Head: "feature", Base: "main", Title: "A change", State: "open"})

	is, _, err := c.Issues.Get(ctx, "octo", "repo", open.Number)
	if err != nil {
		t.Fatal(err)
	}
	if is.GetTitle() != "Crash on start" || is.GetBody() != "It crashes." || is.GetState() != "open" || is.StateReason != nil ||
		is.GetUser().GetLogin() != "octocat" || is.IsPullRequest() ||
		!slices.Equal(labelNames(is.Labels), []string{"bug", "sandcastle"}) || is.GetHTMLURL() != gh.URL+"/octo/repo/issues/1" {
		t.Errorf("issue #%d = %+v", open.Number, is)
	}
	if is, _, err := c.Issues.Get(ctx, "octo", "repo", closed.Number); err != nil || is.GetStateReason() != "completed" || is.GetUser().GetLogin() != "alice" {
		t.Errorf("issue #%d = %+v, err %v; want closed as completed, by alice", closed.Number, is, err)
	}
	if is, _, err := c.Issues.Get(ctx, "octo", "repo", pr.Number); err != nil || !is.IsPullRequest() || is.GetTitle() != "A change" {
		t.Errorf("issue #%d (a pull request) = %+v, err %v", pr.Number, is, err)
	}
	_, _, err = c.Issues.Get(ctx, "octo", "repo", 99)
	wantStatus(t, "get issue #99", err, http.StatusNotFound)
	_, _, err = c.Issues.Get(ctx, "octo", "other", open.Number)
	wantStatus(t, "get an issue of another repository", err, http.StatusNotFound)

	for state, want := range map[string][]int{"": {open.Number}, "open": {open.Number}, "closed": {closed.Number}, "all": {open.Number, closed.Number}} {
		list, _, err := c.Issues.ListByRepo(ctx, "octo", "repo", &github.IssueListByRepoOptions{State: state})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, is := range list {
			got = append(got, is.GetNumber())
		}
		if !slices.Equal(got, want) {
			t.Errorf("issues listed with state %q: %v, want %v", state, got, want)
		}
	}

	is, _, err = c.Issues.Edit(ctx, "octo", "repo", open.Number, &github.IssueRequest{State: github.String("closed"), StateReason: github.String("not_planned")})
	if err != nil || is.GetState() != "closed" || is.GetStateReason() != "not_planned" {
		t.Fatalf("close #%d: %+v, err %v", open.Number, is, err)
	}
	for _, bad := range []*github.IssueRequest{{State: github.String("merged")}, {StateReason: github.String("duplicate")}} {
		_, _, err = c.Issues.Edit(ctx, "octo", "repo", open.Number, bad)
		wantStatus(t, "edit with "+jsonOf(t, bad), err, http.StatusUnprocessableEntity)
	}
	_, _, err = c.Issues.Edit(ctx, "octo", "repo", 99, &github.IssueRequest{State: github.String("closed")})
	wantStatus(t, "edit issue #99", err, http.StatusNotFound)
	want := open
	want.State, want.StateReason, want.Edits = "closed", "not_planned", 1
	if got := gh.Issue(open.Number); got != want {
		t.Errorf("issue after the edits = %+v, want %+v", got, want)
	}
}

// TestGitHub_pr_lookup: a pull request reads with its head's branch, commit and repository (a
// fork when the head is under another owner) and the base's repository.
func TestGitHub_pr_lookup(t *testing.T) {
	t.Parallel()
	gh, c := goGitHub(t)
	fork := gh.AddPR(githubfake.PR{Head: "alice:fix", Base: "main", Title: "From a fork", State: "open", HeadSHA: "abc123"})
	own := gh.AddPR(githubfake.PR{Head: "octo:sandcastle/issue-1", Base: "develop", State: "open", Draft: true})

	pr, _, err := c.PullRequests.Get(t.Context(), "octo", "repo", fork.Number)
	if err != nil {
		t.Fatal(err)
	}
	head, base := pr.GetHead(), pr.GetBase()
	if pr.GetTitle() != "From a fork" || head.GetRef() != "fix" || head.GetSHA() != "abc123" || head.GetUser().GetLogin() != "alice" ||
		head.GetRepo().GetFullName() != "alice/repo" || !head.GetRepo().GetFork() || head.GetRepo().GetCloneURL() != gh.URL+"/alice/repo.git" {
		t.Errorf("pull request #%d: head %+v", fork.Number, head)
	}
	if base.GetRef() != "main" || base.GetRepo().GetFullName() != "octo/repo" || base.GetRepo().GetFork() || base.GetRepo().GetDefaultBranch() != "main" {
		t.Errorf("pull request #%d: base %+v", fork.Number, base)
	}
	pr, _, err = c.PullRequests.Get(t.Context(), "octo", "repo", own.Number)
	if err != nil || !pr.GetDraft() || pr.GetHead().GetRepo().GetFork() || pr.GetHead().GetRepo().GetFullName() != "octo/repo" || pr.GetBase().GetRef() != "develop" {
		t.Errorf("pull request #%d = %+v, err %v; want a draft from the repository itself onto develop", own.Number, pr, err)
	}
	_, _, err = c.PullRequests.Get(t.Context(), "octo", "repo", 99)
	wantStatus(t, "get pull request #99", err, http.StatusNotFound)
}

// diffPatch changes a.go: line 1 kept, line 2 replaced, a line added.
const diffPatch = "@@ -1,2 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n+var y = 3"

// TestGitHub_reviews: a review's comments must sit on lines of the diff (a removed line on the
// LEFT, an added or kept one on the RIGHT), else the whole review is a 422 that stores nothing;
// stored reviews and their comments list back.
func TestGitHub_reviews(t *testing.T) {
	t.Parallel()
	gh, c := goGitHub(t)
	ctx := t.Context()
	pr := gh.AddPR(githubfake.PR{Head: "feature", Base: "main", State: "open"})
	gh.SetFiles(pr.Number, githubfake.File{Name: "a.go", Patch: diffPatch})

	files, _, err := c.PullRequests.ListFiles(ctx, "octo", "repo", pr.Number, nil)
	if err != nil || len(files) != 1 || files[0].GetFilename() != "a.go" || files[0].GetPatch() != diffPatch {
		t.Fatalf("files = %v, err %v", files, err)
	}

	comment := func(side string, line int) *github.DraftReviewComment {
		return &github.DraftReviewComment{Path: github.String("a.go"), Side: github.String(side), Line: github.Int(line), Body: github.String("here")}
	}
	for _, bad := range []*github.DraftReviewComment{comment("RIGHT", 4), comment("LEFT", 3), {Path: github.String("b.go"), Line: github.Int(1)}} {
		_, _, err := c.PullRequests.CreateReview(ctx, "octo", "repo", pr.Number, &github.PullRequestReviewRequest{
			Event: github.String("COMMENT"), Comments: []*github.DraftReviewComment{comment("RIGHT", 3), bad}})
		wantStatus(t, "review on "+bad.String(), err, http.StatusUnprocessableEntity)
	}
	_, _, err = c.PullRequests.CreateReview(ctx, "octo", "repo", pr.Number, &github.PullRequestReviewRequest{Event: github.String("MERGE")})
	wantStatus(t, "review with event MERGE", err, http.StatusUnprocessableEntity)
	_, _, err = c.PullRequests.CreateReview(ctx, "octo", "repo", 99, &github.PullRequestReviewRequest{Event: github.String("COMMENT")})
	wantStatus(t, "review of #99", err, http.StatusNotFound)
	if got := gh.Reviews(pr.Number); len(got) != 0 {
		t.Fatalf("refused reviews were stored: %+v", got)
	}

	rv, _, err := c.PullRequests.CreateReview(ctx, "octo", "repo", pr.Number, &github.PullRequestReviewRequest{
		CommitID: github.String("abc123"), Body: github.String("Two notes."), Event: github.String("REQUEST_CHANGES"),
		Comments: []*github.DraftReviewComment{comment("LEFT", 2), comment("RIGHT", 1), {Path: github.String("a.go"), Line: github.Int(3), Body: github.String("default side")}}})
	if err != nil || rv.GetState() != "CHANGES_REQUESTED" || rv.GetHTMLURL() != gh.URL+"/octo/repo/pull/1#pullrequestreview-"+itoa(rv.GetID()) {
		t.Fatalf("review = %+v, err %v", rv, err)
	}
	if _, _, err := c.PullRequests.CreateReview(ctx, "octo", "repo", pr.Number, &github.PullRequestReviewRequest{Event: github.String("APPROVE")}); err != nil {
		t.Fatal(err)
	}

	stored := gh.Reviews(pr.Number)
	if len(stored) != 2 || stored[0].ID != rv.GetID() || stored[0].Event != "REQUEST_CHANGES" || stored[0].CommitID != "abc123" || len(stored[0].Comments) != 3 || len(stored[1].Comments) != 0 {
		t.Fatalf("stored reviews = %+v", stored)
	}
	var sides []string
	for _, c := range stored[0].Comments {
		sides = append(sides, c.Side)
	}
	if want := []string{"LEFT", "RIGHT", "RIGHT"}; !slices.Equal(sides, want) {
		t.Errorf("comment sides %v, want %v", sides, want)
	}

	reviews, _, err := c.PullRequests.ListReviews(ctx, "octo", "repo", pr.Number, nil)
	if err != nil || len(reviews) != 2 || reviews[0].GetState() != "CHANGES_REQUESTED" || reviews[1].GetState() != "APPROVED" ||
		reviews[0].GetBody() != "Two notes." || reviews[0].GetUser().GetLogin() != "github-actions[bot]" {
		t.Errorf("listed reviews = %v, err %v", reviews, err)
	}
	comments, _, err := c.PullRequests.ListComments(ctx, "octo", "repo", pr.Number, nil)
	if err != nil || len(comments) != 3 || comments[0].GetPullRequestReviewID() != rv.GetID() || comments[0].GetLine() != 2 || comments[0].GetSide() != "LEFT" ||
		comments[0].GetUser().GetType() != "Bot" || comments[0].GetAuthorAssociation() != "NONE" {
		t.Errorf("listed review comments = %v, err %v", comments, err)
	}
	if got, _, err := c.PullRequests.ListReviews(ctx, "octo", "repo", 99, nil); err != nil || len(got) != 0 {
		t.Errorf("reviews of #99 = %v, err %v; want none", got, err)
	}
}

// replyTo answers review comment id of pull request number through GitHub's replies route,
// which go-github has no method for (internal/githubapi sends it the same way).
func replyTo(t *testing.T, c *github.Client, number int, body string, id int64) (*github.PullRequestComment, *github.Response, error) {
	t.Helper()
	req, err := c.NewRequest(http.MethodPost, fmt.Sprintf("repos/octo/repo/pulls/%d/comments/%d/replies", number, id), map[string]string{"body": body})
	if err != nil {
		t.Fatal(err)
	}
	out := new(github.PullRequestComment)
	resp, err := c.Do(t.Context(), req, out)
	return out, resp, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestGitHub_review_comment_replies: a reply joins the thread of its pull request's comment,
// on its line; a reply to a reply is a 422, as on GitHub; replies and edits are recorded.
func TestGitHub_review_comment_replies(t *testing.T) {
	t.Parallel()
	gh, c := goGitHub(t)
	ctx := t.Context()
	pr := gh.AddPR(githubfake.PR{Head: "feature", Base: "main", State: "open"})
	other := gh.AddPR(githubfake.PR{Head: "other", Base: "main", State: "open"})
	first := gh.AddReviewComment(githubfake.ReviewComment{PR: pr.Number, Path: "a.go", Line: 3, DiffHunk: diffPatch, Body: "Why 3?",
		Author: "alice", AuthorAssociation: "MEMBER"})
	if first.Side != "RIGHT" || first.URL != gh.URL+"/octo/repo/pull/1#discussion_r"+itoa(first.ID) {
		t.Errorf("added comment = %+v", first)
	}

	reply, resp, err := replyTo(t, c, pr.Number, "Because.", first.ID)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("reply: %v", err)
	}
	if reply.GetInReplyTo() != first.ID || reply.GetPath() != "a.go" || reply.GetLine() != 3 || reply.GetSide() != "RIGHT" ||
		reply.GetDiffHunk() != diffPatch || reply.GetUser().GetLogin() != "github-actions[bot]" || reply.GetBody() != "Because." {
		t.Errorf("reply = %+v", reply)
	}
	_, _, err = replyTo(t, c, pr.Number, "And?", reply.GetID())
	wantStatus(t, "reply to a reply", err, http.StatusUnprocessableEntity)
	_, _, err = replyTo(t, c, other.Number, "Wrong pull request", first.ID)
	wantStatus(t, "reply through another pull request", err, http.StatusNotFound)
	_, _, err = replyTo(t, c, pr.Number, "", first.ID)
	wantStatus(t, "empty reply", err, http.StatusUnprocessableEntity)

	edited, _, err := c.PullRequests.EditComment(ctx, "octo", "repo", reply.GetID(), &github.PullRequestComment{Body: github.String("Because it is.")})
	if err != nil || edited.GetBody() != "Because it is." {
		t.Fatalf("edit: %+v, err %v", edited, err)
	}
	_, _, err = c.PullRequests.EditComment(ctx, "octo", "repo", 9999, &github.PullRequestComment{Body: github.String("x")})
	wantStatus(t, "edit of a missing comment", err, http.StatusNotFound)

	got := gh.ReviewComments(pr.Number)
	if len(got) != 2 || got[0] != first || got[1].InReplyTo != first.ID || got[1].Body != "Because it is." || got[1].Edits != 1 || got[1].AuthorAssociation != "NONE" {
		t.Errorf("review comments = %+v", got)
	}
	if got := gh.ReviewComments(other.Number); len(got) != 0 {
		t.Errorf("review comments of #%d = %+v, want none", other.Number, got)
	}
}

// TestGitHub_reactions: a reaction is recorded once per content (the same again answers 200
// with the first), on the kind of comment its route names; an unknown content is a 422, and
// one taken off is gone.
func TestGitHub_reactions(t *testing.T) {
	t.Parallel()
	gh, c := goGitHub(t)
	ctx := t.Context()
	gh.SetLabels(1)
	ic := gh.AddComment(1, "alice", "MEMBER", "@sandcastle please")
	pr := gh.AddPR(githubfake.PR{Head: "feature", Base: "main", State: "open"})
	rc := gh.AddReviewComment(githubfake.ReviewComment{PR: pr.Number, Path: "a.go", Line: 1, Body: "fix this"})

	eyes, resp, err := c.Reactions.CreateIssueCommentReaction(ctx, "octo", "repo", ic.ID, "eyes")
	if err != nil || resp.StatusCode != http.StatusCreated || eyes.GetContent() != "eyes" || eyes.GetUser().GetLogin() != "github-actions[bot]" {
		t.Fatalf("react: %+v, err %v", eyes, err)
	}
	again, resp, err := c.Reactions.CreateIssueCommentReaction(ctx, "octo", "repo", ic.ID, "eyes")
	if err != nil || resp.StatusCode != http.StatusOK || again.GetID() != eyes.GetID() {
		t.Errorf("same reaction again: %+v, HTTP %d, err %v; want the first with 200", again, resp.StatusCode, err)
	}
	if _, _, err := c.Reactions.CreateIssueCommentReaction(ctx, "octo", "repo", ic.ID, "rocket"); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Reactions.CreateIssueCommentReaction(ctx, "octo", "repo", ic.ID, "thumbsup")
	wantStatus(t, "unknown content", err, http.StatusUnprocessableEntity)
	_, _, err = c.Reactions.CreateIssueCommentReaction(ctx, "octo", "repo", rc.ID, "eyes")
	wantStatus(t, "a review comment through the issue comment route", err, http.StatusNotFound)

	plus, _, err := c.Reactions.CreatePullRequestCommentReaction(ctx, "octo", "repo", rc.ID, "+1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := gh.Reactions(ic.ID), []string{"eyes", "rocket"}; !slices.Equal(got, want) {
		t.Errorf("reactions on the issue comment = %v, want %v", got, want)
	}
	if got, want := gh.Reactions(rc.ID), []string{"+1"}; !slices.Equal(got, want) {
		t.Errorf("reactions on the review comment = %v, want %v", got, want)
	}

	if resp, err := c.Reactions.DeleteIssueCommentReaction(ctx, "octo", "repo", ic.ID, eyes.GetID()); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("take eyes off: %v", err)
	}
	_, err = c.Reactions.DeleteIssueCommentReaction(ctx, "octo", "repo", ic.ID, eyes.GetID())
	wantStatus(t, "take eyes off again", err, http.StatusNotFound)
	_, err = c.Reactions.DeleteIssueCommentReaction(ctx, "octo", "repo", rc.ID, plus.GetID())
	wantStatus(t, "a review comment's reaction through the issue comment route", err, http.StatusNotFound)
	if _, err := c.Reactions.DeletePullRequestCommentReaction(ctx, "octo", "repo", rc.ID, plus.GetID()); err != nil {
		t.Fatal(err)
	}
	if got, want := gh.Reactions(ic.ID), []string{"rocket"}; !slices.Equal(got, want) {
		t.Errorf("reactions on the issue comment = %v, want %v", got, want)
	}
	if got := gh.Reactions(rc.ID); len(got) != 0 {
		t.Errorf("reactions on the review comment = %v, want none", got)
	}
}

// graphQL posts a GraphQL request to the fake and returns the status and decoded answer.
func graphQL(t *testing.T, gh *githubfake.GitHub, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := body.(string); ok {
		b = []byte(s)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, gh.GraphQLURL, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+ghToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// jsonOf is v as compact JSON, for comparing answers.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGitHub_graphql: the queries gh issue list and view make are answered from the fake's
// issues (filtered by state, labels and search terms, paged by first and after, with fragments,
// aliases and variables), and a mutation or a broken document gets GraphQL errors.
func TestGitHub_graphql(t *testing.T) {
	t.Parallel()
	gh := githubfake.NewGitHub(t, ghToken, "octo/repo")
	gh.AddIssue(githubfake.Issue{Title: "one"}, "sandcastle")
	gh.AddIssue(githubfake.Issue{Title: "two", State: "closed", StateReason: "not_planned"}, "sandcastle", "wontfix")
	gh.AddIssue(githubfake.Issue{Title: "three"}, "Sandcastle", "bug")
	gh.AddComment(3, "alice", "MEMBER", "me too")

	tests := []struct {
		name  string
		query string
		vars  map[string]any
		op    string // operationName
		want  string // "" for one error and no data
	}{
		{"open issues with a label, newest first, paged",
			`query L($first: Int = 1, $after: String) { repository(owner: "Octo", name: "repo") {
				issues(states: [OPEN], labels: ["sandcastle"], first: $first, after: $after) { totalCount nodes { number title } pageInfo { hasNextPage endCursor } } } }`,
			nil, "",
			`{"data":{"repository":{"issues":{"nodes":[{"number":3,"title":"three"}],"pageInfo":{"endCursor":"1","hasNextPage":true},"totalCount":2}}}}`},
		{"the next page",
			`query L($first: Int = 1, $after: String) { repository(owner: "octo", name: "repo") {
				issues(states: OPEN, labels: ["sandcastle"], first: $first, after: $after) { nodes { number } pageInfo { hasNextPage } } } }`,
			map[string]any{"after": "1"}, "",
			`{"data":{"repository":{"issues":{"nodes":[{"number":1}],"pageInfo":{"hasNextPage":false}}}}}`},
		{"an issue with its labels and comments, through a fragment",
			`query { repository(owner: "octo", name: "repo") { issue(number: 3) { ...f } } } fragment f on Issue { state closed
				labels(first: 10) { nodes { name } } comments(last: 1) { totalCount nodes { author { login } body authorAssociation } } }`,
			nil, "",
			`{"data":{"repository":{"issue":{"closed":false,"comments":{"nodes":[{"author":{"login":"alice"},"authorAssociation":"MEMBER","body":"me too"}],"totalCount":1},"labels":{"nodes":[{"name":"Sandcastle"},{"name":"bug"}]},"state":"OPEN"}}}}`},
		{"search by label, less another, with an inline fragment and an alias",
			`query S($q: String!) { search(query: $q, type: ISSUE, first: 10) { issueCount nodes { ... on Issue { n: number stateReason } ... on PullRequest { headRefName } } } }`,
			map[string]any{"q": `repo:octo/repo label:sandcastle -label:"bug" is:closed`}, "",
			`{"data":{"search":{"issueCount":1,"nodes":[{"n":2,"stateReason":"NOT_PLANNED"}]}}}`},
		{"search in another repository finds nothing",
			`{ search(query: "repo:other/repo", type: ISSUE, first: 10) { issueCount } }`, nil, "",
			`{"data":{"search":{"issueCount":0}}}`},
		{"node, issueOrPullRequest, another repository, fields gh asks about and unknown fields",
			`{ node(id: "I_1") { ... on Issue { title } } missing: node(id: "I_9") { id } repository(owner: "octo", name: "repo") { nameWithOwner
				issueOrPullRequest(number: 2) { ... on Issue { state } } nope: issue(number: 9) { id } } other: repository(owner: "x", name: "repo") { id }
				rateLimit { remaining } unknown }`,
			nil, "",
			`{"data":{"missing":null,"node":{"title":"one"},"other":null,"rateLimit":{"remaining":4999},"repository":{"issueOrPullRequest":{"state":"CLOSED"},"nameWithOwner":"octo/repo","nope":null},"unknown":null}}`},
		{"a named operation among two",
			`query A { rateLimit { limit } } query B { repository(owner: "octo", name: "repo") { id } }`, nil, "B",
			`{"data":{"repository":{"id":"R_fake"}}}`},
		{"an operation the document lacks", `query A { rateLimit { limit } }`, nil, "C", ``},
		{"a mutation", `mutation { closeIssue(input: {issueId: "I_1"}) { issue { id } } }`, nil, "",
			`{"errors":[{"message":"the fake GitHub serves no GraphQL mutation"}]}`},
		{"a broken document", `query {`, nil, "", ``},
	}
	for _, tt := range tests {
		status, out := graphQL(t, gh, map[string]any{"query": tt.query, "variables": tt.vars, "operationName": tt.op})
		if status != http.StatusOK {
			t.Errorf("%s: HTTP %d", tt.name, status)
		}
		if tt.want == "" { // the parser's message is its own
			if errs, _ := out["errors"].([]any); len(errs) != 1 || out["data"] != nil {
				t.Errorf("%s: answer %v, want one error and no data", tt.name, out)
			}
			continue
		}
		if got := jsonOf(t, out); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}

	status, out := graphQL(t, gh, `{"query": `)
	if status != http.StatusBadRequest || out["message"] != "Problems parsing JSON" {
		t.Errorf("a body that is not JSON: HTTP %d, %v", status, out)
	}
	status, out = graphQL(t, gh, map[string]any{"query": `{ __type(name: "Issue") { name fields { name } } }`})
	if typ, _ := out["data"].(map[string]any)["__type"].(map[string]any); status != http.StatusOK || typ["name"] != "Issue" ||
		!bytes.Contains([]byte(jsonOf(t, typ["fields"])), []byte(`{"name":"stateReason"}`)) {
		t.Errorf("__type: HTTP %d, %v", status, out)
	}

	calls := gh.GraphQLCalls()
	if got, want := len(calls), len(tests)+2; got != want || !bytes.Contains([]byte(calls[0]), []byte(`"query":"query L(`)) {
		t.Errorf("%d GraphQL calls recorded, want %d; first %q", got, want, calls[0])
	}
	if got := gh.Requests(); len(got) != len(calls) || got[0] != "POST /api/graphql" {
		t.Errorf("requests = %v, want only the GraphQL ones", got)
	}
}
