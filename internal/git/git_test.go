package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// testEnv is a base environment that reads neither the user's nor the system's git config.
func testEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// newRepo makes a repository on branch main with one commit of file "a".
func newRepo(t *testing.T) git.Repo {
	t.Helper()
	r := git.Repo{Dir: t.TempDir(), Env: testEnv(t)}
	mustRun(t, r, "init", "-q", "-b", "main")
	commit(t, r, "a", "one\n", "first")
	return r
}

func mustRun(t *testing.T, r git.Repo, args ...string) string {
	t.Helper()
	out, err := r.Run(t.Context(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// commit writes file and commits it with a fixed identity, without touching any config file.
func commit(t *testing.T, r git.Repo, file, content, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.Dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, r, "add", "--", file)
	mustRun(t, r.WithConfig("user.name=Test", "user.email=test@example.com"), "commit", "-q", "-m", msg)
}

func TestRun_trims_trailing_newline(t *testing.T) {
	r := newRepo(t)
	out := mustRun(t, r, "rev-parse", "--abbrev-ref", "HEAD")
	if got, want := out, "main"; got != want {
		t.Errorf("Run = %q, want %q", got, want)
	}
}

func TestRun_error_names_command_exit_and_stderr(t *testing.T) {
	r := newRepo(t)
	_, err := r.Run(t.Context(), "merge", "no-such-branch")
	var ge *git.Error
	if !errors.As(err, &ge) {
		t.Fatalf("err = %v (%T), want *git.Error", err, err)
	}
	if got, want := ge.ExitCode, 1; got != want {
		t.Errorf("ExitCode = %d, want %d", got, want)
	}
	if got, want := git.ExitCode(err), 1; got != want {
		t.Errorf("git.ExitCode = %d, want %d", got, want)
	}
	if got, want := err.Error(), "git merge no-such-branch: exit 1: merge: no-such-branch - not something we can merge"; got != want {
		t.Errorf("Error() = %q\nwant      %q", got, want)
	}
}

func TestRun_ignores_inherited_repository_variables(t *testing.T) {
	r := newRepo(t)
	other := newRepo(t)
	mustRun(t, other, "checkout", "-q", "-b", "elsewhere")
	r.Env = append(r.Env,
		"GIT_DIR="+filepath.Join(other.Dir, ".git"),
		"GIT_WORK_TREE="+other.Dir,
		"GIT_INDEX_FILE="+filepath.Join(other.Dir, ".git", "index"),
		"LC_ALL=de_DE.UTF-8")
	if got, want := mustRun(t, r, "symbolic-ref", "--short", "HEAD"), "main"; got != want {
		t.Errorf("branch = %q, want %q (command ran in the other repository)", got, want)
	}
}

func TestRun_config_reaches_git_without_files(t *testing.T) {
	r := newRepo(t)
	// An inherited GIT_CONFIG_COUNT entry must survive next to ours.
	r.Env = append(r.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=sandcastle.inherited", "GIT_CONFIG_VALUE_0=yes")
	r = r.WithConfig("sandcastle.ours=a=b")
	if got, want := mustRun(t, r, "config", "sandcastle.inherited"), "yes"; got != want {
		t.Errorf("inherited = %q, want %q", got, want)
	}
	if got, want := mustRun(t, r, "config", "sandcastle.ours"), "a=b"; got != want {
		t.Errorf("ours = %q, want %q", got, want)
	}
	local, err := os.ReadFile(filepath.Join(r.Dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(local), "sandcastle") {
		t.Errorf(".git/config was written:\n%s", local)
	}
}

func TestConfigEnv(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		config []string
		want   []string
	}{
		{"none", []string{"HOME=/h"}, nil, []string{"HOME=/h", "GIT_CONFIG_COUNT=0"}},
		{"pairs_keep_their_equals", []string{"HOME=/h"}, []string{"safe.directory=*", "a.b=c=d"},
			[]string{"HOME=/h", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*", "GIT_CONFIG_KEY_1=a.b", "GIT_CONFIG_VALUE_1=c=d", "GIT_CONFIG_COUNT=2"}},
		{"numbered_after_the_inherited", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=Me"}, []string{"safe.directory=*"},
			[]string{"GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=Me", "GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=*", "GIT_CONFIG_COUNT=2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := git.ConfigEnv(tt.env, tt.config...); !slices.Equal(got, tt.want) {
				t.Errorf("ConfigEnv = %q\nwant         %q", got, tt.want)
			}
		})
	}
}

func TestRun_cancelled_context(t *testing.T) {
	r := newRepo(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := r.Run(ctx, "status")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRun_kills_process_group proves that a process git started (here through an alias) dies
// with it when the context ends.
func TestRun_kills_process_group(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	r := newRepo(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	r = r.WithConfig("alias.wait=!echo $$ > " + pidFile + "; exec sleep 300")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, "wait")
		done <- err
	}()
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(pidFile)
		if s := strings.TrimSpace(string(b)); s != "" {
			pid, _ = strconv.Atoi(s)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The kill is asynchronous: give it a generous bound, only so a survivor fails the test
	// instead of hanging it.
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d started by git survived the cancelled context", pid)
		}
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func TestNew_defaults_to_process_environment(t *testing.T) {
	t.Setenv("SANDCASTLE_GIT_TEST", "1")
	r := git.New(t.TempDir(), nil)
	found := false
	for _, kv := range r.Env {
		found = found || kv == "SANDCASTLE_GIT_TEST=1"
	}
	if !found {
		t.Error("New(dir, nil) did not take the process environment")
	}
	if got := git.New("d", []string{"A=1"}).Env; len(got) != 1 {
		t.Errorf("New with env = %v, want exactly the given env", got)
	}
}

func TestError_falls_back_to_stdout(t *testing.T) {
	e := &git.Error{Args: []string{"merge", "x"}, ExitCode: 1, Stdout: "CONFLICT (content): Merge conflict in a\nAutomatic merge failed\n"}
	if got, want := e.Error(), "git merge x: exit 1: CONFLICT (content): Merge conflict in a; Automatic merge failed"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestRun_deadline(t *testing.T) {
	r := newRepo(t)
	ctx, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel()
	if _, err := r.Run(ctx, "status"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
}
