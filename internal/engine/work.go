package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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
	// Preview is the checkout as it is, with the branches Prepare would give it; there is
	// nothing to finish.
	Preview() Workspace
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
	// Synced is the workspace as copied into c: its commits come out before they are read.
	Synced(c Copier) Synced
}

// Finished is what finishing did with the worktree and the branch.
type Finished struct {
	Preserved   string // the worktree was kept because it has uncommitted changes
	MergeCommit string // merge-to-head: the merge commit, when it was no fast-forward
	KeptBranch  string // merge-to-head: the temporary branch was kept (the merge failed)
	Merged      bool   // merge-to-head: the agent's commits are now on Target
}

// Synced is a workspace copied into a sandbox.
type Synced interface {
	run.Repo
	// Finish brings out the last commits and warns about what stays uncommitted inside.
	Finish(ctx context.Context, warn func(format string, args ...any))
}

// Copier is a sandbox a workspace was copied into.
type Copier interface {
	Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error)
	CopyOut(ctx context.Context, path string, w io.Writer) error
}

// Sandboxes starts where the agent runs.
type Sandboxes interface {
	// Host runs processes on the host, in dir, with exactly env: the host's hooks, and the agent
	// with sandbox none.
	Host(dir string, env map[string]string) sandbox.Sandbox
	// Container starts the run's container on the workspace dir of the checkout top, having
	// taken the repository's git directory into the keeping of its Guard.
	Container(ctx context.Context, dir, top string, env map[string]string, log *report.Log) (Container, error)
	// Sessions carries the agent's sessions out of sb, whose workspace is dir on the host; nil
	// when the agent keeps none.
	Sessions(sb sandbox.Sandbox, dir string) Sessions
}

// Container is the run's Docker sandbox.
type Container interface {
	sandbox.Sandbox
	// Guard keeps the repository's git directory from the agent.
	Guard() GitGuard
	// Copied is the sandbox as a Copier when the workspace was copied in rather than mounted;
	// nil otherwise.
	Copied() Copier
	// Read says whether the sandbox was shown the repository's issue or pull request number
	// from GitHub (through the relay); false for every number without one.
	Read(number int) bool
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

// work prepares the workspace and the sandbox, runs the agent and publishes its commits. It
// returns the outcome, reported, and why the run failed.
func (e *engine) work(ctx context.Context) (report.Outcome, error) {
	ctx, stop := e.runBudget(ctx)
	defer stop()
	j, err := e.start(ctx)
	if err != nil {
		err = cancelled(ctx, err)
		// A run that fails before the agent starts still says so in its status output.
		e.d.Reporter.Error(err.Error())
		e.setOutputs(report.Outcome{Status: report.StatusFailed, CommentURL: e.commentURL()})
		return report.Outcome{Status: report.StatusFailed, Failure: err.Error()}, err
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
	o := e.outcome(j.ws, done, base, res, runErr, j.logPath)
	o.RestoredGit, o.CommentURL = restored, e.commentURL()
	if res.Output != nil {
		_, skipped := report.FieldOutputs(res.Output.JSON)
		for _, name := range skipped {
			j.log.Status("No output for the structured output's field %q: the name is not usable as an output name or is taken", name)
		}
	}
	if runErr == nil {
		// What the agent asks of GitHub is done before publishing, on the run's own context: a
		// cancelled job does not go on writing.
		if err := e.act(ctx, &o, j.log); err != nil {
			runErr = err
			o.Status = report.StatusFailed
		}
	}
	runErr = e.publishing(ctx, &o, j, runErr)
	return e.end(o, runErr, done, j.log)
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
	e.d.Publisher.Origin(ctx)
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

// publishing pushes and opens the pull request on a context of its own, which outlives a
// cancelled run: pushing is how the commits survive the runner. It returns why the run failed.
func (e *engine) publishing(ctx context.Context, o *report.Outcome, j *job, runErr error) error {
	end := e.d.Reporter.Group("Publish")
	defer end()
	pubCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	pubErr := e.publish(pubCtx, o, j.ws, j.lease, runErr == nil, j.log)
	switch {
	case pubErr != nil && runErr == nil:
		o.Status = statusOf(pubErr, o.Signal, false)
		return pubErr
	case pubErr != nil:
		j.log.Warning("%v", pubErr)
	}
	return runErr
}

// end says how the run ended and reports its outcome.
func (e *engine) end(o report.Outcome, runErr error, done Finished, log *report.Log) (report.Outcome, error) {
	e.told(o, runErr, done, log)
	if runErr != nil {
		o.Failure = runErr.Error()
	}
	if err := e.d.Reporter.SetOutputs(o); err != nil {
		e.d.Reporter.Error(err.Error())
		return o, errors.Join(runErr, err)
	}
	e.summary(o)
	if err := log.Err(); err != nil {
		e.d.Reporter.Warning(fmt.Sprintf("writing the log file: %v", err))
	}
	return o, runErr
}

// told says how the run ended: in the log, and for a failure as an error annotation, with
// the branch that keeps the commits (a preserved worktree the workspace warns about itself).
func (e *engine) told(o report.Outcome, runErr error, done Finished, log *report.Log) {
	if runErr == nil {
		log.Status("Run %s after %d iteration(s)", o.Status, len(o.Iterations))
		return
	}
	log.Status("Run %s: %v", o.Status, runErr)
	e.d.Reporter.Error(runErr.Error())
	if done.KeptBranch != "" {
		e.d.Reporter.Warning(fmt.Sprintf("the agent's commits were kept on branch %s", done.KeptBranch))
	}
}

// outcome is what a finished run did. The branch is where the agent's commits are now: the
// source branch, the target after a merge, or the branch kept when a merge failed.
func (e *engine) outcome(ws Workspace, done Finished, base string, res run.Result, runErr error, logPath string) report.Outcome {
	cfg := e.p.Config
	o := report.Outcome{
		Status:            statusOf(runErr, res.Signal, res.Unverified),
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
		GitGuarded:        cfg.Sandbox == inputs.SandboxDocker,
		LogFile:           logPath,
		RunURL:            e.p.RunURL,
	}
	for _, it := range res.Iterations {
		o.Iterations = append(o.Iterations, report.Iteration{Number: it.Number, Signal: it.Signal, Verify: verifyOf(it.Verify), Usage: it.Usage})
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
	return o
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

// loop starts the sandbox, runs the hooks and the agent in it. With a Docker sandbox it also
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
	if err := run.SandboxReadyHooks(ctx, s.sb, s.host, cfg.Hooks.SandboxReady, cfg.Hooks.HostSandboxReady, cfg.Hooks.Timeout); err != nil {
		return "", res, nil, err
	}
	var saver run.Saver
	if sessions := e.d.Sandboxes.Sessions(s.sb, ws.Dir()); sessions != nil {
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
	if s.guard != nil {
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
		Verify:            cfg.VerifyCommand,
		Redact:            e.d.Reporter.Redactor().Redact,
		MaxCostUSD:        cfg.MaxCostUSD,
		Verbose:           cfg.Verbose,
		Guard:             guard,
		Progress:          onProgress,
	}, s.sb, s.repo, log)
	return base, res, nil, err
}

func outputRetries(cfg inputs.Config) int {
	if cfg.Output == nil {
		return 0
	}
	return cfg.Output.MaxRetries
}

// started is the sandbox of a run, with what goes with it.
type started struct {
	e      *engine
	host   sandbox.Sandbox // the host, for the host's hooks
	sb     sandbox.Sandbox // where the agent runs: the host, or the container
	repo   run.Repo        // where the loop reads the commits
	synced Synced          // the copied workspace; nil when mounted or on the host
	guard  GitGuard        // nil on the host
	log    *report.Log

	restored []string // sorted, each once
}

// sandbox starts where the agent runs: the host, after the hook worktree-ready when hooks is set,
// or the container, once that hook is done so that what it set up is kept.
func (e *engine) sandbox(ctx context.Context, ws Workspace, log *report.Log, hooks bool) (*started, error) {
	cfg := e.p.Config
	vars, err := ws.AgentEnv(ctx, e.p.Env)
	if err != nil {
		return nil, err
	}
	s := &started{e: e, host: e.d.Sandboxes.Host(ws.Dir(), vars), repo: ws, log: log}
	s.sb = s.host
	if hooks {
		if err := run.Hooks(ctx, s.host, "hook worktree-ready", cfg.Hooks.WorktreeReady, cfg.Hooks.Timeout, false); err != nil {
			s.closeHost(ctx)
			return nil, err
		}
	}
	if cfg.Sandbox != inputs.SandboxDocker {
		// On the host the agent runs beside the token, with nothing between it and GitHub: no
		// relay sees what it reads, and keeping a triage to the issues it read would keep nothing.
		e.read = func(int) bool { return true }
		return s, nil
	}
	c, err := e.d.Sandboxes.Container(ctx, ws.Dir(), ws.Top(), vars, log)
	if err != nil {
		s.closeHost(ctx)
		return nil, err
	}
	s.sb, s.guard = c, c.Guard()
	e.read = c.Read
	if copier := c.Copied(); copier != nil {
		s.synced = ws.Synced(copier)
		s.repo = s.synced
	}
	return s, nil
}

// check puts back what the agent changed in the git directory so far; nothing on the host.
func (s *started) check(context.Context) error {
	if s.guard == nil {
		return nil
	}
	changes, err := s.guard.Check()
	s.note(changes)
	return err
}

// close stops the sandbox on every path, a cancelled run included, within its own deadline:
// the last commits brought out of a copied workspace first, the git directory checked a last
// time and its mount targets removed once the container is gone. A failure of the guard joins
// err: the repository may still hold what the agent planted.
func (s *started) close(ctx context.Context, err error) ([]string, error) {
	cctx, cancel := s.e.afterRun(ctx)
	defer cancel()
	if s.synced != nil {
		s.synced.Finish(cctx, s.log.Warning) // the container must still be there
	}
	if s.sb != s.host {
		if cerr := s.sb.Close(cctx); cerr != nil {
			s.log.Warning("stopping the sandbox: %v", cerr)
		}
	}
	s.closeHost(ctx)
	if s.guard != nil {
		changes, gerr := s.guard.Close(cctx)
		s.note(changes)
		err = errors.Join(err, gerr)
	}
	return s.restored, err
}

func (s *started) closeHost(ctx context.Context) {
	cctx, cancel := s.e.afterRun(ctx)
	defer cancel()
	if err := s.host.Close(cctx); err != nil {
		s.log.Warning("stopping the sandbox: %v", err)
	}
}

// note warns about what the agent changed in the git directory, and keeps the paths for the
// outputs and the summary.
func (s *started) note(changes []Change) {
	if len(changes) == 0 {
		return
	}
	what := make([]string, len(changes))
	for i, c := range changes {
		what[i] = c.Path + " (" + c.What + ")"
		if !slices.Contains(s.restored, c.Path) {
			s.restored = append(s.restored, c.Path)
		}
	}
	slices.Sort(s.restored)
	s.log.Warning("the agent changed what decides which programs git runs on this machine (files of the repository's git directory, or a repository it nested in the working tree); each was put back as it was, or moved out of the working tree: %s", strings.Join(what, ", "))
}

func orDetached(branch string) string {
	if branch == "" {
		return "(detached HEAD)"
	}
	return branch
}
