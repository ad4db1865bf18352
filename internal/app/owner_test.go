package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestGiveBack(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create files owned by root and hand them over")
	}
	top := t.TempDir()
	writeFile(t, filepath.Join(top, ".sandcastle", "logs", "main.log"), "log")
	writeFile(t, filepath.Join(top, "mine.txt"), "user's")
	if err := os.Lchown(filepath.Join(top, "mine.txt"), 1002, 1003); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mine.txt", filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	if err := giveBack(top, 1001, 1001, os.Geteuid); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]uint32{
		top: 1001,
		filepath.Join(top, ".sandcastle", "logs", "main.log"): 1001,
		filepath.Join(top, "link"):                            1001,
		filepath.Join(top, "mine.txt"):                        1002, // not root's: left alone
	} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Sys().(*syscall.Stat_t).Uid; got != want {
			t.Errorf("%s owned by %d, want %d", path, got, want)
		}
	}
	if err := giveBack(top, 0, 0, os.Geteuid); err != nil {
		t.Errorf("giveBack to root: %v", err)
	}
	if err := giveBack(top, 1001, 1001, func() int { return 1000 }); err != nil {
		t.Errorf("giveBack when not root: %v", err)
	}
}
