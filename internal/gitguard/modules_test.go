package gitguard_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/gitguard"
)

// TestClose_quarantines_git_directories_planted_in_modules: a git directory the agent made under
// .git/modules (git clone --separate-git-dir there, or one for a submodule the repository
// declares and never initialised) is what a later git submodule update --init on the host
// takes up, hooks and config and all. Close moves it into the quarantine and says so; the
// submodule that was there at Take stays.
func TestClose_quarantines_git_directories_planted_in_modules(t *testing.T) {
	r := newRepo(t)
	g := r.take(t, r.top)
	planted := filepath.Join(r.top, ".git", "modules", "evil")
	r.git(t, r.top, "init", "-q", "--separate-git-dir="+planted, filepath.Join(t.TempDir(), "evil"))
	write(t, filepath.Join(planted, "hooks", "post-checkout"), "#!/bin/sh\ntouch /tmp/ran\n")
	// A submodule named a/b keeps its git directory under modules/a/b.
	deep := filepath.Join(r.top, ".git", "modules", "a", "b")
	r.git(t, r.top, "init", "-q", "--bare", deep)

	_, got := closeGuard(t, g)
	want := []string{".git/modules/a moved", ".git/modules/evil moved"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	for _, p := range []string{planted, filepath.Dir(deep)} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(r.top, ".git", "modules", "sub", "HEAD")); err != nil {
		t.Errorf("the submodule's own git directory went: %v", err)
	}
}

// TestBinds_shut_modules: .git/modules is mounted read-only, each submodule's git directory in
// it writable again, so the agent can commit in a submodule but add no git directory there;
// made empty for the mount when there is none, and removed by Close.
func TestBinds_shut_modules(t *testing.T) {
	r := newRepo(t)
	gd := filepath.Join(r.top, ".git")
	g := r.take(t, r.top)
	binds, err := g.Binds(r.top)
	if err != nil {
		t.Fatal(err)
	}
	modules, sub := filepath.Join(gd, "modules"), filepath.Join(gd, "modules", "sub")
	i, j := slices.Index(binds, gitguard.Bind{Path: modules, ReadOnly: true}), slices.Index(binds, gitguard.Bind{Path: sub})
	if i < 0 || j < i {
		t.Errorf("binds %v lack %s read-only, then %s writable", binds, modules, sub)
	}

	// A repository that declares a submodule it never initialised, as actions/checkout leaves it.
	r.git(t, r.top, "submodule", "deinit", "-q", "--all")
	if err := os.RemoveAll(modules); err != nil {
		t.Fatal(err)
	}
	g = r.take(t, r.top)
	if binds, err = g.Binds(r.top); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(binds, gitguard.Bind{Path: modules, ReadOnly: true}) {
		t.Errorf("binds %v lack the mount target %s read-only", binds, modules)
	}
	if changes, err := g.Close(t.Context()); err != nil || len(changes) != 0 {
		t.Errorf("Close = %v, %v; want nothing to put back", changes, err)
	}
	if _, err := os.Lstat(modules); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", modules, err)
	}
}

// TestClose_quarantine_planted_file_or_link: the agent can write the git directory, and so put a
// file or a link where the quarantine goes. Close must still move the nested repository out of
// the working tree, never into the directory a link names, and say what it found there.
func TestClose_quarantine_planted_file_or_link(t *testing.T) {
	for _, kind := range []string{"file", "link"} {
		t.Run(kind, func(t *testing.T) {
			r := newRepo(t)
			g := r.take(t, r.top)
			outside := t.TempDir()
			q := filepath.Join(r.top, ".git", "sandcastle-quarantine")
			if kind == "file" {
				write(t, q, "planted\n")
			} else if err := os.Symlink(outside, q); err != nil {
				t.Fatal(err)
			}
			nested := filepath.Join(r.top, "nested")
			r.git(t, r.top, "init", "-q", nested)

			changes, got := closeGuard(t, g)
			want := []string{".git/sandcastle-quarantine replaced", "nested/.git moved"}
			if !slices.Equal(got, want) {
				t.Errorf("changes = %q, want %q", got, want)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("the host moved into the link's target: %v", entries)
			}
			if _, err := os.Lstat(filepath.Join(nested, ".git")); !os.IsNotExist(err) {
				t.Errorf("the nested repository is still in the working tree (%v)", err)
			}
			for _, c := range changes {
				if to, ok := strings.CutPrefix(c.What, "moved to "); ok {
					if _, err := os.Stat(filepath.Join(r.top, to, "HEAD")); err != nil {
						t.Errorf("the quarantined repository is not at %s: %v", to, err)
					}
				}
			}
		})
	}
}
