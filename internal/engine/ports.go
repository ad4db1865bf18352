package engine

import (
	"context"
	"io"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// The engine's ports: every interface it runs on, declared in this one file with the values
// that cross them. Deps are the run's, Checks preflight's; app builds the adapters and checks at
// compile time that each fits.

// Deps are the adapters the engine runs on. GitHub and Progress are nil when the run has no API
// to talk to.
type Deps struct {
	Reporter   Reporter
	GitHub     GitHub
	Progress   Progress
	Workspaces Workspaces
	Sandboxes  Sandboxes
	Publisher  Publisher
	// Outputs carries out what a review or triage run's output asks; nil without an API.
	Outputs Outputs
	Agent   run.Agent
	// OpenLog opens the run log for appending, creating its directory; a path inside the
	// checkout top never through a link.
	OpenLog func(top, path string) (io.WriteCloser, error)
}

// Reporter is the job's log, outputs and summary.
type Reporter interface {
	Info(msg string)
	Warning(msg string)
	Error(msg string)
	Group(title string) (end func())
	SetOutputs(o report.Outcome) error
	Summary(markdown string) error
	// NewLog is a run log writing to file (nil: none) and the job log.
	NewLog(file io.Writer) *report.Log
	Redactor() *report.Redactor
}

// GitHub is the repository through its API, and the issue or pull request the run reports on.
type GitHub interface {
	event.Permissions
	// Ours reports whether the action wrote body.
	Ours(body string) bool
	// Labels takes labels off the issue and puts others on.
	Labels(ctx context.Context, add, remove []string) error
	// Answer posts body in answer to an event that may not start a run.
	Answer(ctx context.Context, body string) (url string, err error)
	// React puts the reaction content on the comment that started the run and returns its id;
	// 0 when no comment started it.
	React(ctx context.Context, content string) (id int64, err error)
	// Unreact takes reaction id, one React made, off that comment.
	Unreact(ctx context.Context, id int64) error
}

// Progress is the comment that follows the run on its issue or pull request.
type Progress interface {
	// Start posts the comment with body, or takes over an earlier run's.
	Start(ctx context.Context, body string) error
	// Show asks for body to be shown; it never blocks.
	Show(body string)
	// Finish writes body, how the run ended, even when ctx is cancelled.
	Finish(ctx context.Context, body string)
	URL() string
}

// Workspaces prepares where the agent works (package workspace).
type Workspaces interface {
	// Prepare makes the workspace: the checkout, or a worktree on the run's branch.
	Prepare(ctx context.Context) (Workspace, error)
}

// Workspace is where the agent works, and what became of it.
type Workspace interface {
	run.Repo
	Dir() string    // the host path the agent works in
	Source() string // the branch the agent commits on; "" on a detached HEAD
	Target() string // the checkout's branch when the run started; "" when detached
	Top() string    // the checkout's top level
	// Finish ends the workspace: a merge for merge-to-head, the worktree removed unless it
	// holds uncommitted work. ok says the run did its job.
	Finish(ctx context.Context, ok bool) (Finished, error)
	// AgentEnv is base with what the agent's git needs: the run's git settings and, where the
	// repository has none, a commit identity.
	AgentEnv(ctx context.Context, base map[string]string) (map[string]string, error)
	// HandBack gives what the run wrote as root in the checkout to its owner.
	HandBack() error
}

// Finished is what finishing did with the worktree and the branch.
type Finished struct {
	Preserved   string // the worktree was kept because it has uncommitted changes
	MergeCommit string // merge-to-head: the merge commit, when it was no fast-forward
	KeptBranch  string // merge-to-head: the temporary branch was kept (the merge failed)
	Merged      bool   // merge-to-head: the agent's commits are now on Target
}

// Sandboxes starts where the agent runs.
type Sandboxes interface {
	// Host runs processes on the host, in dir, with exactly env: the host's hooks.
	Host(dir string, env map[string]string) sandbox.Sandbox
	// Start starts where the agent runs on workspace ws, with env: the host, or a sandbox of the
	// kind the inputs chose, which took the repository's git directory into the keeping of its
	// Guard.
	Start(ctx context.Context, ws Workspace, env map[string]string, log *report.Log) (Started, error)
	// Sessions carries the agent's sessions out of sb, whose workspace is dir on the host; nil
	// when the agent keeps none.
	Sessions(sb sandbox.Sandbox, dir string) Sessions
}

// Started is where the agent runs, with what the engine needs of it, whatever its kind.
type Started struct {
	Sandbox sandbox.Sandbox
	// Repo is where the loop reads the agent's commits; nil: the workspace itself. A workspace
	// copied into the sandbox has its commits brought out before they are read.
	Repo run.Repo
	// Guard keeps the repository's git directory from the agent; nil when nothing does (the
	// agent runs on the host, beside it).
	Guard GitGuard
	// Read says whether the sandbox was shown the repository's issue or pull request number from
	// GitHub, which a triage may then act on; nil: none.
	Read func(number int) bool
	// Finish brings out what must leave the sandbox before it stops (a copied workspace's last
	// commits), warning through the run log about what cannot; nil: nothing.
	Finish func(ctx context.Context)
}

// GitGuard puts back what the agent changed in the repository's git directory that decides
// what git on the host runs (package gitguard).
type GitGuard interface {
	// Check puts back what the agent changed so far, and says what.
	Check() ([]Change, error)
	// Close checks a last time, once nothing can write the repository any more, and removes
	// what the sandbox needed.
	Close(ctx context.Context) ([]Change, error)
}

// Change is one path of the git directory the agent changed, and how.
type Change struct {
	Path, What string
}

// Sessions carries the agent's sessions between the sandbox and the host.
type Sessions interface {
	run.Saver
	// Restore carries session id from the host into the sandbox.
	Restore(ctx context.Context, id string) error
}

// Publisher puts the run's branch on GitHub (package push) and opens its pull request.
type Publisher interface {
	// Lease is where a lease push expects the remote branch, read when the run starts from
	// start on branch; known is where the event's pull request says the branch is, "" when the
	// event is about no pull request from it.
	Lease(ctx context.Context, branch, start, known string) string
	// Push pushes the branch as the push input says, or says why it does not.
	Push(ctx context.Context, p Push) (Pushed, error)
	// UpsertPR opens the pull request, or updates the one an earlier run opened.
	UpsertPR(ctx context.Context, pr PR) (OpenedPR, error)
}

// Push is what to push.
type Push struct {
	Branch   string // "" on a detached HEAD
	Commits  int    // the agent's
	Since    string // the run's base, which the remote has
	Lease    string // for a lease push
	Recovery string // the branch that takes the commits when Branch moved, or was refused
	Bundle   string // the file that keeps them when they reach no branch on GitHub
	Top      string // the checkout, which Bundle lies in
}

// Pushed is what pushing did.
type Pushed struct {
	Declined string // why nothing was pushed, by the push input or the run's shape; "" when tried
	Pushed   bool   // the remote branch has the commits now
	SHA      string // the commit pushed
	Recovery string // the commits went to this branch instead
	Skipped  string // why a push that was tried pushed nothing: the remote already had it
}

// PR is the pull request to open or update.
type PR struct {
	Head, Base  string
	Title, Body string
	Draft       bool
}

// OpenedPR is the pull request opened or updated.
type OpenedPR struct {
	Number       int
	URL          string
	Created      bool
	DraftRefused bool // the repository has no drafts: it was opened ready for review
	Adopted      bool // someone else opened it from the branch: their text is kept
}

// BranchMoved is the error of a push that found the remote branch moved: the commits went to a
// recovery branch. The publisher's error declares it (app checks that push.BranchMovedError
// does, at compile time), and statusOf reads it.
type BranchMoved interface {
	error
	BranchMoved() bool
}

// Outputs carries out on GitHub what a review or triage run's structured output asks
// (package githubapi), with the run's token: the agent only asks.
type Outputs interface {
	// TriageIssue is what the host knows of an issue an entry names.
	TriageIssue(ctx context.Context, number int, triagedLabel string) (triage.Issue, error)
	// Triage carries out one planned action.
	Triage(ctx context.Context, a triage.Action) error
	// PRFiles are the files the pull request changes, with their patches.
	PRFiles(ctx context.Context, number int) ([]review.File, error)
	// ReviewTexts are the bodies of the pull request's reviews and review comments.
	ReviewTexts(ctx context.Context, number int) ([]string, error)
	// PostReview posts one review, event COMMENT; Unprocessable says GitHub refused a comment
	// on a line outside the diff.
	PostReview(ctx context.Context, number int, commit, body string, comments []review.Inline) (url string, err error)
	Unprocessable(err error) bool
}

// Checks are what preflight asks of the machine and of GitHub, changing nothing. Each problem
// they find is an *inputs.Problem; any other error means the check itself could not be made.
type Checks struct {
	Repository Repository
	PRs        PRLookup // nil without an API to ask
	Checkout   Checkout
	Sandbox    SandboxCheck
	Sessions   SessionFinder // nil when the agent keeps no sessions there
}

// Repository previews the checkout the inputs name (package workspace).
type Repository interface {
	// Preview checks, changing nothing, that the checkout holds a repository the branch
	// strategy of cfg can work in, for a run on pull request pr's own branch when pr is set, and
	// names the branches the workspace will have; there is nothing to finish.
	Preview(ctx context.Context, cfg inputs.Config, pr *event.PR) (Workspace, error)
}

// PRLookup reads a pull request as it is now (package githubapi).
type PRLookup interface {
	PullRequest(ctx context.Context, number int) (*event.PR, error)
}

// Checkout reads the checkout's git configuration before the agent could change it.
type Checkout interface {
	// PersistedTokens names the configuration keys that keep a token, as actions/checkout
	// leaves them unless told otherwise.
	PersistedTokens(ctx context.Context) ([]string, error)
	// Origin is origin's URL, for pushes with the token, when it is on the GitHub server; "" when not.
	Origin(ctx context.Context) string
}

// SandboxCheck is what preflight asks of the sandbox the inputs chose.
type SandboxCheck interface {
	// Check says what the sandbox lacks to start (a user to run the agent as, say); nil when
	// nothing.
	Check() error
	// OnHost says the agent runs on the host: its program must be on the host's PATH, and it may
	// use the host's login. Apart from the host it needs a credential from the environment.
	OnHost() bool
}

// SessionFinder finds an agent session saved on this machine.
type SessionFinder interface {
	Find(id string) error
}
