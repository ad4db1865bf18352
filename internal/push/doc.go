// Package push publishes the agent's branch to the remote from the host side, by mode: auto (a
// fast-forward push), force or lease (force only if the remote branch is still where it was
// when the run started). Whether to push at all is the caller's decision.
//
// A branch that moved on the remote is never overwritten by auto or lease: the commits go to a
// new recovery branch instead and the error is a *BranchMovedError naming it. A branch the
// server's rules refuse is a *RejectedError naming the rule, and its commits go to the recovery
// branch too unless the rule is about the commits themselves. Commits that reach no remote
// branch at all are kept in a git bundle when the caller names one. The local branch is never
// changed, so a failed push loses nothing. A shallow repository (a depth-1 checkout) pushes and
// fetches like a complete one: its shallow boundary goes into the scratch repository too.
//
// The token reaches git only through the environment of the git commands run here (an
// http.<server>/.extraheader passed by GIT_CONFIG_COUNT), scoped to the server URL: it is never
// written to .git/config, argv or a remote URL, and is removed from any error text. Because the
// agent could have edited the repository's config, with a token the remote must point at the
// server, and hooks, signing and credential helpers are switched off for the push.
package push
