package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// env is a fake process environment for Main.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// list is the environment as os.Environ gives it.
func (e env) list() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// hermeticEnv is a process environment that sees no git config of the machine's user. Its
// PATH starts with a claude that must never run: tests of runs that are refused use it.
func hermeticEnv(t *testing.T) env {
	t.Helper()
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	writeFile(t, filepath.Join(bin, "claude"), "#!/bin/sh\necho 'this claude must not run' >&2\nexit 99\n")
	if err := os.Chmod(filepath.Join(bin, "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	return env{
		"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME": home,
		"LANG": "C",
	}
}

// invocation is one run of Main.
type invocation struct {
	code   int
	stdout string
	stderr string
}

func (i invocation) output() string { return i.stdout + i.stderr }

func runMain(t *testing.T, e env, dir string, args ...string) invocation {
	t.Helper()
	return runMainContext(t.Context(), t, e, dir, args...)
}

func runMainContext(ctx context.Context, t *testing.T, e env, dir string, args ...string) invocation {
	t.Helper()
	var stdout, stderr testkit.SyncBuffer
	code := Main(ctx, System{
		Args:    args,
		Getenv:  e.get,
		Environ: e.list,
		Getwd:   func() (string, error) { return dir, nil },
		Stdout:  &stdout,
		Stderr:  &stderr,
	})
	return invocation{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// gitRun runs git in dir with e's environment and an identity, failing the test on error.
func gitRun(t *testing.T, e env, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + e["PATH"], "HOME=" + e["HOME"], "LC_ALL=C",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		// Some tests give the checkout to another user, as on a runner.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository on main with one commit and a bare origin it tracks.
func newRepo(t *testing.T, e env) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "repo")
	origin := filepath.Join(root, "origin.git")
	gitRun(t, e, root, "init", "-q", "--bare", "-b", "main", origin)
	gitRun(t, e, root, "init", "-q", "-b", "main", dir)
	writeFile(t, filepath.Join(dir, "README.md"), "# test repo\n")
	gitRun(t, e, dir, "add", ".")
	gitRun(t, e, dir, "commit", "-qm", "initial")
	gitRun(t, e, dir, "remote", "add", "origin", origin)
	gitRun(t, e, dir, "push", "-q", "origin", "main")
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoState is what a run must leave as it found when it refuses to start.
type repoState struct {
	branches   string
	worktrees  string
	status     string
	head       string // .git/HEAD: a branch, unborn or not, or a commit
	exclude    string // .git/info/exclude
	sandcastle string // everything under .sandcastle, directories too (git status shows no empty ones)
}

func stateOf(t *testing.T, e env, dir string) repoState {
	t.Helper()
	exclude, err := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	head, err := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	var under []string
	filepath.WalkDir(filepath.Join(dir, ".sandcastle"), func(path string, d os.DirEntry, err error) error {
		if err == nil {
			under = append(under, path)
		}
		return nil
	})
	return repoState{
		branches:   gitRun(t, e, dir, "branch", "--list", "--format=%(refname:short) %(objectname)"),
		worktrees:  gitRun(t, e, dir, "worktree", "list", "--porcelain"),
		status:     gitRun(t, e, dir, "status", "--porcelain", "--ignored"),
		head:       string(head),
		exclude:    string(exclude),
		sandcastle: strings.Join(under, "\n"),
	}
}

// managedWorktrees lists what is left under .sandcastle/worktrees.
func managedWorktrees(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".sandcastle", "worktrees"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}
