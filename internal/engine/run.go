package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// Run runs the plan: it decides whether the event may start it, prepares the workspace and the
// sandbox, runs the hooks and the loop, reads the structured output, publishes the commits and
// reports. Whatever happens, the sandbox is stopped, the worktree is kept when it holds
// uncommitted work and the commits made so far are reported. The error, already reported, is
// why the run failed; a run that did its job returns nil, whether or not the agent signalled
// completion (see the Outcome's Status).
//
// Every way out goes through report, once: the steps only fill the outcome.
func Run(ctx context.Context, p Plan, d Deps) (o report.Outcome, err error) {
	e := newEngine(p, d)
	defer func() { err = e.report(ctx, &o, err) }()
	end := d.Reporter.Group("Trigger")
	decision, err := e.decide(ctx)
	end()
	if err != nil {
		return o, fmt.Errorf("checking who may start the run: %w", err)
	}
	if !decision.Run {
		e.refuse(decision, &o)
		return o, nil
	}
	e.begun = true
	e.labels(ctx, e.stateLabels().Start)
	e.acknowledge(ctx)
	e.startProgress(ctx)
	return o, e.work(ctx, &o)
}

// report ends every run, once: it sets the status and the failure from err, answers a refusal
// or finishes the progress comment, writes the outputs and the job summary, and moves the labels
// and the reaction of a run that started. It returns err, joined with a failure to write the
// outputs.
func (e *engine) report(ctx context.Context, o *report.Outcome, err error) error {
	if err != nil || o.Status == "" { // a refusal has its status already
		o.Status = statusOf(err, o.Signal, false)
	}
	if err != nil {
		o.Failure = err.Error()
		e.d.Reporter.Error(err.Error())
	}
	o.RunURL, o.CommentURL = e.p.RunURL, e.commentURL(o.CommentURL)
	cleanup, cancel := e.afterRun(ctx)
	defer cancel()
	if o.RefusalReason != "" {
		e.answerRefusal(cleanup, o)
	}
	if werr := e.d.Reporter.SetOutputs(*o); werr != nil {
		e.d.Reporter.Error(werr.Error())
		err = errors.Join(err, werr)
	} else if serr := e.d.Reporter.Summary(o.Summary()); serr != nil {
		e.d.Reporter.Warning(serr.Error())
	}
	if !e.begun {
		return err
	}
	if e.progress != nil {
		body := o.Comment()
		if e.p.Config.GitHub.Reply {
			body = o.Reply()
		}
		e.progress.Finish(ctx, body) // on a time of its own, which outlasts a rate limit
	}
	ok := o.Failure == ""
	e.labels(cleanup, func() ([]string, []string) { return e.stateLabels().Finish(ok) })
	e.answered(cleanup, ok)
	return err
}

// stateLabels are the labels that say where the run on an issue stands.
func (e *engine) stateLabels() event.Labels {
	g := e.p.Config.GitHub
	return event.Labels{Trigger: g.TriggerLabel, InProgress: g.InProgressLabel, Blocked: g.BlockedLabel}
}

// work prepares the workspace and the sandbox, runs the agent and publishes its commits,
// filling o. It returns why the run failed.
func (e *engine) work(ctx context.Context, o *report.Outcome) error {
	ctx, stop := e.runBudget(ctx)
	defer stop()
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
		log.Status("Run %s after %d iteration(s)", o.Status, len(o.Iterations))
	} else {
		log.Status("Run %s: %v", statusOf(runErr, o.Signal, false), runErr)
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
		Status:            statusOf(nil, res.Signal, res.Unverified), // report tells a failure's
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
		Verify:            cfg.VerifyCommand,
		Redact:            e.d.Reporter.Redactor().Redact,
		MaxCostUSD:        cfg.MaxCostUSD,
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
