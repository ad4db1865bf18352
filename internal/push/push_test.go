package push_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/push"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

const (
	token         = "ghs_RightToken0123456789abcdef"
	wrongToken    = "ghs_WrongToken0123456789abcdef"
	readOnlyToken = "ghs_ReadOnlyToken0123456789abc"
)

// fixture is a local repository whose origin is a bare repository served by a testkit.GitServer. main
// (one commit) is on both; the local branch agent has one more commit. When the test ends it
// checks that no token and, unless persistedHeader, no extraheader reached .git/config.
type fixture struct {
	t      testing.TB
	env    []string
	home   string // HOME of every git command, with its global config
	srv    *testkit.GitServer
	url    string // origin's URL
	remote string // origin's bare repository
	dir    string // the local repository
	main   string // main's commit
	agent  string // the agent branch's commit

	persistedHeader bool
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	srv := testkit.NewGitServer(t, token, readOnlyToken)
	home := t.TempDir()
	f := &fixture{
		t:    t,
		env:  []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"},
		home: home,
		srv:  srv,
		dir:  t.TempDir(),
	}
	f.url, f.remote = srv.NewRepo(t, "repo")
	f.git(f.dir, "init", "-q", "-b", "main")
	f.main = f.commit(f.dir, "README", "hello\n", "initial")
	f.git(f.dir, "push", "-q", f.remote, "main") // seeded by path: no token involved
	f.git(f.dir, "remote", "add", "origin", f.url)
	f.git(f.dir, "switch", "-q", "-c", "agent")
	f.agent = f.commit(f.dir, "work", "agent's work\n", "agent work")
	t.Cleanup(f.checkConfig)
	return f
}

// git runs git in dir with a test identity given by -c, never written anywhere.
func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := git.New(dir, f.env).WithConfig("user.name=Test", "user.email=test@example.com").Run(f.t.Context(), args...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) commit(dir, file, content, msg string) string {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.git(dir, "add", "--", file)
	f.git(dir, "commit", "-q", "-m", msg)
	return f.git(dir, "rev-parse", "HEAD")
}

// remoteBranch returns the commit of a branch in the bare repository, "" when it does not exist.
func (f *fixture) remoteBranch(name string) string {
	f.t.Helper()
	out, err := git.New(f.remote, f.env).Run(f.t.Context(), "for-each-ref", "--format=%(objectname)", "refs/heads/"+name)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// setRemoteBranch makes the bare repository's branch point at a new commit on top of base, as
// someone else's push would, and returns it.
func (f *fixture) setRemoteBranch(name, base string) string {
	f.t.Helper()
	other := f.t.TempDir()
	f.git(other, "init", "-q")
	f.git(other, "fetch", "-q", f.remote, base)
	f.git(other, "switch", "-q", "--detach", base)
	sha := f.commit(other, "other", "someone else\n", "someone else's work")
	f.git(other, "push", "-q", "--force", f.remote, "HEAD:refs/heads/"+name)
	return sha
}

// options returns push options for the agent branch with the right token.
func (f *fixture) options(mode inputs.PushMode) push.Options {
	return push.Options{
		Dir:            f.dir,
		Env:            f.env,
		Branch:         "agent",
		Mode:           mode,
		Token:          token,
		ServerURL:      f.srv.URL,
		URL:            f.url,
		RecoveryBranch: "sandcastle/recovery-1",
	}
}

// checkLocal fails the test when the local agent branch is not where the fixture left it.
func (f *fixture) checkLocal() {
	f.t.Helper()
	if got := f.git(f.dir, "rev-parse", "refs/heads/agent"); got != f.agent {
		f.t.Errorf("local agent = %s, want %s (untouched)", got, f.agent)
	}
}

func (f *fixture) checkConfig() {
	config, err := os.ReadFile(filepath.Join(f.dir, ".git", "config"))
	if err != nil {
		f.t.Fatal(err)
	}
	for _, tok := range []string{token, wrongToken, readOnlyToken} {
		if strings.Contains(string(config), tok) || strings.Contains(string(config), basic(tok)) {
			f.t.Errorf(".git/config holds a token:\n%s", config)
		}
	}
	if !f.persistedHeader && strings.Contains(strings.ToLower(string(config)), "extraheader") {
		f.t.Errorf(".git/config holds an extraheader:\n%s", config)
	}
}

func basic(tok string) string {
	return base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
}

func checkNoToken(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, tok := range []string{token, wrongToken, readOnlyToken} {
		if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), basic(tok)) {
			t.Errorf("error holds a token: %v", err)
		}
	}
}

func TestPush_new_branch(t *testing.T) {
	t.Parallel()
	for _, mode := range []inputs.PushMode{inputs.PushAuto, inputs.PushForce, inputs.PushLease} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			// For lease, Lease "" means the branch must not exist, and it does not.
			res, err := push.Push(t.Context(), f.options(mode))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res, (push.Result{Pushed: true, SHA: f.agent}); got != want {
				t.Errorf("Result = %+v, want %+v", got, want)
			}
			if got := f.remoteBranch("agent"); got != f.agent {
				t.Errorf("remote agent = %q, want %s", got, f.agent)
			}
			if got := f.remoteBranch("sandcastle/recovery-1"); got != "" {
				t.Errorf("recovery branch was pushed: %s", got)
			}
		})
	}
}

func TestPush_fast_forward_and_lease_held(t *testing.T) {
	t.Parallel()
	for _, mode := range []inputs.PushMode{inputs.PushAuto, inputs.PushLease} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.git(f.dir, "push", "-q", f.remote, f.main+":refs/heads/agent") // the run started from main
			o := f.options(mode)
			o.Lease = f.main
			res, err := push.Push(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Pushed || res.Recovery != "" {
				t.Errorf("Result = %+v, want pushed without recovery", res)
			}
			if got := f.remoteBranch("agent"); got != f.agent {
				t.Errorf("remote agent = %q, want %s", got, f.agent)
			}
		})
	}
}

func TestPush_from_worktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	wt := filepath.Join(t.TempDir(), "wt")
	f.git(f.dir, "switch", "-q", "main")
	f.git(f.dir, "worktree", "add", "-q", wt, "agent")
	o := f.options(inputs.PushLease)
	o.Dir = wt
	if _, err := push.Push(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteBranch("agent"); got != f.agent {
		t.Errorf("remote agent = %q, want %s", got, f.agent)
	}
}

// newShallowFixture is the fixture as actions/checkout leaves a runner by default: main has
// history on the remote, the checkout is a depth-1 clone of it, and the local branch agent has
// one commit on top of the clone's only commit (its shallow boundary, f.main).
func newShallowFixture(t testing.TB) *fixture {
	t.Helper()
	f := newFixture(t)
	f.git(f.dir, "switch", "-q", "main")
	f.commit(f.dir, "history", "1\n", "more history")
	f.main = f.commit(f.dir, "history", "2\n", "yet more history")
	f.git(f.dir, "push", "-q", f.remote, "main")
	f.dir = f.shallowClone()
	f.git(f.dir, "switch", "-q", "-c", "agent")
	f.agent = f.commit(f.dir, "work", "agent's work\n", "agent work")
	return f
}

// shallowClone makes a depth-1 clone of the remote's main whose origin is the server's URL.
func (f *fixture) shallowClone() string {
	f.t.Helper()
	dir := filepath.Join(f.t.TempDir(), "checkout")
	f.git(f.home, "clone", "-q", "--depth", "1", "--branch", "main", "file://"+f.remote, dir)
	f.git(dir, "remote", "set-url", "origin", f.url)
	if _, err := os.Stat(filepath.Join(dir, ".git", "shallow")); err != nil {
		f.t.Fatalf("the clone is not shallow: %v", err)
	}
	return dir
}

// TestPush_shallow_checkout: a depth-1 checkout pushes the agent's branch although main moved
// on the remote between the checkout and the push, and although the remote branch's tip is the
// checkout's shallow boundary, whose parents the checkout lacks.
func TestPush_shallow_checkout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		mode  inputs.PushMode
		setup func(f *fixture) (lease string)
	}{
		{"first_push_auto", inputs.PushAuto, func(f *fixture) string { return "" }},
		{"first_push_lease", inputs.PushLease, func(f *fixture) string { return "" }},
		{"auto_onto_the_boundary", inputs.PushAuto, func(f *fixture) string {
			f.git(f.remote, "update-ref", "refs/heads/agent", f.main)
			return ""
		}},
		{"lease_onto_the_boundary", inputs.PushLease, func(f *fixture) string {
			f.git(f.remote, "update-ref", "refs/heads/agent", f.main)
			return f.main
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newShallowFixture(t)
			o := f.options(tt.mode)
			o.Lease = tt.setup(f)
			f.setRemoteBranch("main", f.main) // main moves on
			res, err := push.Push(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Pushed || f.remoteBranch("agent") != f.agent {
				t.Errorf("Result = %+v, remote agent = %q; want %s pushed", res, f.remoteBranch("agent"), f.agent)
			}
		})
	}
}

// TestFetch_shallow_checkout_continues_the_pushed_branch is a re-run: a new depth-1 checkout of
// a main that moved on fetches the branch an earlier run pushed, whose history reaches below
// the checkout's boundary, and pushes a commit on top of it as a fast-forward.
func TestFetch_shallow_checkout_continues_the_pushed_branch(t *testing.T) {
	t.Parallel()
	f := newShallowFixture(t)
	if _, err := push.Push(t.Context(), f.options(inputs.PushAuto)); err != nil {
		t.Fatalf("first run's push: %v", err)
	}
	pushed := f.agent
	f.main = f.setRemoteBranch("main", f.main)
	f.dir = f.shallowClone() // the re-run's checkout

	found, err := push.Fetch(t.Context(), f.options(inputs.PushAuto))
	if err != nil || !found {
		t.Fatalf("Fetch = %v, %v; want the pushed branch found", found, err)
	}
	if got := f.git(f.dir, "rev-parse", "refs/remotes/origin/agent"); got != pushed {
		t.Fatalf("origin/agent = %s, want the pushed %s", got, pushed)
	}
	f.git(f.dir, "switch", "-q", "-c", "agent", "refs/remotes/origin/agent")
	f.agent = f.commit(f.dir, "more", "more\n", "more agent work")
	res, err := push.Push(t.Context(), f.options(inputs.PushAuto))
	if err != nil || !res.Pushed {
		t.Fatalf("Push = %+v, %v; want a fast-forward", res, err)
	}
	if got := f.remoteBranch("agent"); got != f.agent {
		t.Errorf("remote agent = %s, want %s", got, f.agent)
	}
}

func TestPush_authentication_failure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
	}{
		{"wrong_token", wrongToken},        // 401
		{"read_only_token", readOnlyToken}, // 403 on receive-pack
		{"no_token", ""},                   // 401, and git may not prompt
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			o := f.options(inputs.PushAuto)
			o.Token = tt.token
			res, err := push.Push(t.Context(), o)
			if !errors.Is(err, push.ErrAuthentication) {
				t.Fatalf("err = %v, want ErrAuthentication", err)
			}
			if want := "push to origin rejected: authentication failed; check github-token has contents: write"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q, want it to start with %q", err, want)
			}
			checkNoToken(t, err)
			if res.Pushed {
				t.Error("Result.Pushed = true")
			}
			f.checkLocal()
			if got := f.remoteBranch("agent"); got != "" {
				t.Errorf("remote agent = %s, want none", got)
			}
		})
	}
}

func TestPush_branch_moved(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		mode      inputs.PushMode
		leaseMain bool // the remote branch existed at main when the run started
	}{
		{"lease_remote_moved", inputs.PushLease, true},
		{"lease_remote_appeared", inputs.PushLease, false},
		{"auto_not_fast_forward", inputs.PushAuto, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			o := f.options(tt.mode)
			if tt.leaseMain {
				f.git(f.dir, "push", "-q", f.remote, f.main+":refs/heads/agent")
				o.Lease = f.main
			}
			theirs := f.setRemoteBranch("agent", f.main)

			res, err := push.Push(t.Context(), o)
			var moved *push.BranchMovedError
			if !errors.As(err, &moved) || !moved.BranchMoved() {
				t.Fatalf("err = %v (%T), want *BranchMovedError", err, err)
			}
			want := push.BranchMovedError{Remote: "origin", Branch: "agent", SHA: f.agent, RemoteSHA: theirs, Recovery: "sandcastle/recovery-1"}
			if *moved != want {
				t.Errorf("BranchMovedError = %+v, want %+v", *moved, want)
			}
			for _, s := range []string{"changed since the run started", "sandcastle/recovery-1", "not overwritten"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err = %q, want it to mention %q", err, s)
				}
			}
			if got, want := res, (push.Result{SHA: f.agent, Recovery: "sandcastle/recovery-1"}); got != want {
				t.Errorf("Result = %+v, want %+v", got, want)
			}
			if got := f.remoteBranch("agent"); got != theirs {
				t.Errorf("remote agent = %s, want %s (someone else's, untouched)", got, theirs)
			}
			if got := f.remoteBranch("sandcastle/recovery-1"); got != f.agent {
				t.Errorf("remote recovery branch = %q, want %s", got, f.agent)
			}
			f.checkLocal()
		})
	}
}

func TestPush_branch_moved_recovery_never_overwritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "push", "-q", f.remote, f.main+":refs/heads/agent")
	theirs := f.setRemoteBranch("agent", f.main)
	existing := f.setRemoteBranch("sandcastle/recovery-1", f.main)
	o := f.options(inputs.PushLease)
	o.Lease = f.main

	res, err := push.Push(t.Context(), o)
	var moved *push.BranchMovedError
	if !errors.As(err, &moved) {
		t.Fatalf("err = %v, want *BranchMovedError", err)
	}
	if moved.Recovery != "" || moved.RecoveryErr == nil || res.Recovery != "" {
		t.Errorf("BranchMovedError = %+v, Result = %+v; want no recovery and its error", moved, res)
	}
	if !strings.Contains(err.Error(), "they are on the local branch agent") {
		t.Errorf("err = %q, want it to say where the commits are", err)
	}
	if got := f.remoteBranch("sandcastle/recovery-1"); got != existing {
		t.Errorf("remote recovery branch = %s, want %s (untouched)", got, existing)
	}
	if got := f.remoteBranch("agent"); got != theirs {
		t.Errorf("remote agent = %s, want %s", got, theirs)
	}
	f.checkLocal()
}

func TestPush_branch_moved_without_recovery_branch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	theirs := f.setRemoteBranch("agent", f.main)
	o := f.options(inputs.PushLease)
	o.RecoveryBranch = ""
	_, err := push.Push(t.Context(), o)
	var moved *push.BranchMovedError
	if !errors.As(err, &moved) {
		t.Fatalf("err = %v, want *BranchMovedError", err)
	}
	if got, want := err.Error(), "push agent to origin: the remote branch changed since the run started (it is now at "+theirs[:12]+
		"), so it was not overwritten; the commits are on the local branch agent ("+f.agent[:12]+")"; got != want {
		t.Errorf("err = %q\nwant  %q", got, want)
	}
}

func TestPush_force_overwrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.setRemoteBranch("agent", f.main)
	res, err := push.Push(t.Context(), f.options(inputs.PushForce))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed {
		t.Errorf("Result = %+v, want pushed", res)
	}
	if got := f.remoteBranch("agent"); got != f.agent {
		t.Errorf("remote agent = %s, want %s", got, f.agent)
	}
}

// TestPush_lease_no_new_commits: a branch still where the run started is not pushed, and the
// server is not asked.
func TestPush_lease_no_new_commits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.options(inputs.PushLease)
	o.Lease = f.agent
	res, err := push.Push(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pushed || !strings.Contains(res.Skipped, "no new commits") {
		t.Errorf("Result = %+v, want skipped with %q", res, "no new commits")
	}
	if got := f.srv.Requests(); len(got) != 0 {
		t.Errorf("server got %d requests, want none", len(got))
	}
	if got := f.remoteBranch("agent"); got != "" {
		t.Errorf("remote agent = %s, want none", got)
	}
}

func TestPush_up_to_date(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.git(f.dir, "push", "-q", f.remote, "agent")
	res, err := push.Push(t.Context(), f.options(inputs.PushAuto))
	if err != nil {
		t.Fatal(err)
	}
	if res.Pushed || !strings.Contains(res.Skipped, "already has agent") {
		t.Errorf("Result = %+v, want skipped as up to date", res)
	}
}

// TestPush_server_rejects: the server refuses the branch by a rule, as GitHub does in its
// pre-receive checks. The error says which rule and what to do; the commits go to the recovery
// branch when the rule may not cover it, and otherwise into the bundle, so they outlive the
// runner. A rule about the commits themselves is not tried on a recovery branch at all.
func TestPush_server_rejects(t *testing.T) {
	t.Parallel()
	const (
		protected = "echo 'error: GH006: Protected branch update failed for refs/heads/agent.' >&2\n" +
			"echo 'error: Changes must be made through a pull request.' >&2"
		ruleset = "echo 'error: GH013: Repository rule violations found for '$ref'.' >&2\n" +
			"echo 'Review all repository rules at https://github.com/o/r/rules?ref='$ref >&2\n" +
			"echo '- Cannot create ref due to creations being restricted.' >&2"
		workflows = "echo 'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission' >&2"
	)
	tests := []struct {
		name     string
		refuse   string // the refs the hook refuses, a shell case pattern
		say      string // what the hook prints when it refuses
		bundle   bool   // Options.Bundle is set
		recovery bool   // the commits end on the recovery branch
		pushes   int    // receive-pack requests the run makes
		want     []string
	}{
		{name: "protected_branch", refuse: "refs/heads/agent", say: protected, recovery: true, pushes: 2,
			want: []string{"push agent to origin rejected by the server: [remote rejected] (pre-receive hook declined)",
				"GH006: Protected branch update failed", "branch agent is protected: choose a branch no protection rule covers",
				"were pushed to the new branch sandcastle/recovery-1 on origin instead"}},
		{name: "ruleset_everywhere", refuse: "*", say: ruleset, bundle: true, pushes: 2,
			want: []string{"GH013: Repository rule violations found for refs/heads/agent", "Review all repository rules at https://github.com/o/r/rules",
				"a repository ruleset covers branch agent", "pushing the commits to a recovery branch failed too",
				"they are kept in the bundle "}},
		{name: "workflow_permission", refuse: "*", say: workflows, bundle: true, pushes: 1,
			want: []string{"without `workflows` permission", "the job's GITHUB_TOKEN never can", "they are kept in the bundle "}},
		{name: "a_hook_without_recovery", refuse: "*", say: "echo 'Commits must be signed off.' >&2", pushes: 1,
			want: []string{"push agent to origin rejected by the server: [remote rejected] (pre-receive hook declined) (Commits must be signed off.); a hook on the server refused it; the commits are on the local branch agent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			hook := "#!/bin/sh\nwhile read old new ref; do\n\tcase \"$ref\" in " + tt.refuse + ")\n" + tt.say + "\n\t\texit 1;;\n\tesac\ndone\n"
			if err := os.WriteFile(filepath.Join(f.remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
				t.Fatal(err)
			}
			o := f.options(inputs.PushAuto)
			if tt.name == "a_hook_without_recovery" {
				o.RecoveryBranch = ""
			}
			if tt.bundle {
				o.Bundle, o.Since = filepath.Join(t.TempDir(), "logs", "agent.bundle"), f.main
			}
			res, err := push.Push(t.Context(), o)
			var rejected *push.RejectedError
			if !errors.As(err, &rejected) {
				t.Fatalf("err = %v, want a *RejectedError", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q\nwant it to contain %q", err, want)
				}
			}
			if res.Pushed || f.remoteBranch("agent") != "" {
				t.Errorf("Result = %+v, remote agent %q; want nothing pushed to agent", res, f.remoteBranch("agent"))
			}
			f.checkLocal()
			if got := f.remoteBranch("sandcastle/recovery-1"); tt.recovery != (got == f.agent) || tt.recovery != (res.Recovery == "sandcastle/recovery-1") {
				t.Errorf("recovery branch = %q, Result.Recovery %q; want the commits there: %v", got, res.Recovery, tt.recovery)
			}
			pushes := 0
			for _, r := range f.srv.Requests() {
				if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/git-receive-pack") {
					pushes++
				}
			}
			if pushes != tt.pushes {
				t.Errorf("%d pushes, want %d", pushes, tt.pushes)
			}
			if !tt.bundle {
				if res.Bundle != "" {
					t.Errorf("Result.Bundle = %q without Options.Bundle", res.Bundle)
				}
				return
			}
			var kept *push.KeptError
			if res.Bundle != o.Bundle || !errors.As(err, &kept) || kept.Bundle != o.Bundle {
				t.Fatalf("Result.Bundle = %q, err %v; want the bundle %s", res.Bundle, err, o.Bundle)
			}
			// Someone with a clone of the remote gets the commits back from the bundle.
			clone := t.TempDir()
			f.git(clone, "clone", "-q", "file://"+f.remote, ".")
			f.git(clone, "fetch", "-q", o.Bundle, "agent")
			if got := f.git(clone, "rev-parse", "FETCH_HEAD"); got != f.agent {
				t.Errorf("the bundle holds %s, want %s", got, f.agent)
			}
			if got := f.git(clone, "rev-list", "--count", "HEAD..FETCH_HEAD"); got != "1" {
				t.Errorf("the bundle holds %s commits past main, want the agent's one", got)
			}
		})
	}
}

// TestPush_bundle_keeps_what_a_refused_token_could_not_push: the token is refused, so the
// commits reach no branch on the remote; they are kept in the bundle and the error still
// says authentication failed.
func TestPush_bundle_keeps_what_a_refused_token_could_not_push(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.options(inputs.PushAuto)
	o.Token = readOnlyToken
	o.Bundle = filepath.Join(t.TempDir(), "agent.bundle")
	res, err := push.Push(t.Context(), o)
	if !errors.Is(err, push.ErrAuthentication) || res.Bundle != o.Bundle || !strings.Contains(err.Error(), "kept in the bundle "+o.Bundle) {
		t.Fatalf("Result = %+v, err = %v; want an authentication error and the bundle", res, err)
	}
	checkNoToken(t, err)
	f.git(f.dir, "bundle", "verify", "--quiet", o.Bundle)
}

// TestPush_replaces_global_header: an extraheader for the server in the user's global config
// reaches the scratch repository too (unlike actions/checkout's, which is in .git/config); the
// push must send only ours, since the server refuses two Authorization headers.
func TestPush_replaces_global_header(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	global := "[http \"" + f.srv.URL + "/\"]\n\textraheader = AUTHORIZATION: basic " + basic("ghs_fromElsewhere") + "\n"
	if err := os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := push.Push(t.Context(), f.options(inputs.PushAuto)); err != nil {
		t.Fatal(err)
	}
	if got := f.remoteBranch("agent"); got != f.agent {
		t.Errorf("remote agent = %q, want %s", got, f.agent)
	}
	for _, r := range f.srv.Requests() {
		if got, want := r.Authorization, []string{"basic " + basic(token)}; !slices.Equal(got, want) {
			t.Errorf("%s %s: Authorization = %q, want %q", r.Method, r.Path, got, want)
		}
	}
}

// TestPush_keeps_inherited_git_config: GIT_CONFIG_* pairs in Env still apply, numbered before
// ours; a numbering clash would lose either them or the token.
func TestPush_keeps_inherited_git_config(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.options(inputs.PushAuto)
	o.Env = append(o.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.userAgent", "GIT_CONFIG_VALUE_0=inherited-agent/1.0")
	if _, err := push.Push(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	for _, r := range reqs {
		if r.UserAgent != "inherited-agent/1.0" {
			t.Errorf("%s %s: User-Agent = %q, want the inherited one", r.Method, r.Path, r.UserAgent)
		}
	}
}

// TestPush_runs_no_hooks: hooks would run with the token in their environment, and the agent
// can write them. Without a token the push runs in the repository itself, where only
// core.hooksPath keeps them off (the remote-tracking ref update would run
// reference-transaction).
func TestPush_runs_no_hooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		options func(f *fixture) push.Options
	}{
		{"with_token", func(f *fixture) push.Options { return f.options(inputs.PushAuto) }},
		{"without_token", func(f *fixture) push.Options {
			f.git(f.dir, "remote", "set-url", "origin", f.remote)
			o := f.options(inputs.PushAuto)
			o.Token, o.URL = "", ""
			return o
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			marker := filepath.Join(t.TempDir(), "ran")
			script := "#!/bin/sh\necho \"$0\" >> " + marker + "\n"
			for _, name := range []string{"pre-push", "reference-transaction"} {
				if err := os.WriteFile(filepath.Join(f.dir, ".git", "hooks", name), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := push.Push(t.Context(), tt.options(f)); err != nil {
				t.Fatal(err)
			}
			if got := f.remoteBranch("agent"); got != f.agent {
				t.Errorf("remote agent = %q, want %s", got, f.agent)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				b, _ := os.ReadFile(marker)
				t.Errorf("a hook ran during the push:\n%s", b)
			}
		})
	}
}

// TestPush_ignores_the_repository_config: the agent can write .git/config. Nothing it puts
// there takes part in a push with the token: not a remote pointing elsewhere, not an ssh
// command, not a proxy that would see the request (and with TLS off, the token).
func TestPush_ignores_the_repository_config(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config func(f *fixture, marker, proxy string) [][]string
	}{
		{"push_url_elsewhere", func(f *fixture, _, _ string) [][]string {
			return [][]string{{"remote.origin.pushurl", f.remote}}
		}},
		{"push_instead_of", func(f *fixture, _, _ string) [][]string {
			return [][]string{{"url." + f.srv.Root + "/.pushInsteadOf", f.srv.URL + "/"}}
		}},
		{"ssh_with_command", func(f *fixture, marker, _ string) [][]string {
			return [][]string{
				{"remote.origin.url", "ssh://git@example.invalid/o/r.git"},
				{"core.sshCommand", "env >> " + marker + "; false"},
			}
		}},
		{"persisted_header", func(f *fixture, _, _ string) [][]string {
			// actions/checkout's: with two Authorization headers the server refuses the push.
			f.persistedHeader = true
			return [][]string{{"http." + f.srv.URL + "/.extraheader", "AUTHORIZATION: basic " + basic("ghs_fromCheckout")}}
		}},
		{"other_server", func(f *fixture, _, _ string) [][]string {
			return [][]string{{"remote.origin.url", "https://example.invalid/o/r.git"}}
		}},
		{"proxy", func(f *fixture, _, proxy string) [][]string {
			return [][]string{{"http.proxy", proxy}, {"http.sslVerify", "false"}}
		}},
		{"url_specific_proxy", func(f *fixture, _, proxy string) [][]string {
			return [][]string{{"http." + f.url + ".proxy", proxy}}
		}},
		{"include", func(f *fixture, _, proxy string) [][]string {
			inc := filepath.Join(f.t.TempDir(), "inc")
			if err := os.WriteFile(inc, []byte("[http]\n\tproxy = "+proxy+"\n"), 0o644); err != nil {
				f.t.Fatal(err)
			}
			return [][]string{{"include.path", inc}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			marker := filepath.Join(t.TempDir(), "ran")
			var proxied atomic.Int32
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proxied.Add(1)
				http.Error(w, "no", http.StatusForbidden)
			}))
			t.Cleanup(proxy.Close)
			for _, kv := range tt.config(f, marker, proxy.URL) {
				f.git(f.dir, "config", kv[0], kv[1])
			}
			if _, err := push.Push(t.Context(), f.options(inputs.PushForce)); err != nil {
				t.Fatalf("Push: %v", err)
			}
			if got := f.remoteBranch("agent"); got != f.agent {
				t.Errorf("remote agent = %q, want %s pushed to the server", got, f.agent)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Error("the ssh command ran")
			}
			if n := proxied.Load(); n != 0 {
				t.Errorf("the proxy saw %d requests", n)
			}
			f.checkLocal()
		})
	}
}

// TestPush_refuses_url_off_server: the token goes to the server only.
func TestPush_refuses_url_off_server(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.options(inputs.PushForce)
	o.URL = "https://example.invalid/o/r.git"
	_, err := push.Push(t.Context(), o)
	if err == nil || !strings.Contains(err.Error(), "push to origin refused: its URL https://example.invalid/o/r.git is not on") {
		t.Fatalf("err = %v, want a refusal naming the URL", err)
	}
	if got := f.remoteBranch("agent"); got != "" {
		t.Errorf("remote agent = %s, want none", got)
	}
}

// TestFetch_updates_the_remote_tracking_branch through the scratch repository, with the
// token, leaving .git/config as it was. A branch the remote lacks is reported as not found; a
// remote that cannot be read is an error, never taken for a missing branch.
func TestFetch_updates_the_remote_tracking_branch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	theirs := f.setRemoteBranch("feature", f.main)
	o := f.options(inputs.PushAuto)
	o.Branch = "feature"
	if found, err := push.Fetch(t.Context(), o); err != nil || !found {
		t.Fatalf("Fetch = %v, %v; want found", found, err)
	}
	if got := f.git(f.dir, "rev-parse", "refs/remotes/origin/feature"); got != theirs {
		t.Errorf("origin/feature = %q, want %s", got, theirs)
	}
	if got := f.git(f.dir, "cat-file", "-t", theirs); got != "commit" {
		t.Errorf("the fetched commit is not in the repository: %q", got)
	}

	// A ref whose name merely ends like the branch is not the branch.
	f.git(f.dir, "push", "-q", f.remote, f.main+":refs/tags/refs/heads/missing")
	o.Branch = "missing"
	if found, err := push.Fetch(t.Context(), o); err != nil || found {
		t.Errorf("Fetch of a branch the remote lacks = %v, %v; want not found, no error", found, err)
	}
	o.Branch, o.Token = "feature", wrongToken
	found, err := push.Fetch(t.Context(), o)
	if err == nil || found || !errors.Is(err, push.ErrAuthentication) {
		t.Errorf("Fetch with a wrong token = %v, %v; want an authentication error", found, err)
	}
	checkNoToken(t, err)
	o.Token, o.URL = token, f.srv.URL+"/gone.git"
	if found, err := push.Fetch(t.Context(), o); err == nil || found {
		t.Errorf("Fetch from a repository the server lacks = %v, %v; want an error", found, err)
	}
}

func TestFetch_refuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(o *push.Options)
		want   string
	}{
		{"no_token", func(o *push.Options) { o.Token, o.URL = "", "" }, "fetch feature from origin: no token to authenticate with"},
		{"url_off_server", func(o *push.Options) { o.URL = "https://example.invalid/o/r.git" },
			"fetch feature refused: its URL https://example.invalid/o/r.git is not on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.setRemoteBranch("feature", f.main)
			o := f.options(inputs.PushAuto)
			o.Branch = "feature"
			tt.change(&o)
			_, err := push.Fetch(t.Context(), o)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to start with %q", err, tt.want)
			}
			if got := f.srv.Requests(); len(got) != 0 {
				t.Errorf("server got %d requests, want none", len(got))
			}
		})
	}
}

// TestGitConfig_reaches_every_command: Options.GitConfig applies to the git commands in the
// repository and in the scratch repository, for Push with and without a token and for Fetch.
func TestGitConfig_reaches_every_command(t *testing.T) {
	t.Parallel()
	const agent = "configured-agent/1.0"
	tests := []struct {
		name string
		run  func(f *fixture) error
	}{
		{"push_with_token", func(f *fixture) error {
			o := f.options(inputs.PushAuto)
			o.GitConfig = []string{"http.userAgent=" + agent}
			_, err := push.Push(f.t.Context(), o)
			return err
		}},
		{"push_without_token", func(f *fixture) error {
			// The configured header is the only credential: without it the server answers 401.
			o := f.options(inputs.PushAuto)
			o.Token, o.URL = "", ""
			o.GitConfig = []string{"http.userAgent=" + agent, "http.extraheader=AUTHORIZATION: basic " + basic(token)}
			_, err := push.Push(f.t.Context(), o)
			return err
		}},
		{"fetch", func(f *fixture) error {
			f.setRemoteBranch("agent", f.main)
			o := f.options(inputs.PushAuto)
			// The local fetch into the repository keeps no reflog only if it sees this.
			o.GitConfig = []string{"http.userAgent=" + agent, "core.logAllRefUpdates=false"}
			if _, err := push.Fetch(f.t.Context(), o); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(f.dir, ".git", "logs", "refs", "remotes", "origin", "agent")); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("the local fetch wrote a reflog (stat: %v)", err)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if err := tt.run(f); err != nil {
				t.Fatal(err)
			}
			reqs := f.srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no requests")
			}
			for _, r := range reqs {
				if r.UserAgent != agent {
					t.Errorf("%s %s: User-Agent = %q, want %q", r.Method, r.Path, r.UserAgent, agent)
				}
			}
		})
	}
}

// TestGitConfig_safe_directory: in a container Action the repository belongs to another user,
// and git works in it only with the safe.directory the caller passes in GitConfig.
func TestGitConfig_safe_directory(t *testing.T) {
	t.Parallel()
	testkit.RequireRoot(t, "giving the repository to another user")
	f := newFixture(t)
	f.setRemoteBranch("feature", f.main)
	if err := filepath.WalkDir(f.dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, 65534, 65534)
	}); err != nil {
		t.Fatal(err)
	}
	fetch := f.options(inputs.PushAuto)
	fetch.Branch = "feature"
	calls := []struct {
		name string
		run  func(o push.Options, config ...string) error
		o    push.Options
	}{
		{"push", func(o push.Options, config ...string) error {
			o.GitConfig = config
			_, err := push.Push(t.Context(), o)
			return err
		}, f.options(inputs.PushAuto)},
		{"fetch", func(o push.Options, config ...string) error {
			o.GitConfig = config
			_, err := push.Fetch(t.Context(), o)
			return err
		}, fetch},
	}
	for _, c := range calls {
		if err := c.run(c.o); err == nil || !strings.Contains(err.Error(), "dubious ownership") {
			t.Errorf("%s without safe.directory: err = %v, want dubious ownership", c.name, err)
		}
		if err := c.run(c.o, "safe.directory=*"); err != nil {
			t.Errorf("%s with safe.directory: %v", c.name, err)
		}
	}
	if got := f.remoteBranch("agent"); got != f.agent {
		t.Errorf("remote agent = %q, want %s", got, f.agent)
	}
}

func TestPush_invalid_options(t *testing.T) {
	t.Parallel()
	valid := push.Options{Dir: t.TempDir(), Branch: "agent", Mode: inputs.PushAuto}
	tests := []struct {
		name   string
		change func(o *push.Options)
		want   string
	}{
		{"unknown_mode", func(o *push.Options) { o.Mode = "always" }, `push: unknown mode "always"`},
		{"no_dir", func(o *push.Options) { o.Dir = "" }, "push: no repository directory"},
		{"option_branch", func(o *push.Options) { o.Branch = "--force" }, "push: branch:"},
		{"bad_recovery", func(o *push.Options) { o.RecoveryBranch = "a..b" }, "push: recovery branch:"},
		{"recovery_is_branch", func(o *push.Options) { o.RecoveryBranch = "agent" }, "push: the recovery branch must differ"},
		{"option_remote", func(o *push.Options) { o.Remote = "--receive-pack=x" }, "is not a remote name"},
		{"short_lease", func(o *push.Options) { o.Mode, o.Lease = inputs.PushLease, "abc123" }, "is not a full commit id"},
		{"option_as_since", func(o *push.Options) { o.Since = "--all" }, "since \"--all\" is not a full commit id"},
		{"server_with_credentials", func(o *push.Options) { o.ServerURL = "https://u:p@github.com" }, "is not an http(s) URL"},
		{"server_not_http", func(o *push.Options) { o.ServerURL = "ssh://github.com" }, "is not an http(s) URL"},
		{"token_without_url", func(o *push.Options) { o.Token = "t0ken" }, "a token needs the remote's URL"},
		{"url_with_password", func(o *push.Options) { o.Token, o.URL = "t0ken", "https://x-access-token:t0ken@github.com/o/r.git" },
			"push: the remote's URL https://x-access-token:xxxxx@github.com/o/r.git carries a password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := valid
			tt.change(&o)
			_, err := push.Push(t.Context(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestPush_token_is_the_only_credential: when the token is refused, no credential helper or
// askpass program of the user's is asked for another credential (or told to erase its own).
func TestPush_token_is_the_only_credential(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  func(script string) []string
	}{
		{"credential_helper", func(script string) []string {
			return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=!" + script}
		}},
		{"askpass", func(script string) []string { return []string{"GIT_ASKPASS=" + script, "SSH_ASKPASS=" + script} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			marker := filepath.Join(t.TempDir(), "asked")
			script := filepath.Join(t.TempDir(), "credential")
			body := "#!/bin/sh\necho \"$@\" >> " + marker + "\necho username=x-access-token\necho password=" + token + "\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			o := f.options(inputs.PushAuto)
			o.Token = wrongToken
			o.Env = append(o.Env, tt.env(script)...)
			_, err := push.Push(t.Context(), o)
			if !errors.Is(err, push.ErrAuthentication) {
				t.Errorf("err = %v, want ErrAuthentication", err)
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Errorf("git asked for credentials: %s", b)
			}
			if got := f.remoteBranch("agent"); got != "" {
				t.Errorf("remote agent = %s, want none", got)
			}
		})
	}
}

// BenchmarkPush_with_token measures one push with a token, scratch repository included, of a
// branch the remote already has: the fixed cost a run pays to publish.
func BenchmarkPush_with_token(b *testing.B) {
	f := newFixture(b)
	o := f.options(inputs.PushForce)
	if _, err := push.Push(b.Context(), o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := push.Push(b.Context(), o); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFetchPull_brings_a_forks_head_into_a_shallow_checkout: GitHub keeps the head of every
// pull request, a fork's too, as refs/pull/<n>/head of the base repository. A depth-1 checkout
// of main fetches it, with the token, whatever history it branched from, under the same name;
// its commit is what the remote has.
func TestFetchPull_brings_a_forks_head_into_a_shallow_checkout(t *testing.T) {
	t.Parallel()
	f := newShallowFixture(t)
	head := f.setRemoteBranch("fork-feature", f.main) // someone's commit on top of main…
	f.git(f.remote, "update-ref", "refs/pull/7/head", head)
	f.git(f.remote, "update-ref", "-d", "refs/heads/fork-feature") // …known only as the pull request's head

	sha, err := push.FetchPull(t.Context(), f.options(inputs.PushAuto), 7)
	if err != nil || sha != head {
		t.Fatalf("FetchPull = %q, %v; want %s", sha, err, head)
	}
	if got := f.git(f.dir, "rev-parse", "refs/pull/7/head"); got != head {
		t.Errorf("refs/pull/7/head = %s, want %s", got, head)
	}
	if got := f.git(f.dir, "log", "-1", "--format=%s", head); got != "someone else's work" {
		t.Errorf("the fetched head's commit reads %q", got)
	}
	f.checkLocal()

	if _, err := push.FetchPull(t.Context(), f.options(inputs.PushAuto), 8); err == nil || !strings.Contains(err.Error(), "fetch pull request #8 from origin: it has no refs/pull/8/head") {
		t.Errorf("FetchPull of a pull request the remote lacks: %v", err)
	}
	o := f.options(inputs.PushAuto)
	o.Token = wrongToken
	_, err = push.FetchPull(t.Context(), o, 7)
	if !errors.Is(err, push.ErrAuthentication) || !strings.Contains(err.Error(), "read pull request #7 on origin") {
		t.Errorf("FetchPull with a wrong token: %v, want an authentication error naming the pull request", err)
	}
	checkNoToken(t, err)
	o.Token, o.URL = "", ""
	if _, err := push.FetchPull(t.Context(), o, 7); err == nil || !strings.Contains(err.Error(), "no token to authenticate with") {
		t.Errorf("FetchPull without a token: %v", err)
	}
}

// TestPush_bundle_never_written_through_a_link: the agent can replace .sandcastle/logs in the
// checkout with a link; the bundle is then not written, nothing lands where the link leads, and
// the error says why. A real directory is written as before, through its descriptor.
func TestPush_bundle_never_written_through_a_link(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.options(inputs.PushAuto)
	o.Token = readOnlyToken
	top, outside := t.TempDir(), t.TempDir()
	logs := filepath.Join(top, ".sandcastle", "logs")
	if err := os.MkdirAll(filepath.Dir(logs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, logs); err != nil {
		t.Fatal(err)
	}
	o.Bundle, o.BundleTop = filepath.Join(logs, "agent.bundle"), top
	res, err := push.Push(t.Context(), o)
	if res.Bundle != "" || err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("Result = %+v, err = %v; want no bundle, and why", res, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("wrote %v where the link leads", entries)
	}
	if err := os.Remove(logs); err != nil {
		t.Fatal(err)
	}
	if res, _ = push.Push(t.Context(), o); res.Bundle != o.Bundle {
		t.Fatalf("Result.Bundle = %q, want %s", res.Bundle, o.Bundle)
	}
	f.git(f.dir, "bundle", "verify", "--quiet", o.Bundle)
}
