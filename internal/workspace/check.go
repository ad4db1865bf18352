package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// Reason says why a repository cannot host a workspace.
type Reason int

// The reasons of a CheckError.
const (
	NotARepository        Reason = iota + 1 // RepoDir is in no git working tree
	NoCommits                               // HEAD has no commit yet: there is nothing to start from
	DetachedHead                            // merge-to-head needs a branch to merge into
	BranchCheckedOut                        // the branch is checked out in a worktree no run manages
	WorktreeOnOtherBranch                   // the managed worktree of the branch holds another branch
)

// CheckError means the repository, as it stands, cannot host the workspace the Options ask for;
// nothing was changed. Reason tells a caller which of its settings to name.
type CheckError struct {
	Reason Reason
	msg    string // what is wrong and how to put it right
}

func (e *CheckError) Error() string { return "workspace: " + e.msg }

// Problem words e as a problem of the input to change: working-directory for a checkout that
// cannot host a run at all (in Actions pointing at the checkout step the workflow may lack),
// branch-strategy for a detached HEAD, branch for the branch's worktrees.
func (e *CheckError) Problem(actions bool) *inputs.Problem {
	switch e.Reason {
	case NotARepository:
		hint := "; run sandcastle in a git repository, or name one with --working-directory"
		if actions {
			hint = "; the workflow may lack an actions/checkout step before this one, or working-directory may not name the checkout"
		}
		return &inputs.Problem{Input: inputs.InputWorkingDirectory, Message: e.msg + hint}
	case NoCommits:
		return &inputs.Problem{Input: inputs.InputWorkingDirectory, Message: e.msg}
	case DetachedHead:
		return &inputs.Problem{Input: inputs.InputBranchStrategy, Message: e.msg}
	default:
		return &inputs.Problem{Input: inputs.InputBranch, Message: e.msg}
	}
}

// hostGit is git in the host repository for o. Upstream tracking is never configured: nothing
// we create should write .git/config, where parallel runs would also race on config.lock.
func hostGit(env []string, o Options) git.Repo {
	return git.New(o.RepoDir, env).WithConfig(o.GitConfig...).
		WithConfig("branch.autoSetupMerge=false", "push.autoSetupRemote=false")
}

// checkout is what inspect learns of the host repository.
type checkout struct {
	host   git.Repo // git at the top level
	top    string   // the working tree's top level
	target string   // its branch; "" when HEAD is detached
}

// inspect reads the host repository and checks that it can host o, changing nothing.
func inspect(ctx context.Context, host git.Repo, o Options) (checkout, error) {
	top, err := host.TopLevel(ctx)
	if err != nil {
		if notRepository(err) {
			return checkout{}, &CheckError{Reason: NotARepository, msg: o.RepoDir + " is not in a git working tree"}
		}
		return checkout{}, fmt.Errorf("workspace: find the repository of %s: %w", o.RepoDir, err)
	}
	c := checkout{host: host.At(top), top: top}
	if c.target, err = c.host.CurrentBranch(ctx); err != nil {
		return checkout{}, fmt.Errorf("workspace: read current branch of %s: %w", top, err)
	}
	if _, err := c.host.Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); git.ExitCode(err) == 1 {
		return checkout{}, &CheckError{Reason: NoCommits, msg: fmt.Sprintf("the repository %s has no commits yet, so the agent has nothing to start from; commit something first", top)}
	} else if err != nil {
		return checkout{}, fmt.Errorf("workspace: read HEAD of %s: %w", top, err)
	}
	switch o.Strategy {
	case inputs.StrategyMergeToHead:
		if c.target == "" {
			return checkout{}, &CheckError{Reason: DetachedHead, msg: fmt.Sprintf("branch-strategy merge-to-head needs the host checkout on a branch to merge into, but HEAD in %s is detached; check out a branch, or use branch-strategy branch with a branch name", top)}
		}
	case inputs.StrategyBranch:
		list, err := c.host.WorktreeList(ctx)
		if err != nil {
			return checkout{}, fmt.Errorf("workspace: list worktrees of %s: %w", top, err)
		}
		if _, err := worktreeFor(list, o.Branch, top); err != nil {
			return checkout{}, err
		}
	}
	return c, nil
}

// notRepository reports whether git failed because the directory is in no working tree (none at
// all, or a bare repository).
func notRepository(err error) bool {
	var ge *git.Error
	return errors.As(err, &ge) && ge.ExitCode == 128 &&
		(strings.Contains(ge.Stderr, "not a git repository") || strings.Contains(ge.Stderr, "must be run in a work tree"))
}

// worktreeFor returns the index in list of the worktree that holds branch or, failing that, of
// the managed directory meant for it (a managed worktree paused mid-rebase is detached but still
// ours); -1 when there is none. A branch checked out in a worktree that no run manages, or a
// managed worktree holding another branch, is a *CheckError.
func worktreeFor(list []git.Worktree, branch, top string) (int, error) {
	path := filepath.Join(managedRoot(top), dirName(branch))
	i := slices.IndexFunc(list, func(t git.Worktree) bool { return t.Branch == branch })
	if i < 0 {
		i = slices.IndexFunc(list, func(t git.Worktree) bool { return samePath(t.Path, path) })
	}
	if i < 0 {
		return -1, nil
	}
	t := list[i]
	if !under(t.Path, managedRoot(top)) {
		where := "worktree " + t.Path
		if i == 0 {
			where = "the main working tree " + t.Path
		}
		return -1, &CheckError{Reason: BranchCheckedOut, msg: fmt.Sprintf("branch %q is checked out in %s, and git allows a branch in only one worktree; choose another branch, or switch that checkout to another branch", branch, where)}
	}
	if t.Branch != "" && t.Branch != branch {
		return -1, &CheckError{Reason: WorktreeOnOtherBranch, msg: fmt.Sprintf("worktree %s, meant for branch %q, has branch %q checked out; remove it with: git worktree remove %s", t.Path, branch, t.Branch, t.Path)}
	}
	return i, nil
}
