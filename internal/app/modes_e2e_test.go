package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The modes end to end: Main with only mode: and credentials, the real claude in the Docker
// sandbox, the git HTTP remote and the fake GitHub API, driven by the event that starts each.

// TestDockerImplementMode is the issue workflow as a mode: a maintainer labels an issue whose
// title a stranger wrote to reach a shell; claude works on it in the sandbox from the built-in
// prompt, and the run pushes sandcastle/issue-42-<slug>, opens a draft pull request that closes
// the issue, keeps the progress comment and moves the labels. Nothing of the title ran.
func TestDockerImplementMode(t *testing.T) {
	a := newDockerAction(t,
		models.Bash("echo fixed > fix.txt && git add fix.txt && git commit -qm 'Fix the crash on start'"),
		models.Text("Fixed the crash on start by checking the name. "+signal),
	)
	g := withGitHub(t, a, ghToken)
	chownTree(t, a.dir, workspaceUID)
	g.api.SetPermission("maintainer", "write")
	g.api.SetLabels(42, "sandcastle", "bug")
	title := "Crash: " + hostileTitle
	g.event(t, "issues", issuePayload("maintainer", title, false, map[string]any{"action": "labeled", "label": map[string]any{"name": "sandcastle"}}))
	a.input("mode", "implement")

	inv, out := a.runWant(0)
	branch := inputs.IssueBranch(42, title)
	if out["status"] != "complete" || out["branch"] != branch || out["pushed"] != "true" || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete, one commit pushed to %s", out, branch)
	}
	if got := g.remoteSHA(t, branch); got == "" || got != out["head-sha"] {
		t.Errorf("remote %s = %q, want the run's head %q", branch, got, out["head-sha"])
	}
	prs := g.api.PRs()
	if len(prs) != 1 {
		t.Fatalf("pull requests %+v, want one", prs)
	}
	pr := prs[0]
	if pr.Head != "octo:"+branch || pr.Base != "main" || !pr.Draft || pr.Title != "Fix #42: "+title || out["pr-url"] != pr.URL {
		t.Errorf("pull request %+v, pr-url %q; want a draft from %s into main, titled for the issue", pr, out["pr-url"], branch)
	}
	for _, want := range []string{"Closes #42", "Fixed the crash on start by checking the name.", "Fix the crash on start"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("pull request body lacks %q:\n%s", want, pr.Body)
		}
	}
	comments := g.api.Comments(42)
	if len(comments) != 1 || out["comment-url"] != comments[0].URL {
		t.Fatalf("comments %+v; want the one progress comment", comments)
	}
	for _, want := range []string{"finished: complete", "pushed to `" + branch + "`", pr.URL, "/octo/widgets/actions/runs/4242"} {
		if !strings.Contains(comments[0].Body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, comments[0].Body)
		}
	}
	if got := g.api.Labels(42); !slices.Equal(got, []string{"bug"}) {
		t.Errorf("labels %q; want the trigger label off, sandcastle:in-progress added and removed", got)
	}
	if got := g.api.Calls("POST", "/repos/{owner}/{repo}/issues/{number}/labels"); got != 1 {
		t.Errorf("labels added %d times; want sandcastle:in-progress once", got)
	}
	prompt := a.model.Requests()[0].Transcript()
	if !strings.Contains(prompt, "# Issue #42: "+title) || !strings.Contains(prompt, "It crashes on start.") || !strings.Contains(prompt, "initial") {
		t.Errorf("the prompt lacks the issue as written, or the recent commits:\n%s", prompt)
	}
	if found := pwned(t, filepath.Dir(a.dir)); len(found) > 0 {
		t.Errorf("the issue's title ran as shell: %q", found)
	}
	checkNoToken(t, a, inv)
}
