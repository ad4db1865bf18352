package docker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// TestCopyIn copies a tree into a container that has no mounts, at its working directory (which
// the daemon creates, as root) and at a path whose parents do not exist, and checks it from
// inside as the container user.
func TestCopyIn(t *testing.T) {
	e := requireDocker(t)
	src := t.TempDir()
	for name, content := range map[string]string{"a.txt": "alpha\n", "sub/deep/b.txt": "beta\n", "run.sh": "#!/bin/sh\necho hi\n"} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(src, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/deep/b.txt", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, hostDir(t))
	o.Mounts = nil
	o.WorkDir = "/srv/repo"
	s := start(t, e, o)
	uid, gid := testUser()
	owner := fmt.Sprintf("%d:%d", uid, gid)

	tests := []struct {
		name, dir string
	}{
		{"at_the_working_directory", "/srv/repo"},
		{"under_missing_parents", "/opt/new/parents/repo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.CopyIn(bounded(t), src, tt.dir); err != nil {
				t.Fatalf("CopyIn: %v", err)
			}
			res := mustExec(t, s, execIn(tt.dir, `stat -c '%n %u:%g %a' . a.txt run.sh sub/deep sub/deep/b.txt; readlink link; cat link; ./run.sh; echo new > new.txt && cat new.txt`))
			want := strings.Join([]string{
				". " + owner + " 755",
				"a.txt " + owner + " 644",
				"run.sh " + owner + " 750",
				"sub/deep " + owner + " 755",
				"sub/deep/b.txt " + owner + " 644",
				"sub/deep/b.txt", "beta", "hi", "new", "",
			}, "\n")
			if got := res.Stdout; got != want {
				t.Errorf("inside the container:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	// The parents it created belong to the user too, so it may create siblings.
	if got, want := mustExec(t, s, execIn("/", `stat -c '%u:%g' /opt/new/parents; touch /opt/new/parents/sibling && echo ok`)).Stdout, owner+"\nok\n"; got != want {
		t.Errorf("created parents: got %q, want %q", got, want)
	}
	// Existing parents are left alone.
	if got, want := mustExec(t, s, execIn("/", `stat -c '%u:%g %a' /opt`)).Stdout, "0:0 755\n"; got != want {
		t.Errorf("/opt: got %q, want %q", got, want)
	}
}

func TestCopyInRefusesBadPaths(t *testing.T) {
	e := requireDocker(t)
	o := testOptions(t, hostDir(t))
	s := start(t, e, o)
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, host, container string }{
		{"relative_host", "rel", "/x"},
		{"relative_container", t.TempDir(), "x"},
		{"container_root", t.TempDir(), "/"},
		{"missing_host", filepath.Join(t.TempDir(), "missing"), "/x"},
		{"host_file", file, "/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.CopyIn(bounded(t), tt.host, tt.container); err == nil {
				t.Errorf("CopyIn(%q, %q) succeeded", tt.host, tt.container)
			}
		})
	}
}

func TestCopyOut(t *testing.T) {
	e := requireDocker(t)
	s := start(t, e, testOptions(t, hostDir(t)))
	mustExec(t, s, execIn("/", `head -c 300000 /dev/urandom > /tmp/out.bin; mkdir -p /tmp/adir`))
	want := mustExec(t, s, execIn("/", `sha256sum < /tmp/out.bin`)).Stdout

	var buf bytes.Buffer
	if err := s.CopyOut(bounded(t), "/tmp/out.bin", &buf); err != nil {
		t.Fatalf("CopyOut: %v", err)
	}
	if got := sha256Line(buf.Bytes()); got != want {
		t.Errorf("copied out %d bytes with sum %q, want %q", buf.Len(), got, want)
	}
	for _, p := range []string{"/tmp/adir", "/tmp/missing"} {
		if err := s.CopyOut(bounded(t), p, &bytes.Buffer{}); err == nil {
			t.Errorf("CopyOut(%s) succeeded, want an error", p)
		}
	}
}

// execIn runs a shell script in dir.
func execIn(dir, script string) sandbox.Exec { return sandbox.Exec{Argv: sh(script), Dir: dir} }

// sha256Line is what sha256sum prints for standard input.
func sha256Line(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + "  -\n"
}
