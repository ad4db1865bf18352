package workspace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// Options describe the workspace to prepare.
type Options struct {
	RepoDir  string // any directory inside the host repository's working tree
	Strategy inputs.BranchStrategy
	Branch   string // branch strategy only: the branch the agent works on
	Name     string // run name, part of merge-to-head branch names
	// TempBranch is merge-to-head's temporary branch, as Preview named it (Source), so the run
	// works on the branch its prompt was given; "" picks a new name. Other strategies ignore it.
	TempBranch string
	// CopyToWorktree lists paths relative to the repository, copied from the host checkout into
	// the worktree (worktree strategies only), e.g. .env or node_modules that git does not carry.
	CopyToWorktree []string
	// GitConfig holds key=value pairs for every git command, e.g. safe.directory when the
	// repository belongs to another user, as in a container Action.
	GitConfig []string
	// Fetch updates refs/remotes/origin/<branch> from the remote and reports whether the
	// remote has the branch; nil means git fetch origin with the repository's own setup (see
	// fetchOrigin). The Action passes one that authenticates with its token without the
	// repository's configuration taking part. A branch the remote lacks is (false, nil); an
	// error means the remote could not be read, and stops Prepare.
	Fetch func(ctx context.Context, branch string) (found bool, err error)
	// Pull is, for a branch strategy run on a pull request's own branch, the pull request's
	// number: a branch that neither the repository nor origin has starts from its head, which
	// FetchPull brings in, rather than from HEAD. 0 means HEAD.
	Pull int
	// PullHead is the commit the run was asked to work on, the pull request's head as it was
	// looked up; a head fetched since that is another (a fork pushed meanwhile) is refused
	// rather than worked on unseen. "" takes the head fetched.
	PullHead string
	// FetchPull brings refs/pull/<n>/head from origin into the repository (GitHub keeps the head
	// of every pull request there, a fork's too) and returns its commit; nil means git fetch
	// origin with the repository's own setup (see fetchPullOrigin). The Action passes one that
	// authenticates with its token, as it does for Fetch.
	FetchPull func(ctx context.Context, n int) (string, error)
	Log       *slog.Logger     // nil: discard
	Now       func() time.Time // nil: time.Now
}

// Workspace is a prepared checkout. Finish must be called once the agent is done.
type Workspace struct {
	Dir      string // host path the agent works in
	Source   string // the branch the agent commits on; "" in head mode on a detached HEAD
	Target   string // the host branch when the run started; "" when detached
	Strategy inputs.BranchStrategy
	Worktree bool // Dir is a worktree created or reused for this run

	host   git.Repo // git in the host repository's top level
	wt     git.Repo // git in Dir
	log    *slog.Logger
	config []string // Options.GitConfig, which the agent's git gets too

	fetchRemote func(ctx context.Context, branch string) (bool, error)
	pull        int    // Options.Pull
	pullHead    string // Options.PullHead
	fetchPull   func(ctx context.Context, n int) (string, error)
	start       string // merge-to-head: the commit the temporary branch started from

	createdWorktree bool
	createdBranch   bool
	lock            *lock
	finished        bool
}

// Outcome is what Finish did with the worktree and the branch.
type Outcome struct {
	PreservedPath string // the worktree was kept because it has uncommitted changes (or may have)
	MergeCommit   string // merge-to-head: the merge commit, when the merge was not a fast-forward
	KeptBranch    string // merge-to-head: the temporary branch was kept (unmerged commits, or preserved worktree)
	Merged        bool   // merge-to-head: the agent's commits are now on Target
}

// Per-step deadlines. Creation includes a network fetch.
const (
	createTimeout  = 60 * time.Second
	fetchTimeout   = 30 * time.Second
	pruneTimeout   = 30 * time.Second
	copyTimeout    = 60 * time.Second
	queryTimeout   = 30 * time.Second
	mergeTimeout   = 30 * time.Second
	cleanupTimeout = 30 * time.Second
)

// Prepare makes the workspace for o. env is the base environment for git (nil: this process's).
// On error nothing Prepare created is left behind.
func Prepare(ctx context.Context, env []string, o Options) (_ *Workspace, err error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	// gctx bounds the git work of creation; pruning and copying have their own budgets.
	gctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()

	// Nothing is written before the repository is known to fit.
	c, err := inspect(gctx, hostGit(env, o), o)
	if err != nil {
		return nil, err
	}
	host, top, target := c.host, c.top, c.target
	fetch := o.Fetch
	if fetch == nil {
		fetch = fetchOrigin(host)
	}
	fetchPull := o.FetchPull
	if fetchPull == nil {
		fetchPull = fetchPullOrigin(host)
	}
	w := &Workspace{Target: target, Strategy: o.Strategy, host: host, fetchRemote: fetch, pull: o.Pull, pullHead: o.PullHead, fetchPull: fetchPull,
		log: log, config: o.GitConfig}
	// What Prepare adds to the repository outside a worktree goes again when it fails.
	madeDirs := missingDirs(filepath.Join(top, ".sandcastle"), managedRoot(top), lockDir(top))
	unexclude, err := excludeManaged(gctx, host)
	if err != nil {
		log.Warn("could not hide .sandcastle directories from git status", "err", err)
	}
	defer func() {
		if err != nil {
			unexclude()
			removeEmpty(madeDirs)
		}
	}()

	if w.Source, err = sourceBranch(o, target, now); err != nil {
		return nil, err
	}
	if o.Strategy == inputs.StrategyHead {
		// One run at a time in a checkout: the commits since the start are then its own.
		if w.lock, err = lockCheckout(top); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		w.Dir, w.wt = top, host
		return w, nil
	}
	w.Worktree = true

	prune(ctx, host, top, log)
	defer func() {
		if err != nil {
			w.discard(ctx)
		}
	}()
	if o.Strategy == inputs.StrategyMergeToHead {
		err = w.createTemp(gctx, top)
	} else {
		err = w.checkoutBranch(gctx, top)
	}
	if err != nil {
		return nil, err
	}
	if len(o.CopyToWorktree) > 0 {
		cctx, cancel := context.WithTimeout(ctx, copyTimeout)
		defer cancel()
		if err := copyPaths(cctx, top, w.Dir, o.CopyToWorktree, log); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
	}
	return w, nil
}

// Preview is the workspace Prepare would make for o, made without touching anything: no
// worktree, branch, lock, fetch or .git/info/exclude line. Dir is the host checkout's top level
// whatever the strategy, and Source the branch the agent would work on (for merge-to-head a
// temporary branch name like the one Prepare would pick). Only its fields are of use: the
// branch it names may not exist, and there is nothing to finish.
func Preview(ctx context.Context, env []string, o Options) (*Workspace, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	c, err := inspect(ctx, hostGit(env, o), o)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: c.top, Target: c.target, Strategy: o.Strategy, host: c.host, wt: c.host, log: slog.New(slog.DiscardHandler), config: o.GitConfig}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if w.Source, err = sourceBranch(o, c.target, now); err != nil {
		return nil, err
	}
	return w, nil
}

// sourceBranch names the branch the agent works on: the checked-out one in head mode, a new
// temporary one for merge-to-head, o.Branch for branch.
func sourceBranch(o Options, target string, now func() time.Time) (string, error) {
	switch o.Strategy {
	case inputs.StrategyMergeToHead:
		if o.TempBranch != "" {
			return o.TempBranch, nil
		}
		suffix, err := randomHex()
		if err != nil {
			return "", err
		}
		return tempBranch(o.Name, now(), suffix), nil
	case inputs.StrategyBranch:
		return o.Branch, nil
	}
	return target, nil
}

// fetchOrigin returns the default Options.Fetch: git fetch from origin in the host repository,
// as the user configured it. A repository without origin, or an origin without the branch, has
// nothing to follow.
func fetchOrigin(host git.Repo) func(ctx context.Context, branch string) (bool, error) {
	return func(ctx context.Context, branch string) (bool, error) {
		if _, ok, err := host.ConfigValue(ctx, "remote.origin.url"); err != nil || !ok {
			return false, err
		}
		ref := "refs/heads/" + branch
		out, err := host.Run(ctx, "ls-remote", "origin", ref)
		if err != nil {
			return false, fmt.Errorf("%w; check that origin is reachable and that your git credentials may read it", err)
		}
		// ls-remote matches the end of every ref name: only the exact ref counts.
		if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool { return strings.HasSuffix(l, "\t"+ref) }) {
			return false, nil
		}
		_, err = host.Run(ctx, "fetch", "--quiet", "--no-tags", "origin", "+"+ref+":refs/remotes/origin/"+branch)
		return err == nil, err
	}
}

// fetchPullOrigin returns the default Options.FetchPull: git fetch from origin in the host
// repository, as the user configured it, into refs/pull/<n>/head.
func fetchPullOrigin(host git.Repo) func(ctx context.Context, n int) (string, error) {
	return func(ctx context.Context, n int) (string, error) {
		ref := fmt.Sprintf("refs/pull/%d/head", n)
		if _, err := host.Run(ctx, "fetch", "--quiet", "--no-tags", "origin", "+"+ref+":"+ref); err != nil {
			return "", fmt.Errorf("fetch pull request #%d from origin: %w", n, err)
		}
		return host.Resolve(ctx, ref)
	}
}

// validate checks what reaches a command line as given: the branch names. The rest of Options
// comes from inputs.Config, whose rules inputs.Load enforces.
func (o Options) validate() error {
	if o.Strategy == inputs.StrategyBranch {
		if err := gitref.Check(o.Branch); err != nil {
			return fmt.Errorf("workspace: branch strategy: %w", err)
		}
	}
	if o.Strategy == inputs.StrategyMergeToHead && o.TempBranch != "" {
		if err := gitref.Check(o.TempBranch); err != nil {
			return fmt.Errorf("workspace: temporary branch: %w", err)
		}
	}
	return nil
}

// Top is the top level of the checkout the workspace belongs to: Dir, or the checkout a
// worktree was made from.
func (w *Workspace) Top() string { return w.host.Dir }

// Head returns the commit at the tip of the source branch (HEAD of Dir when there is no branch).
func (w *Workspace) Head(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	sha, err := w.wt.Resolve(ctx, w.tip())
	if err != nil {
		return "", fmt.Errorf("workspace: head of %s: %w", w.describe(), err)
	}
	return sha, nil
}

// Commits returns the commits on the source branch after base, oldest first: the agent's own
// commits, read from its branch before any merge, so neither merge commits nor host commits
// appear.
func (w *Workspace) Commits(ctx context.Context, base string) ([]gitref.Commit, error) {
	if base == "" {
		return nil, errors.New("workspace: commits: empty base commit")
	}
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	commits, err := w.wt.Log(ctx, base+".."+w.tip())
	if err != nil {
		return nil, fmt.Errorf("workspace: commits on %s since %s: %w", w.describe(), base, err)
	}
	return commits, nil
}

func (w *Workspace) tip() string {
	if w.Source == "" {
		return "HEAD"
	}
	return "refs/heads/" + w.Source
}

func (w *Workspace) describe() string {
	if w.Source == "" {
		return "detached HEAD"
	}
	return w.Source
}

// tempBranch names a merge-to-head branch: sandcastle/[<name>/]<YYYYMMDD-HHMMSS>-<hex6>, in
// local time so people recognise it.
func tempBranch(name string, t time.Time, suffix string) string {
	stamp := t.Format("20060102-150405") + "-" + suffix
	if n := slug(name); n != "" {
		return "sandcastle/" + n + "/" + stamp
	}
	return "sandcastle/" + stamp
}

// slug lower-cases s and turns every run of characters outside [a-z0-9] into one '-'.
func slug(s string) string {
	var b []byte
	dash := false
	for _, c := range []byte(s) {
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			dash = len(b) > 0
			continue
		}
		if dash {
			b = append(b, '-')
			dash = false
		}
		b = append(b, c)
	}
	return string(b)
}

func randomHex() (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("workspace: random branch suffix: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// managedRoot is where worktrees live, inside the host repository, at managedRel.
func managedRoot(top string) string { return filepath.Join(top, managedRel) }

const managedRel = ".sandcastle/worktrees"

func lockDir(top string) string { return filepath.Join(top, ".sandcastle", "locks") }

// missingDirs returns those of dirs that do not exist yet, parents first.
func missingDirs(dirs ...string) []string {
	var missing []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, d)
		}
	}
	return missing
}

// removeEmpty removes the directories that are empty, children first.
func removeEmpty(dirs []string) {
	for _, d := range slices.Backward(dirs) {
		os.Remove(d) // only ever an empty one
	}
}

// cleanupContext is for steps that must run even when the run was cancelled.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// discard undoes a failed Prepare: the worktree and branch it created, never a reused worktree
// or a branch that existed before.
func (w *Workspace) discard(ctx context.Context) {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	if w.createdWorktree {
		if _, err := w.host.Run(ctx, "worktree", "remove", "--force", w.Dir); err != nil {
			w.log.Warn("could not remove worktree; deleting its directory", "path", w.Dir, "err", err)
			if err := os.RemoveAll(w.Dir); err != nil {
				w.log.Warn("could not delete worktree directory", "path", w.Dir, "err", err)
			}
			_, _ = w.host.Run(ctx, "worktree", "prune")
		}
	}
	if w.createdBranch {
		if _, err := w.host.Run(ctx, "branch", "-D", w.Source); err != nil {
			w.log.Warn("could not delete branch", "branch", w.Source, "err", err)
		}
	}
	w.lock.release()
	w.lock = nil
}
