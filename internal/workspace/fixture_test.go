package workspace_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// fixture is a host repository on main with one commit, cloned from a bare origin. Its git
// environment reads no user or system config and carries no identity, so the workspace's own
// identity fallback is what a merge commit gets.
type fixture struct {
	t      *testing.T
	env    []string
	dir    string // host checkout (symlinks resolved, as git reports it)
	origin string // bare repository
	logs   *testkit.SyncBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	f := &fixture{
		t: t,
		env: []string{
			"HOME=" + home,
			"XDG_CONFIG_HOME=" + home,
			"PATH=" + os.Getenv("PATH"),
			"GIT_CONFIG_NOSYSTEM=1",
		},
		logs: &testkit.SyncBuffer{},
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.origin = filepath.Join(base, "origin.git")
	f.dir = filepath.Join(base, "repo")
	f.git(base, "init", "-q", "--bare", "-b", "main", f.origin)
	f.git(base, "init", "-q", "-b", "main", f.dir)
	f.commit(f.dir, "README", "hello\n", "initial")
	f.git(f.dir, "remote", "add", "origin", f.origin)
	f.git(f.dir, "push", "-q", "origin", "main")
	return f
}

// git runs git in dir with a test identity given by -c, never written anywhere.
func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	g := git.Repo{Dir: dir, Env: f.env}.WithConfig("user.name=Test", "user.email=test@example.com")
	out, err := g.Run(f.t.Context(), args...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// try runs git in dir and reports whether it succeeded.
func (f *fixture) try(dir string, args ...string) bool {
	_, err := git.Repo{Dir: dir, Env: f.env}.Run(f.t.Context(), args...)
	return err == nil
}

// commit writes file in dir and commits it; it returns the new commit.
func (f *fixture) commit(dir, file, content, msg string) string {
	f.t.Helper()
	write(f.t, filepath.Join(dir, file), content)
	f.git(dir, "add", "--", file)
	f.git(dir, "commit", "-q", "-m", msg)
	return f.git(dir, "rev-parse", "HEAD")
}

// clone makes another checkout of origin, standing for someone else pushing.
func (f *fixture) clone() string {
	f.t.Helper()
	dir := filepath.Join(f.t.TempDir(), "other")
	f.git(f.t.TempDir(), "clone", "-q", f.origin, dir)
	return dir
}

func (f *fixture) opts(s inputs.BranchStrategy) workspace.Options {
	return workspace.Options{
		RepoDir:  f.dir,
		Strategy: s,
		Log:      slog.New(slog.NewTextHandler(f.logs, nil)),
		Now:      func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.Local) },
	}
}

func (f *fixture) prepare(o workspace.Options) *workspace.Workspace {
	f.t.Helper()
	w, err := workspace.Prepare(f.t.Context(), f.env, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return w
}

// finish finishes w as a successful run would, failing the test on error.
func (f *fixture) finish(w *workspace.Workspace) workspace.Outcome {
	f.t.Helper()
	out, err := w.Finish(f.t.Context(), true)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) branchExists(name string) bool {
	return f.try(f.dir, "show-ref", "--verify", "--quiet", "refs/heads/"+name)
}

// branches lists the host repository's local branches.
func (f *fixture) branches() []string {
	return strings.Fields(f.git(f.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
}

// worktrees lists the paths of the host repository's worktrees, main first.
func (f *fixture) worktrees() []string {
	list, err := git.Repo{Dir: f.dir, Env: f.env}.WorktreeList(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	var paths []string
	for _, w := range list {
		paths = append(paths, w.Path)
	}
	return paths
}

// managedDirs lists the entries of .sandcastle/worktrees.
func (f *fixture) managedDirs() []string {
	entries, _ := os.ReadDir(filepath.Join(f.dir, ".sandcastle", "worktrees"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func (f *fixture) status(dir string) string {
	return f.git(dir, "status", "--porcelain", "--untracked-files=all")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
