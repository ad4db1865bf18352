package push

import (
	"context"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// Run is what decides whether a run's branch is pushed: the push input, the branch strategy,
// whether the run is a GitHub Action, and where the commits are.
type Run struct {
	Push     inputs.PushMode
	Strategy inputs.BranchStrategy
	Actions  bool
	Branch   string // "" on a detached HEAD
	Commits  int
}

// Decide says how the branch holding the commits is pushed, or why it is not: "" and the
// reason, which says what to change.
func Decide(r Run) (mode inputs.PushMode, why string) {
	switch {
	case r.Push == inputs.PushNone:
		return "", "push is none"
	case r.Commits == 0:
		return "", "the run made no commits"
	case r.Branch == "":
		return "", "the commits are on a detached HEAD; check out a branch or use branch-strategy branch"
	case r.Strategy == inputs.StrategyMergeToHead:
		return "", "merge-to-head merged the commits into " + r.Branch + " on the runner; push it in a later step, or use branch-strategy branch"
	case r.Push == inputs.PushAuto && !r.Actions:
		return "", "push auto pushes only in GitHub Actions; use push force or lease"
	case r.Push == inputs.PushAuto && r.Strategy != inputs.StrategyBranch:
		return "", "push auto pushes only branch-strategy branch; use push lease to push the checked-out branch"
	}
	return r.Push, ""
}

// Lease is where a lease push expects the remote branch: where it was when the run started,
// the remote-tracking branch the checkout fetched, else known, the head of the event's pull
// request on that branch, as long as the run started from it or from a descendant of it. When
// the run started elsewhere, behind or beside the remote, the lease is the run's own start,
// which the remote does not have, so the push is refused and nobody's commits are overwritten.
// "" means the branch did not exist on the remote.
func Lease(ctx context.Context, g git.Repo, branch, start, known string) string {
	if branch == "" {
		return ""
	}
	remote, err := g.Resolve(ctx, "refs/remotes/origin/"+branch)
	if err != nil {
		remote = known
	}
	if remote == "" || remote == start {
		return remote
	}
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", remote, start); err != nil {
		return start
	}
	return remote
}
