package workspace_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// copyContainer is a sandbox the workspace was copied into: a copy of it in a directory of its
// own, where commands run with real git, and whose /tmp is its own, as a container's is.
type copyContainer struct {
	root string // the container's file system: its /tmp is root/tmp
	dir  string // the copied workspace
	env  []string
}

func newCopyContainer(t *testing.T, f *fixture, workspaceDir string) *copyContainer {
	t.Helper()
	c := &copyContainer{root: t.TempDir(), env: append(f.env, "GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=a@example.com")}
	c.dir = filepath.Join(c.root, "workspace")
	if err := os.MkdirAll(filepath.Join(c.root, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", workspaceDir, c.dir).CombinedOutput(); err != nil {
		t.Fatalf("copy in: %v: %s", err, out)
	}
	return c
}

func (c *copyContainer) path(p string) string {
	if rest, ok := strings.CutPrefix(p, "/tmp/"); ok {
		return filepath.Join(c.root, "tmp", rest)
	}
	return p
}

func (c *copyContainer) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	argv := make([]string, len(e.Argv))
	for i, a := range e.Argv {
		argv[i] = c.path(a)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return sandbox.Result{ExitCode: exit.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}, nil
	}
	return sandbox.Result{Stdout: stdout.String(), Stderr: stderr.String()}, err
}

func (c *copyContainer) CopyOut(_ context.Context, path string, w io.Writer) error {
	f, err := os.Open(c.path(path))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// agent commits in the container, as the agent does there.
func (c *copyContainer) agent(t *testing.T, args ...string) {
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
	c := newCopyContainer(t, f, f.dir)
	s := w.Synced(c)
	if commits, err := s.Commits(t.Context(), base); err != nil || len(commits) != 0 {
		t.Fatalf("before the agent: %v, %v; want no commits", commits, err)
	}
	write(t, filepath.Join(c.dir, "work.txt"), "done\n")
	c.agent(t, "git", "add", "work.txt")
	c.agent(t, "git", "commit", "-qm", "Agent work")
	commits, err := s.Commits(t.Context(), base)
	if err != nil || len(commits) != 1 || commits[0].Subject != "Agent work" {
		t.Fatalf("commits %v, %v; want the agent's one", commits, err)
	}
	if head, _ := s.Head(t.Context()); head != commits[0].SHA || read(t, filepath.Join(f.dir, "work.txt")) != "done\n" {
		t.Errorf("host head %s, want the agent's commit checked out", head)
	}
	if _, err := os.Stat(filepath.Join(c.root, "tmp", "sandcastle-out.bundle")); !os.IsNotExist(err) {
		t.Errorf("the bundle is left in the sandbox: %v", err)
	}

	write(t, filepath.Join(c.dir, "wip.txt"), "half\n")
	var warnings []string
	s.Finish(t.Context(), func(format string, args ...any) { warnings = append(warnings, format) })
	if len(warnings) != 1 || !strings.Contains(warnings[0], "never committed") {
		t.Errorf("warnings %q, want the uncommitted file", warnings)
	}

	c.agent(t, "git", "reset", "-q", "--hard", base)
	c.agent(t, "git", "commit", "-q", "--allow-empty", "-m", "Rewritten")
	if _, err := s.Commits(t.Context(), base); err == nil || !strings.Contains(err.Error(), "no longer contains") {
		t.Errorf("a rewritten history: %v, want it refused", err)
	}
}
