// Package workspace prepares the checkout an agent works in, by branch strategy, and puts the
// result back: a git worktree per run under .sandcastle/worktrees, reuse of a branch's worktree,
// collection of the agent's commits, the merge back into the host branch, and preservation of
// uncommitted work.
//
// The strategies:
//
//   - head: the agent works in the host checkout itself; nothing is created or cleaned up but
//     the checkout's lock.
//   - merge-to-head: a worktree on a temporary branch sandcastle/[<name>/]<time>-<hex>, named once
//     here so every report shows the real branch. When the run succeeds the branch is merged into
//     the host branch the run started on (fast-forward when possible), then deleted.
//   - branch: a worktree on a named branch, created from origin/<branch> or HEAD when new and
//     reused when it already exists; it is never merged.
//
// Safety rules: a worktree whose state is unknown counts as dirty and is kept; a failed merge is
// aborted so the host checkout is never left mid-merge, and the branch is kept and named in the
// error; a failure inside Prepare removes what it created and nothing else, and a repository
// that cannot host the workspace (Check says why, as a *CheckError) is refused before anything
// is written. A lock file per worktree under .sandcastle/locks stops two runs from sharing one
// worktree and stops pruning from deleting a worktree another run is still creating; the
// checkout's own lock there keeps a head run alone in the checkout, and no merge-to-head run
// merges into it meanwhile, so the commits a run reports are its agent's.
//
// Preview names the workspace Prepare would make, branches included, without touching the
// repository at all.
//
// All git goes through package git; no config file is ever written.
package workspace
