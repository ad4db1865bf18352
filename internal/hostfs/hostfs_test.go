package hostfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/hostfs"
)

// TestDir_never_follows_a_replaced_directory: a directory on the way replaced with a link (to a
// directory outside or inside) or with a file is a *ReplacedError, and nothing is made where the
// link leads; a real one is made and opened.
func TestDir_never_follows_a_replaced_directory(t *testing.T) {
	for _, swap := range []string{"link-out", "link-in", "file"} {
		t.Run(swap, func(t *testing.T) {
			top, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(top, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(top, ".sandcastle"), 0o755); err != nil {
				t.Fatal(err)
			}
			logs := filepath.Join(top, ".sandcastle", "logs")
			var err error
			switch swap {
			case "link-out":
				err = os.Symlink(outside, logs)
			case "link-in":
				err = os.Symlink(filepath.Join(top, "src"), logs)
			case "file":
				err = os.WriteFile(logs, nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := hostfs.Dir(top, ".sandcastle/logs/deeper", 0o755)
			var replaced *hostfs.ReplacedError
			if !errors.As(err, &replaced) || replaced.Path != logs {
				t.Errorf("Dir = %v, %v; want a *ReplacedError naming %s", d, err, logs)
			}
			for _, dir := range []string{outside, filepath.Join(top, "src")} {
				if entries, _ := os.ReadDir(dir); len(entries) > 0 {
					t.Errorf("made %v in %s", entries, dir)
				}
			}
		})
	}
	top := t.TempDir()
	d, err := hostfs.Dir(top, ".sandcastle/logs", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if fi, err := os.Lstat(filepath.Join(top, ".sandcastle", "logs")); err != nil || !fi.IsDir() {
		t.Errorf("no directory made: %v", err)
	}
}

// TestOpenFile_never_follows_a_link: a link where the host's file goes is not written through.
func TestOpenFile_never_follows_a_link(t *testing.T) {
	top, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "victim")
	if err := os.WriteFile(target, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(top, "run.log")); err != nil {
		t.Fatal(err)
	}
	d, err := hostfs.Dir(top, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = hostfs.OpenFile(d, "run.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	var replaced *hostfs.ReplacedError
	if !errors.As(err, &replaced) {
		t.Errorf("OpenFile through a link = %v; want a *ReplacedError", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target = %q", b)
	}
	// Path reaches the directory through its descriptor, even after it was renamed.
	if err := os.Rename(top, top+"-moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostfs.Path(d, "new"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(top+"-moved", "new")); err != nil {
		t.Errorf("Path did not follow the descriptor: %v", err)
	}
}
