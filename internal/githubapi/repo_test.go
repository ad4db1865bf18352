package githubapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

func TestCommentMarker(t *testing.T) {
	tests := []struct{ workflow, job, name, want string }{
		{"Sandcastle", "implement", "", "sandcastle:Sandcastle:implement"},
		{"a--b <x>", "job", "matrix-1", "sandcastle:a-b x:job:matrix-1"},
		{"", "", "", "sandcastle"},
	}
	for _, tt := range tests {
		if got := CommentMarker(tt.workflow, tt.job, tt.name); got != tt.want {
			t.Errorf("CommentMarker(%q, %q, %q) = %q, want %q", tt.workflow, tt.job, tt.name, got, tt.want)
		}
	}
}

func TestPRMarkerFitsAnyBranchName(t *testing.T) {
	for _, branch := range []string{"agent/issue-1--retry", "a<b>c", "sandcastle/issue-42"} {
		m := PRMarker(branch)
		if _, err := markerTag(m); err != nil || !strings.HasPrefix(m, "sandcastle:pr:") {
			t.Errorf("PRMarker(%q) = %q, which cannot sit in an HTML comment: %v", branch, m, err)
		}
	}
}

// repoRig is a Repo on issue 42 of the fake GitHub.
func repoRig(t *testing.T, branch string) (*Repo, *githubfake.GitHub) {
	t.Helper()
	gh := githubfake.NewGitHub(t, testToken, "octo/widgets")
	client, err := New(Options{Token: testToken, APIURL: gh.APIURL, Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{Client: client, Owner: "octo", Name: "widgets", Issue: 42, Marker: "sandcastle:wf:job", Branch: branch, Server: "https://github.example"}, gh
}

// TestRepo_OpenLinkedPRs_leaves_out_a_runs_own: the pull request an earlier run opened closes
// the issue too, and with a person's token it is a collaborator's; it must not refuse the
// next run.
func TestRepo_OpenLinkedPRs_leaves_out_a_runs_own(t *testing.T) {
	r, gh := repoRig(t, "sandcastle/issue-42")
	gh.AddLinkedPR(42, githubfake.LinkedPR{Number: 7, Author: "maintainer", AuthorAssociation: "COLLABORATOR", Body: "Closes #42\n\n<!-- " + PRMarker("sandcastle/issue-42") + " -->"})
	gh.AddLinkedPR(42, githubfake.LinkedPR{Number: 8, Author: "colleague", AuthorAssociation: "MEMBER", Body: "Fixes #42"})
	gh.AddLinkedPR(42, githubfake.LinkedPR{Number: 9, Author: "maintainer", AuthorAssociation: "COLLABORATOR", Body: "Closes #42\n\n<!-- " + PRMarker("sandcastle/other") + " -->"})
	prs, err := r.OpenLinkedPRs(t.Context(), 42)
	if err != nil {
		t.Fatalf("OpenLinkedPRs: %v", err)
	}
	if len(prs) != 2 || prs[0].Number != 8 || prs[1].Number != 9 || prs[0].Author != "colleague" {
		t.Errorf("linked pull requests = %+v, want #8, the colleague's, and #9, another branch's", prs)
	}
}

// TestRepo_writes_where_the_run_reports: labels move, a refusal is answered in a comment of
// its own, and the action knows its own bodies.
func TestRepo_writes_where_the_run_reports(t *testing.T) {
	r, gh := repoRig(t, "")
	gh.SetPermission("octocat", "write")
	if p, err := r.Permission(t.Context(), "octocat"); err != nil || p != "write" {
		t.Errorf("Permission = %q, %v", p, err)
	}
	gh.SetLabels(42, "agent:go", "other")
	if err := r.Labels(t.Context(), []string{"agent:working"}, []string{"agent:go"}); err != nil {
		t.Fatal(err)
	}
	if got := gh.Labels(42); !slices.Equal(got, []string{"other", "agent:working"}) {
		t.Errorf("labels %q", got)
	}
	url, err := r.Answer(t.Context(), "**Sandcastle** did not run")
	if err != nil || !strings.Contains(url, "#issuecomment-") {
		t.Fatalf("Answer = %q, %v", url, err)
	}
	c := gh.Comments(42)
	if len(c) != 1 || !Marked(c[0].Body, "sandcastle:wf:job:refused") || Marked(c[0].Body, "sandcastle:wf:job") {
		t.Errorf("comments %+v, want one under the refusal's own marker", c)
	}
	if !r.Ours(c[0].Body) || r.Ours("Closes #42") {
		t.Error("Ours does not tell the action's body from someone else's")
	}
	none := *r
	none.Issue = 0
	if err := none.Labels(t.Context(), []string{"x"}, nil); err != nil || gh.Calls("POST", "/repos/{owner}/{repo}/issues/{number}/labels") != 1 {
		t.Errorf("labels without an issue: %v, or a request was made", err)
	}
}

// TestRepo_UpsertPR_says_where_to_open_it_by_hand: a pull request GitHub refuses to create
// comes with the compare link.
func TestRepo_UpsertPR_says_where_to_open_it_by_hand(t *testing.T) {
	r, gh := repoRig(t, "sandcastle/fix")
	pr, created, err := r.UpsertPR(t.Context(), "sandcastle/fix", "main", "Fix", "Body", true)
	if err != nil || !created || pr.Number == 0 {
		t.Fatalf("UpsertPR = %+v, %v, %v", pr, created, err)
	}
	if got := gh.PRs(); len(got) != 1 || !Marked(got[0].Body, PRMarker("sandcastle/fix")) {
		t.Errorf("pull requests %+v, want one with the branch's marker", got)
	}
	gh.RefuseActionsPRs()
	_, _, err = r.UpsertPR(t.Context(), "sandcastle/other", "main", "Other", "Body", false)
	if err == nil || !strings.Contains(err.Error(), "https://github.example/octo/widgets/compare/main...sandcastle%2Fother?expand=1") {
		t.Errorf("error %v, want the compare link", err)
	}
}
