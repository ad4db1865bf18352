package workspace_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

func TestGiveBack(t *testing.T) {
	t.Parallel()
	testkit.RequireRoot(t, "making files of root's and handing them over")
	top := t.TempDir()
	write(t, filepath.Join(top, ".sandcastle", "logs", "main.log"), "log")
	write(t, filepath.Join(top, "mine.txt"), "user's")
	if err := os.Lchown(filepath.Join(top, "mine.txt"), 1002, 1003); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mine.txt", filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	if err := workspace.Reown(top, 0, 1001, 1001, os.Geteuid); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]uint32{
		top: 1001,
		filepath.Join(top, ".sandcastle", "logs", "main.log"): 1001,
		filepath.Join(top, "link"):                            1001,
		filepath.Join(top, "mine.txt"):                        1002, // not root's: left alone
	} {
		if got := uidOf(t, path); got != want {
			t.Errorf("%s owned by %d, want %d", path, got, want)
		}
	}
	// Handing root's files to root, or anything while we are not root, changes nothing.
	rootFile := filepath.Join(top, "root.txt")
	if err := os.WriteFile(rootFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := workspace.Reown(top, 0, 0, 0, os.Geteuid); err != nil || uidOf(t, rootFile) != 0 || uidOf(t, top) != 1001 {
		t.Errorf("Reown to root: %v; root.txt %d's, top %d's, want 0's and 1001's", err, uidOf(t, rootFile), uidOf(t, top))
	}
	if err := workspace.Reown(top, 0, 1001, 1001, func() int { return 1000 }); err != nil || uidOf(t, rootFile) != 0 {
		t.Errorf("Reown when not root: %v; root.txt %d's, want it left root's", err, uidOf(t, rootFile))
	}
}

// TestHandBack: files made under a directory go to the owner of the checkout they belong to.
func TestHandBack(t *testing.T) {
	t.Parallel()
	testkit.RequireRoot(t, "making files of root's and handing them over")
	checkout := t.TempDir()
	if err := os.Chown(checkout, 1004, 1005); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(checkout, ".sandcastle", "logs")
	write(t, filepath.Join(logs, "run.bundle"), "commits")
	if err := workspace.HandBack(logs, checkout); err != nil {
		t.Fatal(err)
	}
	if got := uidOf(t, filepath.Join(logs, "run.bundle")); got != 1004 {
		t.Errorf("the bundle is owned by %d, want the checkout's owner 1004", got)
	}
	if uid, gid := workspace.Owner(checkout); uid != 1004 || gid != 1005 {
		t.Errorf("Owner = %d:%d, want 1004:1005", uid, gid)
	}
	if uid, gid := workspace.Owner(filepath.Join(checkout, "missing")); uid != -1 || gid != -1 {
		t.Errorf("Owner of a missing file = %d:%d, want -1:-1", uid, gid)
	}
	if err := workspace.HandBack(filepath.Join(checkout, "missing"), checkout); err != nil {
		t.Errorf("HandBack of a missing directory: %v", err)
	}
}

// TestLend: a checkout of root's is the agent's user's while lent, the agent's new files
// included, and root's again once given back; a file of another user stays theirs.
func TestLend(t *testing.T) {
	t.Parallel()
	testkit.RequireRoot(t, "making files of root's and lending them")
	top := t.TempDir()
	write(t, filepath.Join(top, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(top, "other.txt"), "another user's")
	if err := os.Lchown(filepath.Join(top, "other.txt"), 1002, 1002); err != nil {
		t.Fatal(err)
	}
	giveBack, err := workspace.Lend(top, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]uint32{top: 1000, filepath.Join(top, ".git", "HEAD"): 1000, filepath.Join(top, "other.txt"): 1002} {
		if got := uidOf(t, path); got != want {
			t.Errorf("lent: %s owned by %d, want %d", path, got, want)
		}
	}
	agents := filepath.Join(top, "agent.txt")
	write(t, agents, "the agent's")
	if err := os.Lchown(agents, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	if err := giveBack(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]uint32{top: 0, filepath.Join(top, ".git", "HEAD"): 0, agents: 0, filepath.Join(top, "other.txt"): 1002} {
		if got := uidOf(t, path); got != want {
			t.Errorf("given back: %s owned by %d, want %d", path, got, want)
		}
	}

	// A checkout of another user's is not lent.
	theirs := t.TempDir()
	if err := os.Chown(theirs, 1001, 1001); err != nil {
		t.Fatal(err)
	}
	giveBack, err = workspace.Lend(theirs, 1000, 1000)
	if err != nil || giveBack() != nil || uidOf(t, theirs) != 1001 {
		t.Errorf("Lend of a checkout of user 1001: %v; owner now %d", err, uidOf(t, theirs))
	}
}

func uidOf(t *testing.T, path string) uint32 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}
