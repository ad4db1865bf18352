package githubapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// gateSecret stands for the agent's API key, which the run masks and the agent can read.
const gateSecret = "sk-ant-api03-GateSecret0123456789abcdef"

// hostileText is what an agent may write anywhere: the secret, whole and in pieces that
// removing what nobody sees would join, and mentions and closing references in every place
// GitHub still reads them, the run's own issue (#1) among them, and at its end a marker that
// would make the text pass for another of the action's.
const hostileText = "Key " + gateSecret + " sk-ant-api0\u200b3-GateSecret012<!-- x -->3456789abcdef" +
	" @octocat Closes #1 fixes #7\n" +
	"@hubot first on a line\n\n<details>@octocat Fixes #9</details>\n\n" +
	"&#64;octocat Closes&#32;#1 @@hubot Fixes <https://github.com/octo/repo/issues/9>\n" +
	"- <div>\n  @octocat\n  </div>\n\n" + fakeMarker

const fakeMarker = "<!-- sandcastle:pr:other -->"

// TestGate_triage_comment_and_review (issue 19, break 7): a triage comment, a review's body and
// its comment on a line, and a progress comment reach GitHub with the secret redacted and,
// rendered as GitHub renders them, no live mention or closing reference, not even to the run's
// own issue, which only a pull request may close; the action's own markers stay, the agent's go.
func TestGate_triage_comment_and_review(t *testing.T) {
	gh := githubfake.NewGitHub(t, testToken, "octo/repo")
	var redactor report.Redactor
	redactor.Add(gateSecret)
	c, err := New(Options{Token: testToken, APIURL: gh.APIURL, Gate: Gate{Redact: redactor.Redact, Closes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{Client: c, Owner: "octo", Name: "repo", Issue: 1}
	issue := gh.AddIssue(githubfake.Issue{Number: 1, Title: "Crash"})
	pr := gh.AddPR(githubfake.PR{Head: "octo:fix", Base: "main", Title: "Fix"})
	gh.SetFiles(pr.Number, githubfake.File{Name: "a.go", Patch: "@@ -1 +1 @@\n-a\n+b"})

	if err := r.Triage(t.Context(), triage.Action{Issue: issue.Number, Kind: triage.Comment, Value: hostileText}); err != nil {
		t.Fatalf("triage comment: %v", err)
	}
	// The agent's review, with the markers review.Plan adds to find it again.
	plan := review.Plan{Summary: hostileText, Inline: []review.Comment{{Path: "a.go", Side: "RIGHT", Line: 1, Body: hostileText}},
		Moved: []review.Comment{{Path: "b.go", Line: 9, Body: hostileText}}}
	if _, err := r.PostReview(t.Context(), pr.Number, "", plan.Body(), plan.Comments()); err != nil {
		t.Fatalf("review: %v", err)
	}

	progress := CommentMarker("ci", "job", "")
	if _, _, err := c.UpsertComment(t.Context(), "octo", "repo", issue.Number, progress, hostileText); err != nil {
		t.Fatalf("progress comment: %v", err)
	}

	// What the fake holds, and every body it received, field by field.
	comments := gh.Comments(issue.Number)
	if !Marked(comments[0].Body, triage.Marker) || !Marked(comments[1].Body, progress) {
		t.Errorf("comments %+v; want the triage marker on the first, the progress marker on the second", comments)
	}
	posted := map[string]string{"triage comment": comments[0].Body, "progress comment": comments[1].Body}
	rv := gh.Reviews(pr.Number)[0]
	if tags := markers.FindString(plan.Body()); strings.Count(tags, "<!--") != 2 || !strings.HasSuffix(rv.Body, tags) ||
		!strings.HasSuffix(rv.Comments[0].Body, markers.FindString(plan.Comments()[0].Body)) {
		t.Errorf("review %+v; want the plan's markers kept", rv)
	}
	posted["review body"] = rv.Body
	posted["review comment"] = rv.Comments[0].Body
	for i, w := range gh.Writes() {
		var sent struct {
			Body     string
			Comments []struct{ Body string }
		}
		if err := json.Unmarshal([]byte(w), &sent); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		posted[fmt.Sprintf("write %d's body", i)] = sent.Body
		for j, cm := range sent.Comments {
			posted[fmt.Sprintf("write %d's comment %d", i, j)] = cm.Body
		}
	}
	if len(posted) != 8 {
		t.Fatalf("posted %q; want the comment, then the review's body and comment, then the progress comment, held and sent", posted)
	}
	for what, s := range posted {
		if strings.Contains(s, gateSecret) || strings.Contains(s, fakeMarker) {
			t.Errorf("%s holds the secret or the agent's marker: %q", what, s)
		}
		if live := testkit.LiveReferences(s); len(live) > 0 {
			t.Errorf("%s shows %q live: %q", what, live, s)
		}
	}
}
