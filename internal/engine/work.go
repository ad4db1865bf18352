package engine

import (
	"context"

	"fmt"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"io"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

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

// work prepares the workspace and the sandbox, runs the agent and publishes its commits,
// filling o. It returns why the run failed.
func (e *engine) work(ctx context.Context, o *report.Outcome) error {
	j, err := e.start(ctx)
	if err != nil {
		return cancelled(ctx, err)
	}
	defer j.closeLog()
	base, res, restored, runErr := e.loop(ctx, j.ws, j.log)
	done, finishErr := j.finish(runErr == nil)
	if runErr == nil && finishErr != nil {
		runErr = finishErr
	} else if finishErr != nil {
		j.log.Warning("%v", finishErr)
	}
	runErr = cancelled(ctx, runErr)
	if err := j.ws.HandBack(); err != nil {
		j.log.Warning("%v", err)
	}
	e.outcome(o, j.ws, done, base, res, j.logPath)
	o.RestoredGit = restored
	if res.Output != nil {
		_, skipped := report.FieldOutputs(res.Output.JSON)
		for _, name := range skipped {
			j.log.Status("No output for the structured output's field %q: the name is not usable as an output name or is taken", name)
		}
	}
	if runErr == nil {
		// What the agent asks of GitHub is done before publishing, on the run's own context: a
		// cancelled job does not go on writing.
		runErr = e.act(ctx, o, j.log)
	}
	runErr = e.publishAfterRun(ctx, o, j, runErr)
	e.logEnd(o, runErr, done, j.log)
	return runErr
}

// cancelled is err, as a CancelledError when the job was cancelled (ctx is done).
func cancelled(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return &CancelledError{Err: err}
	}
	return err
}

// job is a run under way: its workspace, its log, where a lease push expects the branch.
type job struct {
	ws       Workspace
	finish   func(ok bool) (Finished, error)
	logPath  string
	log      *report.Log
	closeLog func()
	lease    string
}

// start prepares the workspace, which is finished again when the run cannot go on, and opens
// the run log.
func (e *engine) start(ctx context.Context) (*job, error) {
	ws, err := e.d.Workspaces.Prepare(ctx)
	if err != nil {
		return nil, err
	}
	j := &job{ws: ws, closeLog: func() {}}
	// Every way out finishes the workspace, within its own time, which starts then: a run
	// longer than the cleanup time must not leave none.
	j.finish = func(ok bool) (Finished, error) {
		cleanup, cancel := e.afterRun(ctx)
		defer cancel()
		return ws.Finish(cleanup, ok)
	}
	// The worktree we just made must be the workspace owner's, whom the agent runs as.
	if err := ws.HandBack(); err != nil {
		e.d.Reporter.Warning(err.Error())
	}
	var file io.WriteCloser
	if j.logPath, file, err = e.openLog(ws); err != nil {
		j.finish(false)
		return nil, err
	}
	if file != nil {
		j.closeLog = func() { file.Close() }
	}
	j.log = e.d.Reporter.NewLog(file)
	j.log.Status("--- Run started: %s ---", time.Now().UTC().Format(time.RFC3339))
	if j.logPath != "" {
		e.d.Reporter.Info(fmt.Sprintf("Started on branch %s; log: %s", orDetached(ws.Source()), j.logPath))
	}
	if e.p.Config.GitHub.Push == inputs.PushLease {
		start, err := ws.Head(ctx)
		if err != nil {
			j.closeLog()
			j.finish(false)
			return nil, err
		}
		known := "" // where the event's pull request has the branch, when it is that one's
		if pr := prOf(e.p.Event); pr != nil && pr.HeadRef == ws.Source() && !pr.Fork {
			known = pr.HeadSHA
		}
		j.lease = e.d.Publisher.Lease(ctx, ws.Source(), start, known)
	}
	return j, nil
}

// publishAfterRun pushes and opens the pull request on a context of its own, which outlives a
// cancelled run: pushing is how the commits survive the runner. It returns why the run failed.
func (e *engine) publishAfterRun(ctx context.Context, o *report.Outcome, j *job, runErr error) error {
	end := e.d.Reporter.Group("Publish")
	defer end()
	pubCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	pubErr := e.publish(pubCtx, o, j.ws, j.lease, runErr == nil, j.log)
	switch {
	case pubErr != nil && runErr == nil:
		return pubErr
	case pubErr != nil:
		j.log.Warning("%v", pubErr)
	}
	return runErr
}

// logEnd says in the run log how the run ended, with the branch that keeps the commits of a
// failed one (a preserved worktree the workspace warns about itself); report says the rest.
func (e *engine) logEnd(o *report.Outcome, runErr error, done Finished, log *report.Log) {
	if runErr == nil {
		log.Status("Run %s after %d iteration(s)", statusOf(nil, o.Signal), len(o.Iterations))
	} else {
		log.Status("Run %s: %v", statusOf(runErr, o.Signal), runErr)
		if done.KeptBranch != "" {
			e.d.Reporter.Warning(fmt.Sprintf("the agent's commits were kept on branch %s", done.KeptBranch))
		}
	}
	if err := log.Err(); err != nil {
		e.d.Reporter.Warning(fmt.Sprintf("writing the log file: %v", err))
	}
}

// outcome fills o with what a finished run did. The branch is where the agent's commits are
// now: the source branch, the target after a merge, or the branch kept when a merge failed.
func (e *engine) outcome(o *report.Outcome, ws Workspace, done Finished, base string, res run.Result, logPath string) {
	cfg := e.p.Config
	*o = report.Outcome{
		MaxIterations:     cfg.MaxIterations,
		Signal:            res.Signal,
		Output:            res.Output,
		SessionID:         res.SessionID,
		SessionFile:       res.SessionFile,
		Final:             finalMessage(res.Final, cfg.CompletionSignals),
		Usage:             res.Usage,
		Commits:           res.Commits,
		Branch:            ws.Source(),
		BaseSHA:           base,
		HeadSHA:           base,
		PreservedWorktree: done.Preserved,
		GitGuarded:        e.guarded,
		LogFile:           logPath,
	}
	for _, it := range res.Iterations {
		o.Iterations = append(o.Iterations, report.Iteration{Number: it.Number, Signal: it.Signal, Usage: it.Usage})
	}
	switch {
	case done.Merged:
		o.Branch = ws.Target()
	case done.KeptBranch != "":
		o.Branch, o.Kept = done.KeptBranch, true
	}
	if n := len(res.Commits); n > 0 {
		o.HeadSHA = res.Commits[n-1].SHA
	}
	if done.MergeCommit != "" {
		o.HeadSHA = done.MergeCommit
	}
}

// finalMessage is the agent's final message without its completion signal.
func finalMessage(final string, signals []string) string {
	for _, s := range signals {
		final = strings.ReplaceAll(final, s, "")
	}
	return strings.TrimSpace(final)
}

// openLog opens the run log for appending: log-file, or by default a file under
// .sandcastle/logs/ named after the branch and the run. A log that cannot be opened is an
// input's problem, found once the run has started.
func (e *engine) openLog(ws Workspace) (string, io.WriteCloser, error) {
	path := logPath(e.p.Config, ws.Source(), ws.Target(), ws.Top())
	if path == "" {
		return "", nil, nil
	}
	f, err := e.d.OpenLog(ws.Top(), path)
	if err != nil {
		return "", nil, &inputs.RuntimeError{Input: inputs.InputLogFile, Err: err}
	}
	return path, f, nil
}

// loop starts the sandbox, runs the hooks and the agent in it. With a guarded sandbox it also
// returns the paths of the repository's git directory that the agent changed and that were put
// back.
func (e *engine) loop(ctx context.Context, ws Workspace, log *report.Log) (base string, res run.Result, restored []string, err error) {
	cfg := e.p.Config
	for _, w := range e.p.PromptWarnings {
		log.Warning("%s", w)
	}
	s, err := e.sandbox(ctx, ws, log, true)
	if err != nil {
		return "", res, nil, err
	}
	defer func() { restored, err = s.close(ctx, err) }()
	if err := run.SandboxReadyHooks(ctx, s.Sandbox, s.host, cfg.Hooks.SandboxReady, cfg.Hooks.HostSandboxReady, cfg.Hooks.Timeout); err != nil {
		return "", res, nil, err
	}
	var saver run.Saver
	if sessions := e.d.Sandboxes.Sessions(s.Sandbox, ws.Dir()); sessions != nil {
		saver = sessions
		if cfg.ResumeSession != "" {
			if err := sessions.Restore(ctx, cfg.ResumeSession); err != nil {
				return "", res, nil, err
			}
		}
	}
	if err := s.check(ctx); err != nil { // the sandbox's own hook ran in the repository too
		return "", res, nil, err
	}
	if base, err = ws.Head(ctx); err != nil {
		return "", res, nil, err
	}
	var onProgress func(run.Progress) // none without a comment to show it in
	if e.progress != nil {
		onProgress = e.showProgress
	}
	var guard func(context.Context) error
	if s.Guard != nil {
		guard = s.check
	}
	res, err = run.Loop(ctx, run.Config{
		Agent:     e.d.Agent,
		AgentName: cfg.Agent,
		Request: agent.Request{
			Model: cfg.Model, Effort: cfg.Effort, PermissionMode: cfg.PermissionMode,
			ResumeSession: cfg.ResumeSession, ForkSession: cfg.ForkSession,
		},
		Sessions:          saver,
		Prompt:            e.p.Prompt,
		Signals:           cfg.CompletionSignals,
		MaxIterations:     cfg.MaxIterations,
		IdleTimeout:       cfg.IdleTimeout,
		CompletionTimeout: cfg.CompletionTimeout,
		ShellTimeout:      cfg.ShellTimeout,
		Output:            e.p.Output,
		OutputRetries:     outputRetries(cfg),
		Verbose:           cfg.Verbose,
		Guard:             guard,
		Progress:          onProgress,
	}, s.Sandbox, s.repo, log)
	return base, res, nil, err
}

func outputRetries(cfg inputs.Config) int {
	if cfg.Output == nil {
		return 0
	}
	return cfg.Output.MaxRetries
}

func orDetached(branch string) string {
	if branch == "" {
		return "(detached HEAD)"
	}
	return branch
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
