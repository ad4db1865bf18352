package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestShallowCheckoutWithMainMoved is a job like docs/modes.md's run example (its own branch, a
// pull request) on an active repository: the job
// checks out main at depth 1, as actions/checkout does by default, and someone pushes to main
// while the agent works. The run pushes its branch and opens the pull request (ready for
// review, since this repository supports no drafts); a re-run on a new depth-1 checkout, main
// having moved again, continues the pushed branch and updates the same pull request.
func TestShallowCheckoutWithMainMoved(t *testing.T) {
	a := newAction(t,
		commitBash("work.txt", "first", "First pass"),
		models.Text("First pass done. "+signal),
		commitBash("work.txt", "second", "Second pass"),
		models.Text("Second pass done. "+signal),
	)
	g := withGitHub(t, a, ghToken)
	seed := a.dir // the repository's history, from which others push to main
	for _, msg := range []string{"Older work", "Recent work"} {
		gitRun(t, a.env, seed, "commit", "-q", "--allow-empty", "-m", msg)
	}
	gitRun(t, a.env, seed, "push", "-q", g.remote, "main")
	moveMain := func(msg string) {
		gitRun(t, a.env, seed, "commit", "-q", "--allow-empty", "-m", msg)
		gitRun(t, a.env, seed, "push", "-q", g.remote, "main")
	}
	checkout := func() {
		dir := filepath.Join(t.TempDir(), "widgets")
		header := "AUTHORIZATION: basic " + basicAuth(ghToken)
		url := gitRun(t, a.env, seed, "remote", "get-url", "origin")
		gitRun(t, a.env, seed, "-c", "http.extraheader="+header, "clone", "-q", "--depth", "1", "--branch", "main", url, dir)
		if got := gitRun(t, a.env, dir, "rev-list", "--count", "HEAD"); got != "1" {
			t.Fatalf("the checkout has %s commits, want a depth-1 clone", got)
		}
		a.dir, a.env["GITHUB_WORKSPACE"] = dir, dir
	}
	g.api.RefuseDrafts()
	g.maintainerLabels(t)
	a.input("branch-strategy", "branch")
	a.input("branch", "sandcastle/issue-42")
	a.input("open-pr", "true")
	// Someone pushes to main once the run has its workspace, before the agent starts.
	a.key("hooks", "worktree-ready", "git -C "+seed+" commit -q --allow-empty -m 'Pushed while the agent works' && git -C "+seed+" push -q "+g.remote+" main")

	checkout()
	inv, out := a.runWant(0)
	first := out["head-sha"]
	if out["status"] != "complete" || out["pushed"] != "true" || out["recovery-branch"] != "" || g.remoteSHA(t, "sandcastle/issue-42") != first {
		t.Fatalf("first run: outputs %v, remote branch %q; want its commit pushed", out, g.remoteSHA(t, "sandcastle/issue-42"))
	}
	prs := g.api.PRs()
	if len(prs) != 1 || prs[0].Draft || out["pr-url"] != prs[0].URL {
		t.Fatalf("pull requests = %+v, pr-url %q; want one, ready for review", prs, out["pr-url"])
	}
	if !strings.Contains(inv.output(), "does not support draft pull requests") {
		t.Errorf("the log does not say why the pull request is no draft")
	}
	if c := g.api.Comments(42); len(c) != 1 || !strings.Contains(c[0].Body, "does not support draft pull requests") {
		t.Errorf("comments = %+v; want one saying why the pull request is no draft", c)
	}
	checkNoToken(t, a, inv)

	moveMain("Pushed between the runs")
	checkout()
	inv, out = a.runWant(0)
	if out["status"] != "complete" || out["pushed"] != "true" || out["recovery-branch"] != "" {
		t.Fatalf("re-run: outputs %v; want the branch continued and pushed", out)
	}
	head := g.remoteSHA(t, "sandcastle/issue-42")
	if head != out["head-sha"] || out["base-sha"] != first {
		t.Errorf("re-run: remote branch %s, base-sha %s, head-sha %s; want it to start from the first run's %s and be pushed", head, out["base-sha"], out["head-sha"], first)
	}
	if parent, err := gitOutput(g.remote, "rev-parse", head+"^"); err != nil || parent != first {
		t.Errorf("the re-run's commit has parent %q (%v), want the first run's %s: a fast-forward", parent, err, first)
	}
	if got := g.api.PRs(); len(got) != 1 || got[0].Edits == 0 {
		t.Errorf("pull requests after the re-run = %+v; want the one, updated", got)
	}
	if strings.Contains(inv.output(), "fetch") {
		t.Errorf("the re-run logged about fetching:\n%s", inv.output())
	}
	checkNoToken(t, a, inv)
}
