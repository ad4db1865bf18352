package push

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/hostfs"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// Options describe one push.
type Options struct {
	Dir string // the repository or a worktree of it
	// Env is the base environment for git, KEY=VALUE, as package git takes it; nil means this
	// process's. GIT_CONFIG_* entries in it are kept next to the ones added here.
	Env []string
	// GitConfig holds key=value pairs for every git command, as workspace.Options.GitConfig
	// (e.g. safe.directory when the repository belongs to another user). Push's own pairs come
	// after these, so these cannot undo its hardening or replace the token's header.
	GitConfig []string
	Remote    string // remote name; "" means origin
	Branch    string // local branch, pushed to the branch of the same name on the remote
	// Mode is inputs.PushAuto (fast-forward only; a moved branch goes to RecoveryBranch),
	// PushForce (overwrite the remote branch) or PushLease (overwrite it only if it is still at
	// Lease); "" means PushAuto. PushNone is no push, and an error.
	Mode inputs.PushMode
	// Lease is the commit the remote branch had when the run started, "" when it did not
	// exist (then the push requires that it still does not). Lease mode only.
	Lease string
	// Token authenticates the push (an x-access-token, as GITHUB_TOKEN or an App token). ""
	// leaves authentication to the user's own git setup (the CLI on a workstation).
	Token string
	// ServerURL is the GitHub server (GITHUB_SERVER_URL); "" means https://github.com. The
	// token is sent to URLs under it only.
	ServerURL string
	// URL is the remote's URL, required with a token: the push then runs from a scratch
	// repository, straight to URL, so nothing in the repository's .git/config takes part. Read
	// it before the agent could change that config (GITHUB_SERVER_URL/GITHUB_REPOSITORY.git in
	// Actions), without a password in it: the token is the only credential, and git's argv
	// never holds it. Without a token the repository's Remote is used as the user configured it.
	URL string
	// RecoveryBranch receives the commits when the remote branch moved, or when the server
	// refused the branch by a rule that may not cover another branch (a protected branch, a
	// ruleset, a hook); it must not exist on the remote yet. "" means none.
	RecoveryBranch string
	// Bundle is a file to keep the commits in when they reach no branch on the remote (the
	// server refused them everywhere, the token was refused, the network failed), so that they
	// outlive a runner that is about to vanish. "" means they stay on the local branch only.
	Bundle string
	// BundleTop is the checkout: a Bundle inside it is written without following a link, since
	// the agent may have replaced a directory on the way with one.
	BundleTop string
	// Since is a commit the remote has, where the commits start (the run's base); the bundle
	// then holds only what came after it. "" bundles the whole history.
	Since string
}

// Result is what Push did.
type Result struct {
	Pushed   bool   // the remote Options.Branch now has SHA because of this push
	SHA      string // the local branch's commit; "" when nothing was resolved
	Recovery string // the commits went to this remote branch instead of Options.Branch
	Bundle   string // the commits reached no remote branch and were kept in this file
	Skipped  string // why nothing was pushed, when nothing was and no error happened
}

// ErrAuthentication means the remote refused the credentials: a wrong or expired token, or
// one without permission to write.
var ErrAuthentication = errors.New("authentication failed")

// BranchMovedError means the remote branch is no longer where the push expected it (someone
// else pushed), so it was left alone. The commits are on the Recovery branch when that push
// worked, and on the local branch in every case.
type BranchMovedError struct {
	Remote      string
	Branch      string
	SHA         string // the commit that was to be pushed
	RemoteSHA   string // where the remote branch is now; "" when unknown or gone
	Recovery    string // remote branch that now holds SHA; "" when not pushed there
	RecoveryErr error  // why the push to the recovery branch failed
}

func (e *BranchMovedError) Error() string {
	msg := fmt.Sprintf("push %s to %s: the remote branch changed since the run started", e.Branch, e.Remote)
	if e.RemoteSHA != "" {
		msg += " (it is now at " + short(e.RemoteSHA) + ")"
	}
	msg += ", so it was not overwritten"
	return msg + whereKept(e.Remote, e.Branch, e.SHA, e.Recovery, e.RecoveryErr)
}

// whereKept ends the message of a push that did not land: where the commits are now.
func whereKept(remote, branch, sha, recovery string, recoveryErr error) string {
	switch {
	case recovery != "":
		return fmt.Sprintf("; the commits (%s) were pushed to the new branch %s on %s instead, and are also on the local branch %s",
			short(sha), recovery, remote, branch)
	case recoveryErr != nil:
		return fmt.Sprintf("; pushing the commits to a recovery branch failed too (%v); they are on the local branch %s (%s)",
			recoveryErr, branch, short(sha))
	}
	return fmt.Sprintf("; the commits are on the local branch %s (%s)", branch, short(sha))
}

func (e *BranchMovedError) Unwrap() error { return e.RecoveryErr }

// BranchMoved says so, for a caller that tells this error by its behaviour, without importing
// this package: the status of the run is then branch-moved.
func (e *BranchMovedError) BranchMoved() bool { return true }

// Per-command deadlines, so a stalled network cannot hold the run forever.
const (
	pushTimeout  = 5 * time.Minute
	queryTimeout = time.Minute
)

// Push publishes o.Branch as o.Mode says. The local branch is never changed. When the remote
// branch moved (Auto, Lease) the error is a *BranchMovedError, when the server refused the
// branch a *RejectedError, and Result.Recovery names where the commits went; a refused token is
// an error wrapping ErrAuthentication. Whenever the commits reached no remote branch and
// o.Bundle is set, they are kept in that bundle (Result.Bundle) and the error says so.
func Push(ctx context.Context, o Options) (Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	var res Result
	creds, err := newCredentials(o.ServerURL, o.Token)
	if err != nil {
		return res, err
	}
	src := git.New(o.Dir, o.Env).WithConfig(o.GitConfig...)
	res.SHA, err = resolve(ctx, src, o.Branch)
	if err != nil {
		return res, err
	}
	if o.Mode == inputs.PushLease && res.SHA == o.Lease {
		res.Skipped = "no new commits: " + o.Branch + " is where the run started"
		return res, nil
	}
	res, err = o.publish(ctx, src, creds, res)
	if err != nil && res.Recovery == "" && o.Bundle != "" {
		res.Bundle, err = o.keep(ctx, src, res.SHA, err)
	}
	return res, err
}

// publish pushes res.SHA to the remote branch, or to the recovery branch when the remote
// branch moved or its rules refused it.
func (o Options) publish(ctx context.Context, src git.Repo, creds credentials, res Result) (Result, error) {
	p := pusher{git: src.WithConfig(creds.config()...), remote: o.Remote, name: o.Remote, creds: creds}
	if creds.token != "" {
		if !creds.serves(o.URL) {
			return res, fmt.Errorf("push to %s refused: its URL %s is not on %s, the only server the token is for",
				o.Remote, redactURL(o.URL), creds.server)
		}
		s, err := newScratch(ctx, src, creds.environ(o.Env), o.scratchConfig(creds))
		if err != nil {
			return res, err
		}
		defer s.remove()
		p.git, p.remote = s.git, o.URL
	}

	var flags []string
	switch o.Mode {
	case inputs.PushForce:
		flags = []string{"--force"}
	case inputs.PushLease:
		// An empty expectation means the ref must not exist on the remote.
		flags = []string{"--force-with-lease=refs/heads/" + o.Branch + ":" + o.Lease}
	}
	st, err := p.push(ctx, res.SHA, o.Branch, flags...)
	if err != nil {
		return res, err
	}
	switch {
	case st.upToDate():
		res.Skipped = fmt.Sprintf("%s already has %s at %s", o.Remote, o.Branch, short(res.SHA))
		return res, nil
	case st.ok():
		res.Pushed = true
		return res, nil
	case !st.moved():
		rejected := &RejectedError{Remote: o.Remote, Branch: o.Branch, SHA: res.SHA, Reason: st.summary, Server: st.server}
		var anyBranch bool
		rejected.Rule, anyBranch = rule(o.Branch, st)
		if o.RecoveryBranch != "" && !anyBranch {
			rejected.RecoveryErr = p.recover(ctx, res.SHA, o.RecoveryBranch)
			if rejected.RecoveryErr == nil {
				rejected.Recovery, res.Recovery = o.RecoveryBranch, o.RecoveryBranch
			}
		}
		return res, rejected
	}

	moved := &BranchMovedError{Remote: o.Remote, Branch: o.Branch, SHA: res.SHA}
	moved.RemoteSHA = p.remoteSHA(ctx, o.Branch)
	if o.RecoveryBranch != "" {
		moved.RecoveryErr = p.recover(ctx, res.SHA, o.RecoveryBranch)
		if moved.RecoveryErr == nil {
			moved.Recovery = o.RecoveryBranch
			res.Recovery = o.RecoveryBranch
		}
	}
	return res, moved
}

// keep writes the commits up to sha to o.Bundle after a push that left them on no remote
// branch, and returns the bundle's path (or "") with pushErr extended to say where they are.
func (o Options) keep(ctx context.Context, src git.Repo, sha string, pushErr error) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	if err := writeBundle(ctx, src, o.BundleTop, o.Bundle, o.Branch, sha, o.Since); err != nil {
		return "", fmt.Errorf("%w; keeping them in a bundle failed too: %v", pushErr, err)
	}
	return o.Bundle, &KeptError{Err: pushErr, Bundle: o.Bundle, Branch: o.Branch}
}

// writeBundle writes a git bundle of branch at sha, without what since already has, to path,
// reached from top without following a link (see hostfs.Beneath). The branch is bundled by name
// from a scratch ref, so `git fetch <bundle> <branch>` gets it whatever the repository's branch
// has become.
func writeBundle(ctx context.Context, src git.Repo, top, path, branch, sha, since string) error {
	dir, name, err := hostfs.Beneath(top, path, 0o755)
	if err != nil {
		return err
	}
	defer dir.Close()
	s, err := newScratch(ctx, src, src.Env, src.Config)
	if err != nil {
		return err
	}
	defer s.remove()
	ref := "refs/heads/" + branch
	if _, err := s.git.Run(ctx, "update-ref", ref, sha); err != nil {
		return err
	}
	// git writes through the directory's descriptor: whatever its path leads to now.
	args := []string{"bundle", "create", "--quiet", hostfs.Path(dir, name), ref}
	if since != "" && since != sha {
		args = append(args, "^"+since)
	}
	_, err = s.git.Run(ctx, args...)
	return err
}

// KeptError is a failed push whose commits were kept in a bundle on the machine that ran it.
type KeptError struct {
	Err    error // why the push failed
	Bundle string
	Branch string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("%v; they are kept in the bundle %s on this machine: upload it as an artifact before the runner goes, and get them back with git fetch <bundle> %s",
		e.Err, e.Bundle, e.Branch)
}

func (e *KeptError) Unwrap() error { return e.Err }

// RejectedError means the server refused the branch: a protected branch, a ruleset, a hook,
// push protection, or a token that may not push workflow files. The commits are on the
// Recovery branch when the server took them there, and on the local branch in every case.
type RejectedError struct {
	Remote      string
	Branch      string
	SHA         string   // the commit that was to be pushed
	Reason      string   // git's summary, e.g. "[remote rejected] (protected branch hook declined)"
	Server      []string // what the server said about it (its "remote:" lines), token removed
	Rule        string   // which rule refused it and what to do, when recognised
	Recovery    string   // remote branch that now holds SHA; "" when not pushed there
	RecoveryErr error    // why the push to the recovery branch failed
}

func (e *RejectedError) Error() string {
	msg := fmt.Sprintf("push %s to %s rejected by the server: %s", e.Branch, e.Remote, e.Reason)
	if len(e.Server) > 0 {
		msg += " (" + strings.Join(e.Server, " ") + ")"
	}
	if e.Rule != "" {
		msg += "; " + e.Rule
	}
	return msg + whereKept(e.Remote, e.Branch, e.SHA, e.Recovery, e.RecoveryErr)
}

func (e *RejectedError) Unwrap() error { return e.RecoveryErr }

// rule names the GitHub rule behind a refusal and what to do about it, from git's summary and
// the server's messages. anyBranch is true when the rule is about the commits themselves, so
// the server would refuse them on a recovery branch too.
func rule(branch string, st refStatus) (hint string, anyBranch bool) {
	said := strings.ToLower(st.summary + "\n" + strings.Join(st.server, "\n"))
	has := func(signs ...string) bool {
		return slices.ContainsFunc(signs, func(sign string) bool { return strings.Contains(said, sign) })
	}
	switch {
	case has("without `workflows` permission", "without `workflow` scope", "without workflows permission"):
		return "the commits change a workflow file under .github/workflows, which github-token may not push: give the action a token that may (a GitHub App token with the Workflows permission set to write, or a personal access token with the workflow scope; the job's GITHUB_TOKEN never can), or tell the agent to leave .github/workflows alone", true
	case has("gh009", "push protection", "push cannot contain secrets"):
		return "secret scanning push protection found a secret in the commits: take it out of them, or allow it in the repository's code security settings", true
	case has("gh001", "large files detected"):
		return "a file in the commits is larger than GitHub allows: keep it out of the repository or track it with Git LFS", true
	case has("gh006", "protected branch"):
		return "branch " + branch + " is protected: choose a branch no protection rule covers (the branch input), or let github-token's account push to it in the branch protection settings", false
	case has("gh013", "repository rule violations"):
		return "a repository ruleset covers branch " + branch + ": choose a branch the rulesets leave open (the branch input), or add github-token's account to the ruleset's bypass list", false
	case has("pre-receive hook declined", "hook declined"):
		return "a hook on the server refused it", false
	}
	return "", false
}

func (o Options) withDefaults() Options {
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.Mode == "" {
		o.Mode = inputs.PushAuto
	}
	if o.ServerURL == "" {
		o.ServerURL = "https://github.com"
	}
	return o
}

func (o Options) validate() error {
	switch o.Mode {
	case inputs.PushAuto, inputs.PushForce, inputs.PushLease:
	default:
		return fmt.Errorf("push: unknown mode %q (want auto, force or lease)", o.Mode)
	}
	if err := o.validateRemote(); err != nil {
		return err
	}
	if err := gitref.Check(o.Branch); err != nil {
		return fmt.Errorf("push: branch: %w", err)
	}
	if o.RecoveryBranch != "" {
		if err := gitref.Check(o.RecoveryBranch); err != nil {
			return fmt.Errorf("push: recovery branch: %w", err)
		}
		if o.RecoveryBranch == o.Branch {
			return fmt.Errorf("push: the recovery branch must differ from %s", o.Branch)
		}
	}
	if o.Lease != "" && !isCommitID(o.Lease) {
		return fmt.Errorf("push: lease %q is not a full commit id", o.Lease)
	}
	if o.Since != "" && !isCommitID(o.Since) {
		return fmt.Errorf("push: since %q is not a full commit id", o.Since)
	}
	return nil
}

// validateRemote checks where git goes: the repository, the remote, and the token's URL.
func (o Options) validateRemote() error {
	if o.Dir == "" {
		return errors.New("push: no repository directory")
	}
	if strings.HasPrefix(o.Remote, "-") || strings.ContainsFunc(o.Remote, isSpaceOrControl) {
		return fmt.Errorf("push: %q is not a remote name", o.Remote)
	}
	if o.Token != "" && o.URL == "" {
		return errors.New("push: a token needs the remote's URL")
	}
	if o.Token != "" && hasPassword(o.URL) {
		return fmt.Errorf("push: the remote's URL %s carries a password; the token is the only credential", redactURL(o.URL))
	}
	return nil
}

// scratchConfig returns the config of the git commands in the scratch repository: the caller's
// pairs, then the credentials', which must come last to win.
func (o Options) scratchConfig(c credentials) []string {
	return append(append([]string(nil), o.GitConfig...), c.config()...)
}

// isCommitID reports whether s is a full SHA-1 or SHA-256 commit id in lower-case hex.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return (r < '0' || r > '9') && (r < 'a' || r > 'f') })
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

// short abbreviates a commit id for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// pusher runs the git commands of one Push.
type pusher struct {
	git    git.Repo
	remote string // what git pushes to: the remote's name, or with a token its URL
	name   string // the remote's name, for messages
	creds  credentials
}

// resolve reads the commit of the local branch.
func resolve(ctx context.Context, src git.Repo, branch string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	sha, err := src.Resolve(ctx, "refs/heads/"+branch)
	if err != nil {
		return "", fmt.Errorf("push: read local branch %s: %w", branch, err)
	}
	return sha, nil
}

// refStatus is git push --porcelain's report on one ref.
type refStatus struct {
	flag    byte     // ' ' fast-forward, '+' forced, '*' new, '=' up to date, '!' rejected
	summary string   // e.g. "[rejected] (stale info)"
	server  []string // what the server said (its "remote:" lines), token removed
}

func (s refStatus) ok() bool       { return s.flag == ' ' || s.flag == '+' || s.flag == '*' }
func (s refStatus) upToDate() bool { return s.flag == '=' }

// moved reports a rejection because of the remote branch's state, as opposed to one by the
// server (a protected branch, a hook).
func (s refStatus) moved() bool {
	if s.flag != '!' || !strings.HasPrefix(s.summary, "[rejected]") {
		return false
	}
	for _, reason := range []string{"(stale info)", "(fetch first)", "(non-fast-forward)"} {
		if strings.Contains(s.summary, reason) {
			return true
		}
	}
	return false
}

// push pushes commit sha to refs/heads/<dst> and returns git's verdict on that ref. An error
// means git could not push at all (authentication, network).
func (p pusher) push(ctx context.Context, sha, dst string, flags ...string) (refStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	// The agent may have planted hooks or signing and submodule settings in the repository:
	// none of them runs, since they would run with the token in their environment.
	args := []string{"push", "--porcelain", "--no-verify", "--no-follow-tags", "--no-signed", "--recurse-submodules=no"}
	args = append(append(args, flags...), "--end-of-options", p.remote, sha+":refs/heads/"+dst)
	out, err := p.git.Run(ctx, args...)
	if st, found := parsePorcelain(out, "refs/heads/"+dst); found {
		// A rejection exits 1 and is reported here; the server's reasons are on stderr.
		var ge *git.Error
		if errors.As(err, &ge) {
			st.server = serverLines(p.creds.redact(ge.Stderr))
		}
		return st, nil
	}
	if err == nil {
		return refStatus{}, fmt.Errorf("push %s to %s: git reported nothing about refs/heads/%s", dst, p.name, dst)
	}
	var ge *git.Error
	if errors.As(err, &ge) && authFailed(ge.Stderr) {
		return refStatus{}, fmt.Errorf("push to %s rejected: %w; check github-token has contents: write (git: %s)",
			p.name, ErrAuthentication, p.creds.redact(lastLine(ge.Stderr)))
	}
	return refStatus{}, fmt.Errorf("push %s to %s: %w", dst, p.name, p.creds.redactErr(err))
}

// recover pushes sha to a new branch; it never overwrites one that exists.
func (p pusher) recover(ctx context.Context, sha, branch string) error {
	st, err := p.push(ctx, sha, branch, "--force-with-lease=refs/heads/"+branch+":")
	switch {
	case err != nil:
		return err
	case st.ok() || st.upToDate():
		return nil
	}
	return fmt.Errorf("push to %s %s: %s", p.name, branch, st.summary)
}

// remoteSHA returns where the remote branch is now, "" when unknown or gone.
func (p pusher) remoteSHA(ctx context.Context, branch string) string {
	sha, _ := p.lookup(ctx, "refs/heads/"+branch, branch)
	return sha
}

// lookup asks the remote where ref (a full ref name; what, for messages) is: "" with no error
// when it has no such ref. An error means the remote could not be asked (network, token,
// server).
func (p pusher) lookup(ctx context.Context, ref, what string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	out, err := p.git.Run(ctx, "ls-remote", "--end-of-options", p.remote, ref)
	if err != nil {
		var ge *git.Error
		if errors.As(err, &ge) && authFailed(ge.Stderr) {
			return "", fmt.Errorf("read %s on %s: %w; check github-token may read the repository (git: %s)",
				what, p.name, ErrAuthentication, p.creds.redact(lastLine(ge.Stderr)))
		}
		return "", fmt.Errorf("read %s on %s: %w", what, p.name, p.creds.redactErr(err))
	}
	// ls-remote matches the pattern against the end of every ref name: only the exact ref counts.
	for line := range strings.Lines(out) {
		if sha, name, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok && name == ref {
			return sha, nil
		}
	}
	return "", nil
}

// parsePorcelain finds the status line of the remote ref dst in git push --porcelain output:
// "<flag>\t<src>:<dst>\t<summary>".
func parsePorcelain(out, dst string) (refStatus, bool) {
	for line := range strings.Lines(out) {
		fields := strings.SplitN(strings.TrimRight(line, "\r\n"), "\t", 3)
		if len(fields) != 3 || len(fields[0]) != 1 {
			continue
		}
		if _, to, _ := strings.Cut(fields[1], ":"); to == dst {
			return refStatus{flag: fields[0][0], summary: fields[2]}, true
		}
	}
	return refStatus{}, false
}

// serverLines returns what the server said in git's stderr (the lines git prefixes with
// "remote: "), without progress and blank lines, at most maxServerLines of them.
func serverLines(stderr string) []string {
	var out []string
	for line := range strings.Lines(stderr) {
		text, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "remote:")
		text = strings.TrimSpace(text)
		if !ok || text == "" || isProgress(text) {
			continue
		}
		if len(text) > maxServerLine {
			text = text[:maxServerLine] + "…"
		}
		if out = append(out, text); len(out) == maxServerLines {
			break
		}
	}
	return out
}

// Bounds on what a refusal quotes of the server, so a chatty hook cannot flood the comment.
const (
	maxServerLines = 12
	maxServerLine  = 300
)

// isProgress reports whether a server line is pack progress rather than a message.
func isProgress(text string) bool {
	for _, p := range []string{"Resolving deltas", "Counting objects", "Compressing objects", "Enumerating objects", "Writing objects", "Total "} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// authFailed reports whether git's stderr says the server refused the credentials. GitHub
// answers 401 for a bad token, and 403 ("Permission to o/r.git denied") for one that may read
// but not write; with prompts and helpers off, a 401 surfaces as git failing to ask for a
// username.
func authFailed(stderr string) bool {
	s := strings.ToLower(stderr)
	for _, sign := range []string{
		"authentication failed",
		"terminal prompts disabled",
		"could not read username",
		"could not read password",
		"invalid username or password",
		"returned error: 401",
		"returned error: 403",
	} {
		if strings.Contains(s, sign) {
			return true
		}
	}
	return strings.Contains(s, "permission to") && strings.Contains(s, "denied")
}

// lastLine returns the last non-blank line of s, where git puts its fatal error.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
