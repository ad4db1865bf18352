package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// Status is how a run ended: the value of the status output, which action.yml documents.
type Status string

// The statuses.
const (
	StatusComplete    Status = "complete"     // the agent printed a completion signal
	StatusIncomplete  Status = "incomplete"   // max-iterations ran out without one
	StatusFailed      Status = "failed"       // the run could not do its job
	StatusCancelled   Status = "cancelled"    // the job was cancelled while the run went
	StatusRefused     Status = "refused"      // the event asked for a run its author may not start
	StatusSkipped     Status = "skipped"      // the event was not addressed to the action
	StatusBranchMoved Status = "branch-moved" // the remote branch moved: the commits went to RecoveryBranch
	// StatusUnverified: max-iterations ran out with verify-command failing after the last.
	StatusUnverified Status = "unverified"
	// StatusBudgetExhausted: a budget (the timeouts keys run-minutes, max-cost-usd) stopped the
	// run, which kept its commits; Failure names the budget.
	StatusBudgetExhausted Status = "budget-exhausted"
)

// Statuses are every status a run can end with.
func Statuses() []Status {
	return []Status{StatusComplete, StatusIncomplete, StatusFailed, StatusCancelled, StatusRefused, StatusSkipped, StatusBranchMoved,
		StatusUnverified, StatusBudgetExhausted}
}

// Check refuses a status the program does not emit: workflows branch on the status output, and
// one they were never told of must not reach them.
func (s Status) Check() error {
	if !slices.Contains(Statuses(), s) {
		return fmt.Errorf("status %q is none of %v", s, Statuses())
	}
	return nil
}

// Outcome is what a run did, as one value. The step outputs (Pairs), the job summary (Summary)
// and the progress comment (Comment) are all rendered from it, so that a field cannot reach one
// and miss another by accident; the few fields a rendering leaves out, it leaves out on purpose
// (TestOutcomeFieldsReachTheirRenderings lists them and why).
type Outcome struct {
	Status Status
	// Failure is why a failed or cancelled run ended: the error, as the job log shows it; "" when
	// the run did its job.
	Failure string
	// RefusalReason is why the run did not start (status refused or skipped).
	RefusalReason string

	// Iterations are the agent's invocations, structured-output retries included.
	Iterations    []Iteration
	MaxIterations int
	Signal        string // the completion signal that ended the loop; "" when none
	// Output is the structured output read from output-tag; nil when none.
	Output      *structured.Value
	SessionID   string // the session of the last iteration, for resuming it
	SessionFile string // where that session was saved on the host
	// Final is the agent's final message without its completion signal: the pull request's
	// SUMMARY.
	Final string
	agent.Usage

	Commits []gitref.Commit // the agent's, oldest first
	// Branch is where the commits are: the branch the agent worked on, the branch it was merged
	// into, or (Kept) merge-to-head's temporary branch, kept on the runner because the merge
	// failed.
	Branch            string
	Kept              bool
	BaseSHA           string // the commit the run started from
	HeadSHA           string // the tip of Branch after the run
	PreservedWorktree string // a worktree kept for its uncommitted changes
	// GitGuarded says the repository's git directory was kept from the agent (a Docker
	// sandbox); RestoredGit lists what the agent changed there and the run put back.
	GitGuarded  bool
	RestoredGit []string

	Pushed bool
	// BranchURL is Branch's page in this repository, which the comment links, once the run
	// pushed to that branch of its own in place of the pull request's head branch (a fork's, or
	// the repository's default branch); "" otherwise.
	BranchURL      string
	RecoveryBranch string // the remote branch that took the commits instead of Branch
	PRNumber       int    // 0 when no pull request was opened or updated
	PRURL          string
	PRNote         string // what the comment adds about the pull request: why it is no draft, whose it is
	CommentURL     string // the progress comment

	// Review is what a review run posted; nil for other runs.
	Review *Review
	// Actions are what a triage run did, refused or failed to do.
	Actions []triage.Action
	// Plan is the checked plan of a plan run, whose tasks the matrix output holds; nil for other
	// runs.
	Plan *fanout.Plan

	LogFile string // the run log; "" when logging to standard output only
	RunURL  string // the workflow run, for its logs
}

// Iteration is one agent invocation.
type Iteration struct {
	Number int
	Signal string // the completion signal seen in this iteration; "" when none
	Verify Verify // how verify-command ended after it
	agent.Usage
}

// Verify is how verify-command ended after an iteration.
type Verify string

// The ends of verify-command; VerifyNone when it did not run.
const (
	VerifyNone   Verify = ""
	VerifyPassed Verify = "passed"
	VerifyFailed Verify = "failed"
)

// verified is the verified output: whether verify-command passed after the last iteration it
// ran after, "true" or "false"; "" when it never ran.
func (o Outcome) verified() string {
	for _, it := range slices.Backward(o.Iterations) {
		if it.Verify != VerifyNone {
			return strconv.FormatBool(it.Verify == VerifyPassed)
		}
	}
	return ""
}

// costKnown says whether a cost was reported: agents that price nothing report none, or 0.
func costKnown(u agent.Usage) bool { return u.CostUSD > 0 }

// Progress is where a run that is still working stands, as the progress comment shows it.
type Progress struct {
	Iteration     int // the iteration under way; 0 while the run starts
	MaxIterations int
	Commits       int    // made so far
	LastTool      string // the latest tool call, as the log shows it: agent text
	RunURL        string
}
