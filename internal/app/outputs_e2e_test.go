package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestDockerTriageThroughTheRelay is the schedule workflow, given only mode: triage: the
// built-in prompt lists the open issues with the real gh in the Docker sandbox, through the
// relay; the agent tries every write gh knows, which the relay refuses before GitHub, and sends
// the socket raw requests that a policy reading one form of a request and forwarding another
// would let through (issue 19: a GraphQL body with query and Query, variables and Variables, a
// form body, a search's q twice, a path off the allow-list); then asks for two labels the mode
// allows, one it does not and a comment on issue 1, and a comment on issue 3, which it never
// read. The host carries out what is allowed, lists the refusals, and the token is nowhere in
// the sandbox.
func TestDockerTriageThroughTheRelay(t *testing.T) {
	a := newDockerAction(t,
		models.Bash(`gh issue view 1 --json title,body,comments > view.txt 2>&1; `+
			`(gh issue close 1; echo "close=$?"; gh api -X POST repos/octo/widgets/issues -f title=x; echo "post=$?"; `+
			`gh api graphql -f query='mutation { closeIssue(input: {issueId: "I_1"}) { clientMutationId } }'; echo "mutation=$?") > attacks.txt 2>&1; `+
			// The image has perl, not curl: raw.pl sends the socket the exact bytes given.
			"cat > /tmp/raw.pl <<'EOF'\n"+rawPerl+"EOF\n"+
			`r() { l=$1; shift; printf '%s: ' "$l"; perl /tmp/raw.pl "$@"; }; (`+
			`r smuggle POST /graphql application/json '{"query":"mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","Query":"{ rateLimit { limit } }"}'; `+
			`r variables POST /graphql application/json '{"query":"query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }","variables":{"o":"octo","n":"private"},"Variables":{"o":"octo","n":"widgets"}}'; `+
			`r form POST /graphql application/x-www-form-urlencoded 'query=mutation+%7B+closeIssue%28input%3A+%7BissueId%3A+%22I_1%22%7D%29+%7B+clientMutationId+%7D+%7D'; `+
			`r repeated GET '/search/issues?q=repo:octo/widgets&q=repo:octo/private' '' ''; `+
			`r secrets GET /repos/octo/widgets/actions/organization-secrets '' ''; `+
			`r read GET /api/v3/repos/octo/widgets/issues/1 '' '') > raw.txt 2>&1; `+
			`env > env.txt; for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline; echo; tr '\0' '\n' < $p/environ; done > procs.txt 2>/dev/null; `+
			`p=ghs_e2eToken; p="${p}ThatMustNever"; grep -rl "$p" /home /tmp /run /etc /var "$PWD" > found.txt 2>/dev/null; true`),
		models.Text(`Triaged. <result>{"issues": [{"issue": 1, "add_labels": ["bug", "needs-info", "question"], "comment": "Thanks for the report; could you add the version?"}, {"issue": 3, "comment": "Reopened?"}]}</result> `+signal),
	)
	g := withGitHub(t, a, ghToken)
	g.api.AddIssue(githubfake.Issue{Number: 1, Title: "Crash on start", Body: "It crashes."}, "Sandcastle")
	g.api.AddIssue(githubfake.Issue{Number: 2, Title: "Unlabelled", Body: "Not for the agent."})
	g.api.AddIssue(githubfake.Issue{Number: 3, Title: "Fixed long ago", Body: "Closed.", State: "closed"})
	g.event(t, "schedule", map[string]any{"schedule": "0 * * * *", "repository": map[string]any{"full_name": ghRepo}})
	writeFile(t, filepath.Join(a.dir, ".git", "info", "exclude"), "*.txt\n")
	a.input("mode", "triage")
	inv, out := a.runWant(0)
	if out["status"] != "complete" {
		t.Errorf("status %q, want complete", out["status"])
	}

	prompt := string(a.model.Requests()[0].Body)
	if !strings.Contains(prompt, "Crash on start") || !strings.Contains(prompt, "Unlabelled") || strings.Contains(prompt, "Fixed long ago") || strings.Contains(prompt, "could not be read") {
		t.Errorf("the built-in prompt's gh issue list did not list the open issues through the relay:\n%.3000s", prompt)
	}
	if view := readFile(t, filepath.Join(a.dir, "view.txt")); !strings.Contains(view, "It crashes.") {
		t.Errorf("gh issue view in the sandbox: %s", view)
	}
	attacks := readFile(t, filepath.Join(a.dir, "attacks.txt"))
	for _, want := range []string{"close=1", "post=1", "mutation=1", "refused"} {
		if !strings.Contains(attacks, want) {
			t.Errorf("the writes from the sandbox: %q lacks %q", attacks, want)
		}
	}
	raw := readFile(t, filepath.Join(a.dir, "raw.txt"))
	for label, want := range map[string]string{
		"smuggle": `\"Query\" is given twice`, "variables": `\"Variables\" is given twice`, "form": "a GraphQL request is JSON",
		"repeated": `\"q\" is given more than once`, "secrets": "actions/organization-secrets is not on the relay's allow-list",
		"read": "Crash on start",
	} {
		line := ""
		for l := range strings.Lines(raw) {
			if strings.HasPrefix(l, label+": ") {
				line = l
			}
		}
		status := "HTTP/1.1 403 "
		if label == "read" {
			status = "HTTP/1.1 200 "
		}
		if !strings.Contains(line, status) || !strings.Contains(line, want) {
			t.Errorf("the raw request %s through the socket answered %q; want %s and %q", label, line, status, want)
		}
	}
	for _, req := range g.api.Requests() {
		if strings.HasPrefix(req, "POST /api/graphql") {
			continue // queries; a mutation would have failed the fake's GraphQL
		}
		if !strings.HasPrefix(req, "GET ") && !slices.Contains([]string{"POST /repos/octo/widgets/issues/1/labels", "POST /repos/octo/widgets/issues/1/comments"}, req) {
			t.Errorf("GitHub got a write the host did not mean: %s", req)
		}
	}
	for _, doc := range g.api.GraphQLCalls() {
		if strings.Contains(doc, "mutation") || strings.Contains(doc, "private") {
			t.Errorf("a GraphQL mutation reached GitHub: %s", doc)
		}
	}
	if g.api.Issue(1).State != "open" {
		t.Error("issue 1 was closed from the sandbox")
	}
	if got := g.api.Labels(1); !slices.Equal(got, []string{"Sandcastle", "bug", "question", "sandcastle:triaged"}) {
		t.Errorf("labels of #1 = %v; want the two allowed ones and the triaged mark", got)
	}
	comments := g.api.Comments(1)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "could you add the version?") || !strings.Contains(comments[0].Body, "<!-- sandcastle:triage -->") {
		t.Errorf("comments on #1 = %+v; want the agent's, marked", comments)
	}
	var actions struct{ Refused []map[string]any }
	if err := json.Unmarshal([]byte(out["actions"]), &actions); err != nil || len(actions.Refused) != 2 || actions.Refused[0]["value"] != "needs-info" ||
		actions.Refused[1]["issue"] != 3.0 || !strings.Contains(fmt.Sprint(actions.Refused[1]["reason"]), "#3 was not read by this run") {
		t.Errorf("actions = %s; want needs-info, and the comment on #3, never read, refused", out["actions"])
	}
	if got := g.api.Comments(3); len(got) != 0 {
		t.Errorf("comments on #3 = %+v; want none: the run never read it", got)
	}
	if summary := readFile(t, a.summary); !strings.Contains(summary, "### Triage") || !strings.Contains(summary, `**refused**: label "needs-info" is not in allowed-labels`) {
		t.Errorf("the summary lacks the refusal:\n%s", summary)
	}
	for _, f := range []string{"env.txt", "procs.txt", "found.txt", "attacks.txt"} {
		if strings.Contains(readFile(t, filepath.Join(a.dir, f)), ghToken) {
			t.Errorf("the token is in the sandbox: %s", f)
		}
	}
	if found := strings.TrimSpace(readFile(t, filepath.Join(a.dir, "found.txt"))); found != "" {
		t.Errorf("files in the sandbox hold the token: %s", found)
	}
	if !strings.Contains(readFile(t, filepath.Join(a.dir, "env.txt")), "GH_HOST=") {
		t.Error("the sandbox's environment does not point gh at the relay")
	}
	checkNoToken(t, a, inv)
}

// rawPerl sends the relay's socket one request made of its arguments (method, path, content
// type, body) as written, and prints the answer on one line.
const rawPerl = `use IO::Socket::UNIX;
my ($method, $path, $type, $body) = @ARGV;
my $s = IO::Socket::UNIX->new(Peer => $ENV{SANDCASTLE_GITHUB_SOCKET}) or die "connect: $!";
print $s "$method $path HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: token sandcastle-relay\r\n" .
	($type ne "" ? "Content-Type: $type\r\n" : "") . "Content-Length: " . length($body) . "\r\nConnection: close\r\n\r\n$body";
local $/; my $answer = <$s>; $answer =~ s/\r?\n/ /g; print "$answer\n";
`

// TestDockerReviewOnePerRun is the review workflow on a pull_request event, given only mode:
// review: the built-in prompt, the agent's output one review, its comments on their lines of
// the diff but the one outside it, which moves into the body; no progress comment; a re-run
// posts nothing it posted before.
func TestDockerReviewOnePerRun(t *testing.T) {
	answer := models.Text(`<result>{"summary": "Two remarks.", "comments": [` +
		`{"path": "main.go", "line": 2, "body": "Name this constant."},` +
		`{"path": "main.go", "line": 1, "side": "LEFT", "body": "Why was this removed?", "suggestion": "package old"},` +
		`{"path": "README.md", "line": 40, "body": "Outside the diff."}]}</result> ` + signal)
	a := newDockerAction(t, answer, answer)
	g := withGitHub(t, a, ghToken)
	// The pull request's head is on the remote, as its branch and refs/pull/5/head: the run
	// reviews it there, whatever the workflow checked out.
	pr := g.reviewablePR(t, "Greet the world", "Adds a greeting.")
	a.input("mode", "review")
	_, out := a.runWant(0)
	if out["status"] != "complete" {
		t.Errorf("status %q, want complete", out["status"])
	}
	if prompt := a.model.Requests()[0].Transcript(); !strings.Contains(prompt, "# Review pull request #5: Greet the world") || !strings.Contains(prompt, "Adds a greeting.") {
		t.Errorf("the built-in prompt lacks the pull request:\n%s", prompt)
	}
	if len(g.api.Comments(5)) != 0 {
		t.Errorf("comments on #5 = %+v; want none beside the review", g.api.Comments(5))
	}
	reviews := g.api.Reviews(5)
	if len(reviews) != 1 {
		t.Fatalf("reviews = %+v; want one", reviews)
	}
	rv := reviews[0]
	if rv.Event != "COMMENT" || rv.CommitID != pr.head || len(rv.Comments) != 2 {
		t.Errorf("review: event %s, commit %s, %d comments on lines; want COMMENT at the head, 2", rv.Event, rv.CommitID, len(rv.Comments))
	}
	if !strings.Contains(rv.Body, "Two remarks.") || !strings.Contains(rv.Body, "Outside the diff.") || strings.Contains(rv.Body, "Name this constant.") {
		t.Errorf("review body:\n%s\nwant the summary and the comment outside the diff alone", rv.Body)
	}
	for _, c := range rv.Comments {
		if c.Side == "LEFT" && !strings.Contains(c.Body, "```suggestion\npackage old\n```") {
			t.Errorf("the LEFT comment lacks its suggestion: %s", c.Body)
		}
	}
	if out["review-url"] == "" {
		t.Error("no review-url output")
	}

	if _, out = a.runWant(0); len(g.api.Reviews(5)) != 1 || out["review-url"] != "" {
		t.Errorf("the re-run posted again: %d reviews, review-url %q", len(g.api.Reviews(5)), out["review-url"])
	}
}
