package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// agent runs a command in the copy, as the agent does there.
func agent(t *testing.T, c *testkit.CopySandbox, args ...string) {
	t.Helper()
	if r, err := c.Exec(t.Context(), sandbox.Exec{Argv: args}); err != nil || r.ExitCode != 0 {
		t.Fatalf("%v: %v %s", args, err, r.Stderr)
	}
}

// TestSynced_brings_the_commits_out: the commits the agent makes in a copy of the workspace come
// out to the host branch, which the checkout follows; what it leaves uncommitted is warned
// about, and a history the agent rewrote is refused.
func TestSynced_brings_the_commits_out(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.prepare(f.opts(inputs.StrategyHead))
	defer f.finish(w)
	base, err := w.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.NewCopySandbox(t, f.dir, append(f.env, "GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=a@example.com"))
	s := w.Synced(c)
	if commits, err := s.Commits(t.Context(), base); err != nil || len(commits) != 0 {
		t.Fatalf("before the agent: %v, %v; want no commits", commits, err)
	}
	write(t, filepath.Join(c.RepoDir(), "work.txt"), "done\n")
	agent(t, c, "git", "add", "work.txt")
	agent(t, c, "git", "commit", "-qm", "Agent work")
	commits, err := s.Commits(t.Context(), base)
	if err != nil || len(commits) != 1 || commits[0].Subject != "Agent work" {
		t.Fatalf("commits %v, %v; want the agent's one", commits, err)
	}
	if head, _ := s.Head(t.Context()); head != commits[0].SHA || read(t, filepath.Join(f.dir, "work.txt")) != "done\n" {
		t.Errorf("host head %s, want the agent's commit checked out", head)
	}
	if _, err := os.Stat(filepath.Join(c.Tmp(), "sandcastle-out.bundle")); !os.IsNotExist(err) {
		t.Errorf("the bundle is left in the sandbox: %v", err)
	}

	write(t, filepath.Join(c.RepoDir(), "wip.txt"), "half\n")
	var warnings []string
	s.Finish(t.Context(), func(format string, args ...any) { warnings = append(warnings, format) })
	if len(warnings) != 1 || !strings.Contains(warnings[0], "never committed") {
		t.Errorf("warnings %q, want the uncommitted file", warnings)
	}

	agent(t, c, "git", "reset", "-q", "--hard", base)
	agent(t, c, "git", "commit", "-q", "--allow-empty", "-m", "Rewritten")
	if _, err := s.Commits(t.Context(), base); err == nil || !strings.Contains(err.Error(), "no longer contains") {
		t.Errorf("a rewritten history: %v, want it refused", err)
	}
}
