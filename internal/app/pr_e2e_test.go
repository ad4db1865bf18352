package app

import "testing"

// Mode pr end to end with the real claude in the Docker sandbox (sandcastle-test:claude), the
// fake GitHub and the git HTTP remote, driven by the payloads GitHub sends; the lifecycle tests
// in pr_test.go run the same scenarios with the fake claude on the host.

// TestDockerPRComment: a comment on a pull request of the repository, the checkout main at
// depth 1: the agent's commit lands on the pull request's branch, pushed with a lease; when
// someone pushes to the branch while the agent works, the commit goes to a recovery branch and
// theirs stays.
func TestDockerPRComment(t *testing.T) {
	t.Run("pushed", func(t *testing.T) { prCommentRun(t, newDockerAction, false) })
	t.Run("branch_moved", func(t *testing.T) { prCommentRun(t, newDockerAction, true) })
}

// TestDockerForkPR: a comment on a fork's pull request is refused, nothing made; with
// allow-forks the commit goes to a branch of this repository, the reply links it, the fork is
// untouched.
func TestDockerForkPR(t *testing.T) {
	t.Run("refused", func(t *testing.T) { forkRefusedRun(t, newDockerAction) })
	t.Run("allowed", func(t *testing.T) { forkAllowedRun(t, newDockerAction) })
}

// TestDockerPRReviewComment: a review comment starts the run; the reply is in its thread, the
// reactions on it.
func TestDockerPRReviewComment(t *testing.T) { reviewCommentRun(t, newDockerAction) }
