package hostfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestRemoveAndRename_never_reach_through_a_link: Remove takes away the link, not what it names,
// and Rename moves the entry of its own directory, leaving a link's target where it is.
func TestRemoveAndRename_never_reach_through_a_link(t *testing.T) {
	top, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if err := os.Symlink(victim, filepath.Join(top, name)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := hostfs.Dir(top, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := hostfs.Remove(d, "a"); err != nil {
		t.Fatal(err)
	}
	if err := hostfs.Rename(d, "b", d, "c"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("the link's target is %q, %v; want it untouched", b, err)
	}
	if _, err := os.Lstat(filepath.Join(top, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a: %v; want it removed", err)
	}
	if fi, err := os.Lstat(filepath.Join(top, "c")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("c: %v; want the link moved there", err)
	}
	var perr *os.PathError
	if err := hostfs.Remove(d, "missing"); !errors.As(err, &perr) || perr.Path != filepath.Join(top, "missing") {
		t.Errorf("Remove(missing) = %v; want a PathError naming it", err)
	}
	var lerr *os.LinkError
	if err := hostfs.Rename(d, "missing", d, "x"); !errors.As(err, &lerr) {
		t.Errorf("Rename(missing) = %v; want a LinkError", err)
	}
}

// TestBeneath: a file inside the checkout is reached from it without following a link, and a
// swapped directory on the way is named; one outside is the user's choice, opened as it is.
func TestBeneath(t *testing.T) {
	top, outside := t.TempDir(), t.TempDir()
	d, name, err := hostfs.Beneath(top, filepath.Join(top, ".sandcastle", "logs", "run.log"), 0o755)
	if err != nil || name != "run.log" {
		t.Fatalf("Beneath inside = %v, %q, %v", d, name, err)
	}
	d.Close()
	d, name, err = hostfs.Beneath(top, filepath.Join(outside, "mine", "run.log"), 0o755)
	if err != nil || name != "run.log" || filepath.Clean(d.Name()) != filepath.Join(outside, "mine") {
		t.Fatalf("Beneath outside = %v, %q, %v", d, name, err)
	}
	d.Close()
	if err := os.Symlink(outside, filepath.Join(top, "swapped")); err != nil {
		t.Fatal(err)
	}
	_, _, err = hostfs.Beneath(top, filepath.Join(top, "swapped", "run.log"), 0o755)
	var replaced *hostfs.ReplacedError
	if !errors.As(err, &replaced) || !strings.Contains(err.Error(), "swapped is a symbolic link") {
		t.Errorf("Beneath through a link = %v; want a *ReplacedError naming it", err)
	}
	if _, err := hostfs.Dir(top, "../up", 0o755); err == nil || !strings.Contains(err.Error(), "not a local path") {
		t.Errorf("Dir(../up) = %v; want it refused", err)
	}
	if _, err := hostfs.Dir(filepath.Join(top, "missing"), "x", 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Dir of a missing base = %v", err)
	}
}

// TestOpenFile_errors: a file that is not there is a PathError naming it.
func TestOpenFile_errors(t *testing.T) {
	d, err := hostfs.Dir(t.TempDir(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var perr *os.PathError
	if _, err := hostfs.OpenFile(d, "missing", os.O_RDONLY, 0); !errors.As(err, &perr) {
		t.Errorf("OpenFile(missing) = %v; want a PathError", err)
	}
}
