package push_test

import (
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/push"
)

func TestDecide(t *testing.T) {
	commits := push.Run{Commits: 1, Branch: "work"}
	with := func(mode inputs.PushMode, strategy inputs.BranchStrategy, actions bool, r push.Run) push.Run {
		r.Push, r.Strategy, r.Actions = mode, strategy, actions
		return r
	}
	tests := []struct {
		name string
		run  push.Run
		want inputs.PushMode
	}{
		{"auto_branch_in_actions", with(inputs.PushAuto, inputs.StrategyBranch, true, commits), inputs.PushAuto},
		{"auto_branch_on_the_cli", with(inputs.PushAuto, inputs.StrategyBranch, false, commits), ""},
		{"auto_head", with(inputs.PushAuto, inputs.StrategyHead, true, commits), ""},
		{"lease_head", with(inputs.PushLease, inputs.StrategyHead, true, commits), inputs.PushLease},
		{"force_head_on_the_cli", with(inputs.PushForce, inputs.StrategyHead, false, commits), inputs.PushForce},
		{"none", with(inputs.PushNone, inputs.StrategyBranch, true, commits), ""},
		{"no_commits", with(inputs.PushForce, inputs.StrategyBranch, true, push.Run{Branch: "work"}), ""},
		{"detached", with(inputs.PushLease, inputs.StrategyHead, true, push.Run{Commits: 1}), ""},
		{"merge_to_head", with(inputs.PushForce, inputs.StrategyMergeToHead, true, commits), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode, why := push.Decide(tt.run)
			if mode != tt.want || (mode == "") == (why == "") {
				t.Errorf("Decide = %q, %q; want %q, and a reason exactly when nothing is pushed", mode, why, tt.want)
			}
		})
	}
}

// TestLease reads, with real git, where the remote branch was when the run started.
func TestLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	g := git.New(f.dir, f.env)
	behind := f.main // main's commit, an ancestor of agent
	f.git(f.dir, "update-ref", "refs/remotes/origin/agent", behind)
	beside := f.setRemoteBranch("other", f.main)
	f.git(f.dir, "fetch", "-q", f.remote, "other:refs/remotes/origin/other")
	tests := []struct {
		name, branch, start, known, want string
	}{
		{"detached", "", f.agent, "", ""},
		{"remote_has_the_start", "agent", behind, "", behind},
		{"started_ahead_of_the_remote", "agent", f.agent, "", behind},
		{"started_beside_the_remote", "other", f.agent, "", f.agent},
		{"not_on_the_remote", "new", f.agent, "", ""},
		{"not_fetched_but_known", "new", f.agent, behind, behind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := push.Lease(t.Context(), g, tt.branch, tt.start, tt.known); got != tt.want {
				t.Errorf("Lease(%q, %.7s, known %.7s) = %.7s, want %.7s (beside is %.7s)", tt.branch, tt.start, tt.known, got, tt.want, beside)
			}
		})
	}
}
