package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestDockerCopySyncHead runs the real claude in a container that has the repository copied in
// (the docker input's sync: copy), not mounted: the commit comes back to the host branch and its checkout,
// which ends clean at it; the file the agent left uncommitted stays behind, with a warning.
func TestDockerCopySyncHead(t *testing.T) {
	a := newDockerAction(t,
		commitBash("notes.txt", "from the container", "Add a note"),
		models.Bash("echo scratch > scratch.txt"),
		models.Text("Done. "+signal),
	)
	a.input("prompt", "Add a note, commit, then print "+signal)
	a.key("docker", "sync", "copy")
	inv, out := a.runWant(0)
	if out["status"] != "complete" || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete with one commit", out)
	}
	if got, want := a.git("log", "-1", "--format=%s"), "Add a note"; got != want {
		t.Errorf("host HEAD = %q, want the agent's commit %q", got, want)
	}
	if got, want := readFile(t, filepath.Join(a.dir, "notes.txt")), "from the container\n"; got != want {
		t.Errorf("notes.txt on the host = %q, want %q", got, want)
	}
	if got := a.git("status", "--porcelain"); got != "" {
		t.Errorf("host checkout is not clean at the agent's commit:\n%s", got)
	}
	if !strings.Contains(inv.output(), "1 file(s) changed in the sandbox were never committed") {
		t.Errorf("no warning about the uncommitted scratch.txt in:\n%s", inv.output())
	}
	if got := ownerUID(t, filepath.Join(a.dir, "notes.txt")); got != workspaceUID {
		t.Errorf("notes.txt is owned by %d, want the workspace owner %d", got, workspaceUID)
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}

// TestDockerCopySyncWorktree copies a worktree and the repository's .git into the container, and
// brings back the commits of every iteration, each reported by the iteration that made it.
func TestDockerCopySyncWorktree(t *testing.T) {
	a := newDockerAction(t,
		commitBash("notes.txt", "first", "First note"),
		models.Text("Did step one, more to do."),
		commitBash("notes.txt", "second", "Second note"),
		models.Text("Done. "+signal),
	)
	a.input("prompt", "Add notes, one per run, then print "+signal)
	a.key("docker", "sync", "copy")
	a.input("branch-strategy", "branch")
	a.input("branch", "agent/copy")
	a.input("max-iterations", "3")
	_, out := a.runWant(0)
	if out["status"] != "complete" || out["commit-count"] != "2" || out["iterations"] != "2" {
		t.Errorf("outputs %v; want complete with two commits after two iterations", out)
	}
	if got, want := a.git("log", "-2", "--format=%s", "agent/copy"), "Second note\nFirst note"; got != want {
		t.Errorf("agent/copy log = %q, want %q", got, want)
	}
	if got, want := a.git("show", "agent/copy:notes.txt"), "first\nsecond"; got != want {
		t.Errorf("notes.txt on agent/copy = %q, want %q", got, want)
	}
	if want := strings.Fields(a.git("log", "--reverse", "--format=%H", "-2", "agent/copy")); strings.Join(commitList(t, out["commits"]), " ") != strings.Join(want, " ") {
		t.Errorf("commits output %q, want %v", out["commits"], want)
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}
