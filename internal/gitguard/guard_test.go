package gitguard_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
)

// repo is a repository on main with one commit, a worktree on branch wt under
// .sandcastle/worktrees, and a submodule sub.
type repo struct {
	top, wt string
	env     []string
}

func newRepo(t testing.TB) *repo {
	t.Helper()
	home := t.TempDir()
	r := &repo{top: t.TempDir(), env: []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	}}
	sub := t.TempDir()
	r.git(t, sub, "init", "-q", "-b", "main")
	r.git(t, sub, "commit", "-q", "--allow-empty", "-m", "sub")
	r.git(t, r.top, "init", "-q", "-b", "main")
	write(t, filepath.Join(r.top, "f"), "one\n")
	r.git(t, r.top, "add", "f")
	r.git(t, r.top, "commit", "-q", "-m", "first")
	r.git(t, r.top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	r.git(t, r.top, "commit", "-q", "-m", "sub")
	r.wt = filepath.Join(r.top, ".sandcastle", "worktrees", "wt")
	r.git(t, r.top, "worktree", "add", "-q", "-b", "wt", r.wt)
	return r
}

func (r *repo) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) take(t *testing.T, dir string) *gitguard.Guard {
	t.Helper()
	g, err := gitguard.Take(t.Context(), git.New(dir, r.env))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// tree lists every path under dir with its mode and content, for comparing states.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := fi.Mode().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is left (%q)", what, k, got[k])
		}
	}
}

// TestCheck_puts_back_every_kept_path plants in each kept place what an agent might, and Check
// puts everything back as it was, naming each change; the objects, refs and index the agent
// must be able to write are left alone.
func TestCheck_puts_back_every_kept_path(t *testing.T) {
	r := newRepo(t)
	gd := filepath.Join(r.top, ".git")
	g := r.take(t, r.wt)
	before := map[string]map[string]string{
		"hooks":  tree(t, filepath.Join(gd, "hooks")),
		"info":   tree(t, filepath.Join(gd, "info")),
		"module": tree(t, filepath.Join(gd, "modules", "sub", "hooks")),
	}
	files := []string{
		filepath.Join(gd, "config"),
		filepath.Join(gd, "worktrees", "wt", "commondir"),
		filepath.Join(gd, "worktrees", "wt", "gitdir"),
		filepath.Join(r.wt, ".git"),
		filepath.Join(r.top, "sub", ".git"),
		filepath.Join(gd, "modules", "sub", "config"),
	}
	contents := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		contents[f] = string(b)
	}

	head := r.git(t, r.top, "rev-parse", "HEAD")
	outside := t.TempDir()
	write(t, filepath.Join(outside, "keep"), "not the repository's\n")
	write(t, filepath.Join(gd, "config"), "[core]\n\tfsmonitor = planted\n")
	write(t, filepath.Join(gd, "hooks", "post-checkout"), "#!/bin/sh\nplanted\n")
	if err := os.Chmod(filepath.Join(gd, "hooks", "pre-commit.sample"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(gd, "hooks", "update.sample")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(gd, "info", "attributes"), "* filter=planted\n")
	write(t, filepath.Join(gd, "commondir"), "/planted\n")
	write(t, filepath.Join(gd, "config.worktree"), "[core]\n\tfsmonitor = planted\n")
	write(t, filepath.Join(gd, "worktrees", "wt", "commondir"), "/planted\n")
	write(t, filepath.Join(gd, "worktrees", "wt", "config.worktree"), "[core]\n\tfsmonitor = planted\n")
	write(t, filepath.Join(r.wt, ".git"), "gitdir: /planted\n")
	write(t, filepath.Join(r.top, "sub", ".git"), "gitdir: /planted\n")
	write(t, filepath.Join(gd, "modules", "sub", "config"), "[core]\n\tfsmonitor = planted\n")
	write(t, filepath.Join(gd, "objects", "info", "alternates"), outside+"\n")
	// A link to a directory outside in place of the submodule's hooks: never written through.
	if err := os.RemoveAll(filepath.Join(gd, "modules", "sub", "hooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(gd, "modules", "sub", "hooks")); err != nil {
		t.Fatal(err)
	}
	// What the agent may write stays as it wrote it.
	write(t, filepath.Join(gd, "worktrees", "wt", "HEAD"), "ref: refs/heads/other\n")
	write(t, filepath.Join(gd, "refs", "heads", "agent"), head+"\n")

	changes, err := g.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		".git/commondir (added)",
		".git/config (changed)",
		".git/config.worktree (added)",
		".git/hooks/post-checkout (added)",
		".git/hooks/pre-commit.sample (changed)",
		".git/hooks/update.sample (removed)",
		".git/info/attributes (added)",
		".git/modules/sub/config (changed)",
		".git/modules/sub/hooks (changed)",
		".git/objects/info/alternates (added)",
		".git/worktrees/wt/commondir (changed)",
		".git/worktrees/wt/config.worktree (added)",
		".sandcastle/worktrees/wt/.git (changed)",
		"sub/.git (changed)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for f, content := range contents {
		if b, err := os.ReadFile(f); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", f, b, err, content)
		}
	}
	diffTrees(t, "hooks", tree(t, filepath.Join(gd, "hooks")), before["hooks"])
	diffTrees(t, "info", tree(t, filepath.Join(gd, "info")), before["info"])
	diffTrees(t, "submodule hooks", tree(t, filepath.Join(gd, "modules", "sub", "hooks")), before["module"])
	for _, p := range []string{"commondir", "config.worktree", filepath.Join("worktrees", "wt", "config.worktree"), filepath.Join("objects", "info", "alternates")} {
		if _, err := os.Lstat(filepath.Join(gd, p)); !os.IsNotExist(err) {
			t.Errorf(".git/%s is still there (%v)", p, err)
		}
	}
	diffTrees(t, "outside", tree(t, outside), map[string]string{".": tree(t, outside)["."], "keep": "-rwxr-xr-x not the repository's\n"})
	if got := r.git(t, r.wt, "symbolic-ref", "HEAD"); got != "refs/heads/other" {
		t.Errorf("the worktree's HEAD = %q: Check touched what the agent may write", got)
	}
	if again, err := g.Check(); err != nil || len(again) != 0 {
		t.Errorf("a second Check = %v, %v; want nothing to put back", again, err)
	}
}

// TestCheck_never_writes_through_a_planted_link: a directory on the way to a kept file,
// replaced by a link to a directory outside, is made again; nothing is written outside.
func TestCheck_never_writes_through_a_planted_link(t *testing.T) {
	r := newRepo(t)
	gd := filepath.Join(r.top, ".git")
	g := r.take(t, r.wt)
	commondir, err := os.ReadFile(filepath.Join(gd, "worktrees", "wt", "commondir"))
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	moved := filepath.Join(gd, "worktrees-moved")
	if err := os.Rename(filepath.Join(gd, "worktrees"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(gd, "worktrees")); err != nil {
		t.Fatal(err)
	}
	changes, err := g.Check()
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 || changes[0].Path != ".git/worktrees" {
		t.Errorf("changes = %v, want .git/worktrees first", changes)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("Check wrote through the link into %s: %v", outside, entries)
	}
	if fi, err := os.Lstat(filepath.Join(gd, "worktrees")); err != nil || !fi.IsDir() {
		t.Fatalf(".git/worktrees is %v, %v; want a directory again", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(gd, "worktrees", "wt", "commondir")); err != nil || string(b) != string(commondir) {
		t.Errorf("commondir = %q, %v; want %q", b, err, commondir)
	}
}

// TestBinds_mounts_kept_paths_and_makes_missing_targets: a repository without hooks gets an
// empty hooks directory and empty config.worktree files to mount over, which Close removes;
// only paths under the visible directories are mounted.
func TestBinds_mounts_kept_paths_and_makes_missing_targets(t *testing.T) {
	r := newRepo(t)
	gd := filepath.Join(r.top, ".git")
	if err := os.RemoveAll(filepath.Join(gd, "hooks")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, gd)
	g := r.take(t, r.wt)
	if got := g.CommonDir(); got != gd {
		t.Errorf("CommonDir = %q, want %q", got, gd)
	}
	binds, err := g.Binds(r.wt, gd)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range binds {
		rel, _ := filepath.Rel(r.top, b.Path)
		mode := "rw"
		if b.ReadOnly {
			mode = "ro"
		}
		got = append(got, rel+" "+mode)
	}
	want := []string{
		".git/config ro",
		".git/hooks ro",
		".git/info ro",
		".git/worktrees ro",
		".git/worktrees/wt rw",
		".git/worktrees/wt/commondir ro",
		".git/worktrees/wt/gitdir ro",
		".sandcastle/worktrees/wt/.git ro",
		".git/modules ro",
		".git/modules/sub rw",
		".git/modules/sub/config ro",
		".git/modules/sub/hooks ro",
		".git/modules/sub/info ro",
	}
	if !slices.Equal(got, want) {
		t.Errorf("binds =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Lstat(filepath.Join(gd, "hooks")); err != nil {
		t.Errorf("no mount target .git/hooks: %v", err)
	}
	for _, p := range []string{"config.worktree", "worktrees/wt/config.worktree"} {
		if _, err := os.Lstat(filepath.Join(gd, p)); !os.IsNotExist(err) {
			t.Errorf(".git/%s was made, though git reads none without extensions.worktreeConfig (%v)", p, err)
		}
	}
	if changes, err := g.Check(); err != nil || len(changes) != 0 {
		t.Errorf("Check with the mount targets = %v, %v; want nothing to put back", changes, err)
	}
	if changes, err := g.Close(t.Context()); err != nil || len(changes) != 0 {
		t.Errorf("Close = %v, %v; want nothing to put back", changes, err)
	}
	diffTrees(t, ".git after Close", tree(t, gd), before)
	if changes, err := g.Check(); err != nil || len(changes) != 0 {
		t.Errorf("Check after Close = %v, %v; want the repository as before Binds", changes, err)
	}
}

// TestBinds_shut_worktrees: .git/worktrees is mounted read-only, so the agent cannot add a
// directory there; made empty for the mount when there is none, it is removed by Close unless
// another run's worktree is in it by then.
func TestBinds_shut_worktrees(t *testing.T) {
	for _, other := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "another_run"}[other], func(t *testing.T) {
			r := newRepo(t)
			r.git(t, r.top, "worktree", "remove", r.wt)
			gd := filepath.Join(r.top, ".git")
			g := r.take(t, r.top)
			binds, err := g.Binds(r.top)
			if err != nil {
				t.Fatal(err)
			}
			worktrees := filepath.Join(gd, "worktrees")
			if !slices.Contains(binds, gitguard.Bind{Path: worktrees, ReadOnly: true}) {
				t.Errorf("binds %v lack %s read-only", binds, worktrees)
			}
			if entries, err := os.ReadDir(worktrees); err != nil || len(entries) != 0 {
				t.Errorf("mount target %s = %v, %v; want an empty directory", worktrees, entries, err)
			}
			if other {
				r.git(t, r.top, "worktree", "add", "-q", "-b", "other", filepath.Join(r.top, ".sandcastle", "worktrees", "other"))
			}
			if changes, err := g.Close(t.Context()); err != nil || len(changes) != 0 {
				t.Errorf("Close = %v, %v; want nothing to put back", changes, err)
			}
			_, err = os.Stat(filepath.Join(worktrees, "other", "gitdir"))
			if other && err != nil {
				t.Errorf("the other run's worktree lost its git directory: %v", err)
			}
			if _, err := os.Lstat(worktrees); !other && !os.IsNotExist(err) {
				t.Errorf("%s is still there (%v)", worktrees, err)
			}
		})
	}
}

// TestBinds_worktree_config_targets: with extensions.worktreeConfig, git reads config.worktree,
// so a missing one gets an empty file to mount over, which Close removes.
func TestBinds_worktree_config_targets(t *testing.T) {
	r := newRepo(t)
	gd := filepath.Join(r.top, ".git")
	r.git(t, r.top, "config", "extensions.worktreeConfig", "true")
	before := tree(t, gd)
	g := r.take(t, r.wt)
	binds, err := g.Binds(r.wt, gd)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"config.worktree", "worktrees/wt/config.worktree"} {
		path := filepath.Join(gd, p)
		if !slices.Contains(binds, gitguard.Bind{Path: path, ReadOnly: true}) {
			t.Errorf("binds %v lack %s read-only", binds, path)
		}
		if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
			t.Errorf("mount target %s = %q, %v; want an empty file", p, b, err)
		}
	}
	if changes, err := g.Close(t.Context()); err != nil || len(changes) != 0 {
		t.Errorf("Close = %v, %v; want nothing to put back", changes, err)
	}
	diffTrees(t, ".git after Close", tree(t, gd), before)
}

// TestCheck_lets_a_removed_worktree_go: a worktree that git worktree remove took away during
// the run (another run's, finishing on the host) is not made again.
func TestCheck_lets_a_removed_worktree_go(t *testing.T) {
	r := newRepo(t)
	g := r.take(t, r.top)
	r.git(t, r.top, "worktree", "remove", r.wt)
	if changes, err := g.Check(); err != nil || len(changes) != 0 {
		t.Errorf("Check = %v, %v; want nothing put back", changes, err)
	}
	for _, p := range []string{filepath.Join(r.top, ".git", "worktrees", "wt"), r.wt} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is back (%v)", p, err)
		}
	}
}

// TestBinds_head_sees_every_worktree: with the main working tree visible, as in head mode,
// every worktree's .git file is mounted too, the submodule's included.
func TestBinds_head_sees_every_worktree(t *testing.T) {
	r := newRepo(t)
	g := r.take(t, r.top)
	binds, err := g.Binds(r.top)
	if err != nil {
		t.Fatal(err)
	}
	var ro []string
	for _, b := range binds {
		if b.ReadOnly {
			rel, _ := filepath.Rel(r.top, b.Path)
			ro = append(ro, rel)
		}
	}
	for _, want := range []string{".sandcastle/worktrees/wt/.git", "sub/.git", ".git/config"} {
		if !slices.Contains(ro, want) {
			t.Errorf("read-only binds %q lack %s", ro, want)
		}
	}
	g.Close(t.Context())
}

// BenchmarkCheck measures the check after every iteration, on a repository with a worktree, a
// submodule and git's sample hooks, when the agent changed nothing.
func BenchmarkCheck(b *testing.B) {
	r := newRepo(b)
	g, err := gitguard.Take(b.Context(), git.New(r.wt, r.env))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if changes, err := g.Check(); err != nil || len(changes) > 0 {
			b.Fatal(changes, err)
		}
	}
}
