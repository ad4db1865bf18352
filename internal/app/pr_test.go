package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// A run on a pull request's own branch (mode pr) through Main: the fake GitHub has the pull
// request, the git remote its head (a branch of the repository, or a fork's, which GitHub keeps
// as refs/pull/<n>/head of the repository too), and the checkout is main at depth 1, as
// actions/checkout leaves it on an issue_comment event.

const (
	prNumber = 5
	prHead   = "feature"
	forkRepo = "stranger/widgets"
)

// pullRequest is pull request 5 of the repository, from prHead.
type pullRequest struct {
	head string // the head's commit
	fork string // the fork's bare repository; "" for a branch of the repository
}

// openPR opens pull request 5 from prHead, one commit of its author on top of main that adds
// files: on a branch of the repository, or with fork on one of the fork stranger/widgets. The
// commit is made in a clone of its own, so the checkout does not have it. Then the checkout is
// made afresh, main at depth 1.
func (g *github) openPR(t *testing.T, fork bool, files map[string]string) pullRequest {
	t.Helper()
	a := g.a
	author := filepath.Join(t.TempDir(), "author")
	gitRun(t, a.env, a.dir, "clone", "-q", g.remote, author)
	for name, content := range files {
		writeFile(t, filepath.Join(author, name), content)
	}
	gitRun(t, a.env, author, "add", ".")
	gitRun(t, a.env, author, "commit", "-qm", "Their change")
	pr := pullRequest{head: gitRun(t, a.env, author, "rev-parse", "HEAD")}
	owner := "octo"
	if fork {
		_, pr.fork = g.git.NewRepo(t, forkRepo)
		gitRun(t, a.env, author, "push", "-q", pr.fork, "HEAD:refs/heads/"+prHead)
		owner = "stranger"
	} else {
		gitRun(t, a.env, author, "push", "-q", g.remote, "HEAD:refs/heads/"+prHead)
	}
	gitRun(t, a.env, author, "push", "-q", g.remote, "HEAD:refs/pull/5/head") // as GitHub keeps it
	g.api.AddPR(githubfake.PR{Number: prNumber, Head: owner + ":" + prHead, Base: "main", Title: "Greet the world",
		Body: "Adds a greeting.", HeadSHA: pr.head})
	g.checkout(t)
	return pr
}

// checkout replaces the action's checkout with a depth-1 clone of main, as actions/checkout
// makes it, with no token left in its config.
func (g *github) checkout(t *testing.T) {
	t.Helper()
	a := g.a
	url := gitRun(t, a.env, a.dir, "remote", "get-url", "origin")
	dir := filepath.Join(t.TempDir(), "widgets")
	gitRun(t, a.env, a.dir, "-c", "http.extraheader=AUTHORIZATION: basic "+basicAuth(ghToken), "clone", "-q", "--depth", "1", "--branch", "main", url, dir)
	a.dir, a.env["GITHUB_WORKSPACE"] = dir, dir
	if a.inDocker() {
		chownTree(t, dir, workspaceUID) // the runner's user owns the checkout, as it does there
	}
}

// inDocker says the action runs the agent in the Docker sandbox.
func (a *action) inDocker() bool {
	return a.env[inputs.EnvName(inputs.InputSandbox)] == inputs.SandboxDocker
}

// prompt is what the agent was sent first: the fake claude's stdin, or the real claude's first
// request to the model.
func (a *action) prompt(t *testing.T) string {
	t.Helper()
	if a.claude != nil {
		if calls := a.claude.Calls(); len(calls) > 0 {
			return calls[0].Prompt
		}
		return ""
	}
	if reqs := a.model.Requests(); len(reqs) > 0 {
		return reqs[0].Transcript()
	}
	return ""
}

// newActionFunc makes the action of a test: newFakeAction, or newDockerAction with the real
// claude in the sandbox.
type newActionFunc func(t *testing.T, steps ...models.Step) *action

// commentOnPR is a maintainer's issue_comment on pull request 5 holding body, as the fake
// GitHub has it.
func (g *github) commentOnPR(t *testing.T, body string) githubfake.Comment {
	t.Helper()
	g.api.SetPermission("maintainer", "write")
	c := g.api.AddComment(prNumber, "maintainer", "MEMBER", body)
	g.event(t, "issue_comment", map[string]any{
		"action": "created",
		"issue": map[string]any{"number": prNumber, "title": "Greet the world", "body": "Adds a greeting.", "state": "open",
			"pull_request": map[string]any{"url": g.api.APIURL + "/repos/octo/widgets/pulls/5"}},
		"comment":    map[string]any{"id": c.ID, "body": body, "user": map[string]any{"login": "maintainer"}, "author_association": "MEMBER"},
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
		"repository": map[string]any{"full_name": ghRepo, "name": "widgets", "owner": map[string]any{"login": "octo"}},
	})
	return c
}

// reviewCommentOnPR is a maintainer's pull_request_review_comment on line 1 of hello.txt of
// pull request 5 holding body, with hunk as its diff hunk.
func (g *github) reviewCommentOnPR(t *testing.T, pr pullRequest, body, hunk string) githubfake.ReviewComment {
	t.Helper()
	g.api.SetPermission("maintainer", "write")
	c := g.api.AddReviewComment(githubfake.ReviewComment{PR: prNumber, Path: "hello.txt", Line: 1, DiffHunk: hunk, Body: body,
		Author: "maintainer", AuthorAssociation: "MEMBER"})
	repo := map[string]any{"full_name": ghRepo, "name": "widgets", "owner": map[string]any{"login": "octo"}}
	g.event(t, "pull_request_review_comment", map[string]any{
		"action": "created",
		"comment": map[string]any{"id": c.ID, "body": body, "path": "hello.txt", "line": 1, "original_line": 1, "side": "RIGHT",
			"diff_hunk": hunk, "commit_id": pr.head, "user": map[string]any{"login": "maintainer"}, "author_association": "MEMBER"},
		"pull_request": map[string]any{"number": prNumber, "title": "Greet the world", "body": "Adds a greeting.", "state": "open",
			"head": map[string]any{"ref": prHead, "sha": pr.head, "repo": repo},
			"base": map[string]any{"ref": "main", "repo": repo}},
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
		"repository": repo,
	})
	return c
}

// reviewablePR opens pull request 5, whose head adds a line to main.go, and sends the event of
// its opening by a maintainer with title and body, as a review run meets it.
func (g *github) reviewablePR(t *testing.T, title, body string) pullRequest {
	t.Helper()
	g.api.SetPermission("maintainer", "write")
	pr := g.openPR(t, false, map[string]string{"main.go": "package main\nconst x = 1\n"})
	g.api.SetFiles(prNumber, githubfake.File{Name: "main.go", Patch: "@@ -1 +1,2 @@\n-package old\n+package main\n+const x = 1"})
	g.event(t, "pull_request", map[string]any{"action": "opened", "number": prNumber,
		"pull_request": map[string]any{"number": prNumber, "title": title, "body": body, "user": map[string]any{"login": "maintainer"},
			"head": map[string]any{"ref": prHead, "sha": pr.head, "repo": map[string]any{"full_name": ghRepo}},
			"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": ghRepo}}},
		"sender":     map[string]any{"login": "maintainer", "type": "User"},
		"repository": map[string]any{"full_name": ghRepo, "name": "widgets", "owner": map[string]any{"login": "octo"}}})
	return pr
}

// refs lists the refs of the bare repository dir with their commits.
func refs(t *testing.T, dir string) string {
	t.Helper()
	out, err := gitOutput(dir, "for-each-ref", "--format=%(refname) %(objectname)")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPRModeLifecycle is mode pr with every real part but the agent CLI: a maintainer's
// comment on a pull request, a checkout of main. Its commits land on the pull request's
// branch, pushed with a lease on the head the run started from; a push to the branch during the
// run sends them to a recovery branch, the other commit kept; 👀 marks the run as it goes, 🚀 or
// 😕 how it ended.
func TestPRModeLifecycle(t *testing.T) {
	for _, moved := range []bool{false, true} {
		t.Run(map[bool]string{false: "pushed", true: "branch_moved"}[moved], func(t *testing.T) {
			t.Parallel()
			prCommentRun(t, newFakeAction, moved)
		})
	}
}

// prCommentRun is a run of mode pr started by a comment on a pull request of the repository,
// with moved someone pushing to its branch while the agent works.
func prCommentRun(t *testing.T, newAction newActionFunc, moved bool) {
	a := newAction(t, commitBash("work.txt", "agent", "Agent work"), models.Text("Renamed it. "+signal))
	g := withGitHub(t, a, ghToken)
	pr := g.openPR(t, false, map[string]string{"hello.txt": "hello\n"})
	c := g.commentOnPR(t, "/sandcastle rename the greeting, please")
	a.input("mode", "pr")
	theirs := filepath.Join(t.TempDir(), "theirs")
	if moved {
		a.key("hooks", "worktree-ready", "git --git-dir="+g.remote+" commit-tree -m theirs refs/heads/feature^{tree} -p refs/heads/feature > "+theirs+
			" && git --git-dir="+g.remote+" update-ref refs/heads/feature $(cat "+theirs+")")
	}

	inv, out := a.runWant(map[bool]int{false: 0, true: 1}[moved])
	if got := a.prompt(t); !strings.Contains(got, "rename the greeting, please") || !strings.Contains(got, "Greet the world") {
		t.Errorf("the prompt lacks the comment or the pull request's title:\n%s", got)
	}
	if out["branch"] != prHead || out["base-sha"] != pr.head || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want the agent's commit on %s, started from its head %s", out, prHead, pr.head)
	}
	if got := gitRun(t, a.env, a.dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("the checkout is on %q now, want main as the workflow left it", got)
	}
	comments := g.api.Comments(prNumber)
	last := comments[len(comments)-1]
	if len(comments) != 2 || last.ID == c.ID {
		t.Fatalf("comments on #5 = %+v; want the maintainer's and the run's progress comment", comments)
	}
	if !strings.Contains(last.Body, "\n\n> Renamed it.\n\n") {
		t.Errorf("comment %q; want the agent's answer quoted", last.Body)
	}
	if !moved {
		if out["status"] != "complete" || out["pushed"] != "true" || g.remoteSHA(t, prHead) != out["head-sha"] {
			t.Errorf("outputs %v, remote %s at %s; want the commit pushed to the pull request's branch", out, prHead, g.remoteSHA(t, prHead))
		}
		if parent, _ := gitOutput(g.remote, "rev-parse", out["head-sha"]+"^"); parent != pr.head {
			t.Errorf("the pushed commit's parent is %s, want the pull request's head %s", parent, pr.head)
		}
		if !strings.Contains(last.Body, "pushed to `feature`") || !slices.Equal(g.api.Reactions(c.ID), []string{"rocket"}) {
			t.Errorf("comment %q, reactions %q; want the push said and a rocket", last.Body, g.api.Reactions(c.ID))
		}
	} else {
		recovery := "sandcastle/recovery/feature-4242-1"
		theirs := strings.TrimSpace(readFile(t, theirs))
		if out["status"] != "branch-moved" || out["recovery-branch"] != recovery || g.remoteSHA(t, prHead) != theirs {
			t.Errorf("outputs %v, remote feature %s; want branch-moved, their commit %s kept", out, g.remoteSHA(t, prHead), theirs)
		}
		if g.remoteSHA(t, recovery) != out["head-sha"] || !slices.Equal(g.api.Reactions(c.ID), []string{"confused"}) {
			t.Errorf("recovery branch %s, reactions %q; want the agent's commit there and confused", g.remoteSHA(t, recovery), g.api.Reactions(c.ID))
		}
	}
	if n := g.api.Calls("POST", "/repos/{owner}/{repo}/issues/comments/{id}/reactions"); n != 2 {
		t.Errorf("%d reactions made, want eyes, then the end's", n)
	}
	if bodies := g.api.Bodies("POST", "/repos/{owner}/{repo}/issues/comments/{id}/reactions"); len(bodies) == 0 || !strings.Contains(bodies[0], `"eyes"`) {
		t.Errorf("first reaction %q, want eyes", bodies)
	}
	checkNoToken(t, a, inv)
}

// TestPRModeForkLifecycle: a comment on a pull request from a fork is refused by default, before
// anything is made, with one comment that says why; with allow-forks the fork's head is fetched
// from the repository, its commits go to a branch of this repository, which the reply links,
// and the fork is left as it was. What the fork's head holds runs nowhere on the host: a script
// of its tree that the project's config names as a filter does not run when the head is
// checked out.
func TestPRModeForkLifecycle(t *testing.T) {
	t.Run("refused", func(t *testing.T) { forkRefusedRun(t, newFakeAction) })
	t.Run("allowed", func(t *testing.T) { forkAllowedRun(t, newFakeAction) })
}

// forkRefusedRun is a comment on a fork's pull request, with forks not allowed.
func forkRefusedRun(t *testing.T, newAction newActionFunc) {
	a := newAction(t) // a claude with no script: it fails the run if it runs
	g := withGitHub(t, a, ghToken)
	g.openPR(t, true, map[string]string{"hello.txt": "hello\n"})
	c := g.commentOnPR(t, "/sandcastle fix the typo")
	a.input("mode", "pr")
	before, remoteBefore := stateOf(t, a.env, a.dir), refs(t, g.remote)

	inv, out := a.runWant(0)
	if out["status"] != "refused" || !strings.Contains(out["refusal-reason"], "allow-forks") || !strings.Contains(out["refusal-reason"], forkRepo) {
		t.Errorf("outputs %v; want refused, naming the fork and allow-forks", out)
	}
	if got := stateOf(t, a.env, a.dir); got != before {
		t.Errorf("the checkout changed:\nbefore %+v\nafter  %+v", before, got)
	}
	if got := refs(t, g.remote); got != remoteBefore {
		t.Errorf("the remote changed:\n%s\nwant\n%s", got, remoteBefore)
	}
	comments := g.api.Comments(prNumber)
	if len(comments) != 2 || !strings.Contains(comments[1].Body, "did not run") || !strings.Contains(comments[1].Body, "allow-forks") {
		t.Errorf("comments %+v; want one answer saying why", comments)
	}
	if len(g.api.Reactions(c.ID)) != 0 {
		t.Errorf("reactions %q on a refused run", g.api.Reactions(c.ID))
	}
	checkNoToken(t, a, inv)
}

// forkAllowedRun is a comment on a fork's pull request, with allow-forks.
func forkAllowedRun(t *testing.T, newAction newActionFunc) {
	a := newAction(t, commitBash("hello.txt", "fixed", "Fix the typo"), models.Text("Fixed. "+signal))
	g := withGitHub(t, a, ghToken)
	ran := filepath.Join(t.TempDir(), "filter-ran")
	pr := g.openPR(t, true, map[string]string{"hello.txt": "helo\n",
		".gitattributes": "z.txt filter=format\n", "z.txt": "z\n", "tools/smudge.sh": "touch " + ran + "; cat\n"})
	// The project's own config runs a script of its tree to check files out, which the fork
	// rewrote; plain git would run the fork's version as it checks z.txt out.
	gitRun(t, a.env, a.dir, "config", "filter.format.smudge", "sh tools/smudge.sh")
	gitRun(t, a.env, a.dir, "config", "filter.format.clean", "cat")
	c := g.commentOnPR(t, "/sandcastle fix the typo")
	a.input("mode", "pr")
	a.input("allow-forks", "true")
	forkBefore := refs(t, pr.fork)

	inv, out := a.runWant(0)
	branch := "sandcastle/pr-5-" + pr.head[:7]
	if out["status"] != "complete" || out["branch"] != branch || out["pushed"] != "true" || g.remoteSHA(t, branch) != out["head-sha"] {
		t.Fatalf("outputs %v, remote %s at %q; want the commit pushed to %s of this repository", out, branch, g.remoteSHA(t, branch), branch)
	}
	if parent, _ := gitOutput(g.remote, "rev-parse", out["head-sha"]+"^"); parent != pr.head {
		t.Errorf("the commit's parent is %s, want the fork's head %s", parent, pr.head)
	}
	if got := refs(t, pr.fork); got != forkBefore {
		t.Errorf("the fork changed:\n%s\nwant\n%s", got, forkBefore)
	}
	if g.remoteSHA(t, prHead) != "" {
		t.Errorf("a branch %s appeared in this repository", prHead)
	}
	comments := g.api.Comments(prNumber)
	link := "[" + branch + "](" + g.git.URL + "/" + ghRepo + "/tree/" + branch + ")"
	if len(comments) != 2 || !strings.Contains(comments[1].Body, link) || !strings.Contains(comments[1].Body, "never pushed to") {
		t.Errorf("comments %+v; want the reply linking %s", comments, link)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the fork's filter script ran on the host")
	}
	if !slices.Equal(g.api.Reactions(c.ID), []string{"rocket"}) {
		t.Errorf("reactions %q, want rocket", g.api.Reactions(c.ID))
	}
	checkNoToken(t, a, inv)
}

// TestPRModeForkMovedLifecycle: a fork that pushes between the run's look-up of its pull
// request and the fetch of its head does not get its newer head worked on: the run fails
// saying so, 😕, and nothing is pushed.
func TestPRModeForkMovedLifecycle(t *testing.T) {
	a := newFakeAction(t) // a claude with no script: it fails the run if it runs
	g := withGitHub(t, a, ghToken)
	pr := g.openPR(t, true, map[string]string{"hello.txt": "helo\n"})
	later := gitRun(t, a.env, a.dir, "--git-dir="+g.remote, "commit-tree", "-m", "Pushed after the look-up", "-p", pr.head, pr.head+"^{tree}")
	gitRun(t, a.env, a.dir, "--git-dir="+g.remote, "update-ref", "refs/pull/5/head", later) // the fake API still says pr.head
	c := g.commentOnPR(t, "/sandcastle fix the typo")
	a.input("mode", "pr")
	a.input("allow-forks", "true")
	remoteBefore := refs(t, g.remote)

	inv, out := a.runWant(1)
	if out["status"] != "failed" || !strings.Contains(inv.stdout, "moved from "+pr.head[:7]+" to "+later[:7]+" since the run looked it up") {
		t.Errorf("outputs %v; want failed, saying the head moved\n%s", out, inv.output())
	}
	if got := refs(t, g.remote); got != remoteBefore {
		t.Errorf("the remote changed:\n%s\nwant\n%s", got, remoteBefore)
	}
	if !slices.Equal(g.api.Reactions(c.ID), []string{"confused"}) {
		t.Errorf("reactions %q, want confused", g.api.Reactions(c.ID))
	}
	checkNoToken(t, a, inv)
}

// TestPRModeReviewCommentLifecycle: a review comment on a line of the diff starts the run; the
// prompt has the file, the line and the hunk, which reach a command as data only; the reply is
// in the review thread, not on the conversation, and the reactions on the review comment.
func TestPRModeReviewCommentLifecycle(t *testing.T) { reviewCommentRun(t, newFakeAction) }

// reviewCommentRun is a run of mode pr started by a review comment with a hostile diff hunk.
func reviewCommentRun(t *testing.T, newAction newActionFunc) {
	a := newAction(t, commitBash("hello.txt", "hi", "Say hi"), models.Text("Done. "+signal))
	g := withGitHub(t, a, ghToken)
	pr := g.openPR(t, false, map[string]string{"hello.txt": "hello\n"})
	hunk := "@@ -0,0 +1 @@\n+hello \"$(touch pwned)\"`touch pwned`"
	c := g.reviewCommentOnPR(t, pr, "/sandcastle say hi instead", hunk)
	writeFile(t, filepath.Join(a.dir, ".git", "info", "exclude"), "pr.md\n")
	writeFile(t, filepath.Join(a.dir, "pr.md"), "On {{REVIEW_PATH}}:{{REVIEW_LINE}} of #{{PR_NUMBER}} ({{HEAD_REF}} into {{BASE_REF}}):\n{{DIFF_HUNK}}\n"+
		"Hunk as a command printed it: !`printf '%s\\n' {{DIFF_HUNK}}`\nAsked: {{COMMENT_BODY}}\n")
	a.input("mode", "pr")
	a.input("prompt-file", "pr.md")

	inv, out := a.runWant(0)
	if out["status"] != "complete" || g.remoteSHA(t, prHead) != out["head-sha"] {
		t.Errorf("outputs %v; want the commit pushed to the pull request's branch", out)
	}
	prompt := a.prompt(t)
	for _, want := range []string{"On hello.txt:1 of #5 (feature into main):\n" + hunk, "Hunk as a command printed it: " + hunk, "Asked: /sandcastle say hi instead"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if found := pwned(t, filepath.Dir(a.dir)); len(found) > 0 { // the worktree included
		t.Errorf("the diff hunk ran as shell: %q", found)
	}
	var replies []githubfake.ReviewComment
	for _, rc := range g.api.ReviewComments(prNumber) {
		if rc.InReplyTo == c.ID {
			replies = append(replies, rc)
		}
	}
	if len(replies) != 1 || !strings.Contains(replies[0].Body, "finished: complete") || out["comment-url"] != replies[0].URL {
		t.Errorf("replies in the thread %+v, comment-url %q; want the run's, finished", replies, out["comment-url"])
	}
	if got := g.api.Comments(prNumber); len(got) != 0 {
		t.Errorf("comments on the conversation %+v; want none", got)
	}
	if !slices.Equal(g.api.Reactions(c.ID), []string{"rocket"}) || g.api.Calls("POST", "/repos/{owner}/{repo}/pulls/comments/{id}/reactions") != 2 {
		t.Errorf("reactions on the review comment %q; want eyes, then rocket in its place", g.api.Reactions(c.ID))
	}
	checkNoToken(t, a, inv)
}

// TestPRModeSkipsAnIssue: the workflow's issue_comment trigger fires for comments on issues as
// well; mode pr skips them quietly, without looking anything up, and sandcastle prompt says there
// is no prompt for them.
func TestPRModeSkipsAnIssue(t *testing.T) {
	a := newFakeAction(t) // a claude with no script: it fails the run if it runs
	g := withGitHub(t, a, ghToken)
	g.event(t, "issue_comment", commentedIssue("/sandcastle do it"))
	a.input("mode", "pr")
	_, out := a.runWant(0)
	if out["status"] != "skipped" || !strings.Contains(out["refusal-reason"], "is about an issue, and this run answers a pull request") {
		t.Errorf("outputs %v; want skipped: about an issue, not a pull request", out)
	}
	if got := g.api.Requests(); len(got) != 0 {
		t.Errorf("GitHub was asked %q; want nothing", got)
	}
	// Nor is there a prompt to show for it.
	a.env["GITHUB_TOKEN"] = ghToken
	inv := runMain(t, a.env, a.dir, "prompt", "--mode", "pr", "--sandbox", "none")
	if inv.code != exitFailed || !strings.Contains(inv.stderr, "mode pr answers a pull request, and skips this event, which is about an issue") {
		t.Errorf("sandcastle prompt: exit %d\n%s\nwant 1 saying the event is skipped", inv.code, inv.output())
	}
}

// TestPRModeHeadOnTheDefaultBranch: a pull request of the repository whose head is its default
// branch (main into release) is worked on, and pushed, on a branch of its own: the run's
// commits never land on main unreviewed, whether the workflow checked main out (issue_comment)
// or a detached merge commit (pull_request_review_comment).
func TestPRModeHeadOnTheDefaultBranch(t *testing.T) {
	for _, detached := range []bool{false, true} {
		t.Run(map[bool]string{false: "main_checked_out", true: "detached"}[detached], func(t *testing.T) {
			t.Parallel()
			a := newFakeAction(t, commitBash("work.txt", "agent", "Bump it"), models.Text("Bumped. "+signal))
			g := withGitHub(t, a, ghToken)
			main := g.remoteSHA(t, "main")
			gitRun(t, a.env, a.dir, "push", "-q", g.remote, "main:refs/heads/release", "main:refs/pull/5/head")
			g.api.AddPR(githubfake.PR{Number: prNumber, Head: "octo:main", Base: "release", Title: "Release", Body: "Ships main.", HeadSHA: main})
			g.checkout(t)
			if detached {
				gitRun(t, a.env, a.dir, "checkout", "-q", "--detach")
			}
			g.commentOnPR(t, "/sandcastle bump the version")
			a.input("mode", "pr")

			inv, out := a.runWant(0)
			branch := "sandcastle/pr-5-" + main[:7]
			if out["status"] != "complete" || out["branch"] != branch || out["pushed"] != "true" || g.remoteSHA(t, branch) != out["head-sha"] {
				t.Errorf("outputs %v; want the commit pushed to %s", out, branch)
			}
			if got := g.remoteSHA(t, "main"); got != main {
				t.Errorf("main moved to %s, want it left at %s", got, main)
			}
			comments := g.api.Comments(prNumber)
			link := "[" + branch + "](" + g.git.URL + "/" + ghRepo + "/tree/" + branch + ")"
			if len(comments) != 2 || !strings.Contains(comments[1].Body, link) {
				t.Errorf("comments %+v; want the reply linking %s", comments, link)
			}
			checkNoToken(t, a, inv)
		})
	}
}
