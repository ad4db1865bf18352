package app

import (
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/fakeclaude"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The lifecycle with every real part but the agent CLI: Main, real git, the smart-HTTP remote
// that checks the token, the fake GitHub, and testkit's fake claude on the host. The real-CLI
// and Docker tiers run the same lifecycle with the real CLIs.

// TestLifecycle runs the issue workflow: a maintainer labels issue 42, the agent commits on its
// branch, and the run pushes it. Each row declares the inputs that differ and what the run
// must end with.
func TestLifecycle(t *testing.T) {
	const recovery = "sandcastle/recovery/feature-4242-1"
	tests := []struct {
		name   string
		inputs map[string]string
		moved  bool // someone pushes to the branch while the agent works
		code   int
		// What the outputs, the issue and the remote say afterwards.
		status, pushed, recoveryBranch string
		prs                            int
		comment                        []string // in the one comment on the issue
		labels                         []string
	}{
		{
			name: "opens_a_pull_request",
			inputs: map[string]string{"branch-strategy": "branch", "branch": "feature", "open-pr": "true",
				"in-progress-label": "sandcastle:working", "blocked-label": "sandcastle:blocked"},
			status: "complete", pushed: "true", prs: 1,
			comment: []string{"finished: complete", "pushed to `feature`", "/pull/", "/actions/runs/4242"}, labels: []string{"bug"},
		},
		{
			name:   "lease_finds_the_branch_moved",
			inputs: map[string]string{"push": "lease", "blocked-label": "sandcastle:blocked"},
			moved:  true, code: 1,
			status: "branch-moved", pushed: "false", recoveryBranch: recovery,
			comment: []string{"stopped: branch-moved", "recovery branch `" + recovery + "`"}, labels: []string{"bug", "sandcastle:blocked"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newFakeAction(t, commitBash("work.txt", "agent", "Agent work"), models.Text("Done. "+signal))
			g := withGitHub(t, a, ghToken)
			gitRun(t, a.env, a.dir, "branch", "feature")
			g.gitAuth(t, ghToken, "push", "-q", "origin", "feature")
			if tt.inputs["branch-strategy"] == "" {
				gitRun(t, a.env, a.dir, "checkout", "-q", "feature") // head works on the checkout's branch
			}
			gitRun(t, a.env, a.dir, "fetch", "-q", g.remote, "+refs/heads/*:refs/remotes/origin/*")
			if tt.moved { // their commit lands on feature once the run has read where it was
				a.key("hooks", "worktree-ready", "git --git-dir="+g.remote+" commit-tree -m theirs HEAD^{tree} -p HEAD > theirs && git --git-dir="+g.remote+" update-ref refs/heads/feature $(cat theirs) && rm theirs")
			}
			g.maintainerLabels(t)
			g.api.SetLabels(42, "sandcastle", "bug")
			a.input("trigger-label", "sandcastle")
			for k, v := range tt.inputs {
				a.input(k, v)
			}

			inv, out := a.runWant(tt.code)
			if out["status"] != tt.status || out["pushed"] != tt.pushed || out["recovery-branch"] != tt.recoveryBranch || out["commit-count"] != "1" {
				t.Errorf("outputs %v; want %s, pushed %s, recovery branch %q", out, tt.status, tt.pushed, tt.recoveryBranch)
			}
			ours := out["head-sha"]
			if branch := cmp.Or(tt.recoveryBranch, "feature"); g.remoteSHA(t, branch) != ours {
				t.Errorf("the remote's %s = %q, want the agent's commit %q", branch, g.remoteSHA(t, branch), ours)
			}
			if prs := g.api.PRs(); len(prs) != tt.prs || tt.prs > 0 && (out["pr-url"] != prs[0].URL || !prs[0].Draft || prs[0].Head != "octo:feature" || prs[0].Base != "main") {
				t.Errorf("pull requests %+v, pr-url %q; want %d, a draft from feature into main", prs, out["pr-url"], tt.prs)
			}
			comments := g.api.Comments(42)
			if len(comments) != 1 || out["comment-url"] != comments[0].URL {
				t.Fatalf("comments %+v; want the one progress comment", comments)
			}
			for _, w := range tt.comment {
				if !strings.Contains(comments[0].Body, w) {
					t.Errorf("the comment lacks %q:\n%s", w, comments[0].Body)
				}
			}
			if got := g.api.Labels(42); !slices.Equal(got, tt.labels) {
				t.Errorf("labels %q, want %q", got, tt.labels)
			}
			if calls := a.claude.Calls(); len(calls) != 1 || !strings.Contains(calls[0].Prompt, "Work, commit") || slices.ContainsFunc(calls[0].Env, func(kv string) bool { return strings.Contains(kv, ghToken) }) {
				t.Errorf("the agent's calls %+v; want one, with the prompt and without the token", calls)
			}
			checkNoToken(t, a, inv)
		})
	}
}

// TestLifecycleCopySync: a workspace copied into the sandbox (the docker input's sync: copy, where the
// daemon cannot see the checkout) comes back as commits: the agent commits in the copy, the
// commit reaches the host branch through a bundle, what it left uncommitted is warned about,
// and what it changed in the copy's git directory stays there. The sandbox here is the host in
// a directory of its own, with its own /tmp, as a container's.
func TestLifecycleCopySync(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	claude := fakeclaude.New(t,
		models.Bash("echo agent > work.txt && git add work.txt && git commit -qm 'Agent work' && echo wip > wip.txt"),
		models.Text("Done. "+signal))
	e["PATH"] = claude.Dir() + string(os.PathListSeparator) + e["PATH"]
	dir := newRepo(t, e)
	var stdout testkit.SyncBuffer
	sys := System{Getenv: e.get, Getwd: func() (string, error) { return dir, nil }, Stdout: &stdout, Stderr: &stdout}
	s, err := validate(t.Context(), sys, inputs.Raw{inputs.InputPrompt: "Work.", inputs.InputSandbox: "none",
		inputs.InputBranchStrategy: "branch", inputs.InputBranch: "agent/work"}, dir, new(report.Redactor))
	if err != nil {
		t.Fatal(err)
	}
	d := s.deps(runner.New(&stdout, e.get))
	copies := &copySandboxes{sandboxes: s.sandboxes(s.plan.Config), t: t}
	d.Sandboxes = copies
	o, err := engine.Run(t.Context(), s.plan, d)
	t.Log(stdout.String())
	if err != nil || o.Status != report.StatusComplete || len(o.Commits) != 1 {
		t.Fatalf("Run = %+v, %v", o, err)
	}
	if got := gitRun(t, e, dir, "log", "-1", "--format=%s", "agent/work"); got != "Agent work" || o.HeadSHA != gitRun(t, e, dir, "rev-parse", "agent/work") {
		t.Errorf("agent/work on the host is at %q; want the agent's commit, brought out", got)
	}
	if !strings.Contains(stdout.String(), "1 file(s) changed in the sandbox were never committed") {
		t.Errorf("no warning about wip.txt")
	}
	if calls := claude.Calls(); len(calls) != 1 || strings.HasPrefix(calls[0].Dir, dir) {
		t.Errorf("the agent's calls %+v; want one, in the copy", calls)
	}
}

// copySandboxes starts a "container" that is a copy of the workspace on the host.
type copySandboxes struct {
	sandboxes
	t *testing.T
}

func (c *copySandboxes) Start(ctx context.Context, ws engine.Workspace, env map[string]string, log *report.Log) (engine.Started, error) {
	dir, top := ws.Dir(), ws.Top()
	g, err := gitguard.Take(ctx, hostGit(dir, c.gitEnv))
	if err != nil {
		return engine.Started{}, err
	}
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	// The worktree and the repository's git directory, as CopyIn copies them.
	sb := testkit.NewCopySandbox(c.t, dir, vars)
	inside := sb.RepoDir()
	for _, cmd := range [][]string{{"rm", "-f", filepath.Join(inside, ".git")}, {"cp", "-a", filepath.Join(top, ".git"), filepath.Join(inside, ".git")},
		{"git", "-C", inside, "symbolic-ref", "HEAD", "refs/heads/agent/work"}, {"git", "-C", inside, "reset", "-q"}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			return engine.Started{}, errors.New(strings.Join(cmd, " ") + ": " + string(out))
		}
	}
	return copied(engine.Started{Sandbox: sb, Guard: guard{g: g}}, ws.(workspaceView), sb, log), nil
}
