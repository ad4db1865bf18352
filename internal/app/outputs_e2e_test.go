package app

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// TestDockerTriageThroughTheRelay is the schedule workflow: the prompt lists issues with the
// real gh in the Docker sandbox, through the relay; the agent tries every write gh knows, which
// the relay refuses before GitHub; then asks for two allowed labels, one that is not and a
// comment on issue 1. The host carries out what is allowed, lists the refusal, and the token
// is nowhere in the sandbox.
func TestDockerTriageThroughTheRelay(t *testing.T) {
	a := newDockerAction(t,
		testkit.Bash(`gh issue view 1 --json title,body,comments > view.txt 2>&1; `+
			`(gh issue close 1; echo "close=$?"; gh api -X POST repos/octo/widgets/issues -f title=x; echo "post=$?"; `+
			`gh api graphql -f query='mutation { closeIssue(input: {issueId: "I_1"}) { clientMutationId } }'; echo "mutation=$?") > attacks.txt 2>&1; `+
			`env > env.txt; for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline; echo; tr '\0' '\n' < $p/environ; done > procs.txt 2>/dev/null; `+
			`p=ghs_e2eToken; p="${p}ThatMustNever"; grep -rl "$p" /home /tmp /run /etc /var "$PWD" > found.txt 2>/dev/null; true`),
		testkit.Text(`Triaged. <result>{"issues": [{"issue": 1, "add_labels": ["bug", "needs-info", "wontfix"], "comment": "Thanks for the report; could you add the version?"}]}</result>`),
	)
	g := withGitHub(t, a, ghToken)
	g.api.AddIssue(testkit.FakeIssue{Number: 1, Title: "Crash on start", Body: "It crashes."}, "Sandcastle")
	g.api.AddIssue(testkit.FakeIssue{Number: 2, Title: "Unlabelled", Body: "Not for the agent."})
	g.event(t, "schedule", map[string]any{"schedule": "0 * * * *", "repository": map[string]any{"full_name": ghRepo}})
	writeFile(t, filepath.Join(a.dir, ".git", "info", "exclude"), "triage.md\n*.txt\n")
	writeFile(t, filepath.Join(a.dir, "triage.md"), "Open issues:\n!`gh issue list --state open --label Sandcastle --json number,title,body,comments,labels`\nAnswer inside <result>...</result>.\n")
	a.input("prompt-file", "triage.md")
	a.input("output-action", "triage")
	a.input("allowed-labels", "bug\nneeds-info")
	inv, out := a.runWant(0)

	prompt := string(a.model.Requests()[0].Body)
	if !strings.Contains(prompt, "Crash on start") || strings.Contains(prompt, "Unlabelled") {
		t.Errorf("the prompt's gh issue list did not list issue 1 alone through the relay:\n%.2000s", prompt)
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
	for _, req := range g.api.Requests() {
		if strings.HasPrefix(req, "POST /api/graphql") {
			continue // queries; a mutation would have failed the fake's GraphQL
		}
		if !strings.HasPrefix(req, "GET ") && !slices.Contains([]string{"POST /repos/octo/widgets/issues/1/labels", "POST /repos/octo/widgets/issues/1/comments"}, req) {
			t.Errorf("GitHub got a write the host did not mean: %s", req)
		}
	}
	for _, doc := range g.api.GraphQLCalls() {
		if strings.Contains(doc, "mutation") {
			t.Errorf("a GraphQL mutation reached GitHub: %s", doc)
		}
	}
	if g.api.Issue(1).State != "open" {
		t.Error("issue 1 was closed from the sandbox")
	}
	if got := g.api.Labels(1); !slices.Equal(got, []string{"Sandcastle", "bug", "needs-info", "sandcastle:triaged"}) {
		t.Errorf("labels of #1 = %v; want the two allowed ones and the triaged mark", got)
	}
	comments := g.api.Comments(1)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "could you add the version?") || !strings.Contains(comments[0].Body, "<!-- sandcastle:triage -->") {
		t.Errorf("comments on #1 = %+v; want the agent's, marked", comments)
	}
	var refused []map[string]any
	if err := json.Unmarshal([]byte(out["refused-actions"]), &refused); err != nil || len(refused) != 1 || refused[0]["value"] != "wontfix" {
		t.Errorf("refused-actions = %s; want wontfix alone", out["refused-actions"])
	}
	if summary := readFile(t, a.summary); !strings.Contains(summary, "### Triage") || !strings.Contains(summary, `**refused**: label "wontfix" is not in allowed-labels`) {
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
