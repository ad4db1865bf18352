package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/session"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// cleanupTimeout bounds the work done after a run ends or is cancelled: stopping the sandbox,
// merging and tidying the worktree, writing outputs.
const cleanupTimeout = 2 * time.Minute

// publishTimeout bounds pushing the branch and opening the pull request, after the run.
const publishTimeout = 10 * time.Minute

// afterRun is a context for work done once the run is over, which a cancelled job must not
// stop: it starts when called, so a long run does not use up its time.
func afterRun(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// plan is a validated run, ready to start.
type plan struct {
	cfg inputs.Config
	// names are the branches the run works on and starts from, as the workspace will have them.
	names *workspace.Workspace
	// prompt is the prompt, rendered once, when the branches are known: in preflight.
	prompt *prompt.Prompt
	// promptWarnings name the prompt-args keys the prompt does not use.
	promptWarnings []string
	agent          agent.Provider
	output         *structured.Spec
	env            agentEnv
	gitEnv         []string
	home           string // the user's HOME, where agent sessions are saved
	console        io.Writer
	gh             *hub
	red            *report.Redactor // the Reporter's, set by run
	// startBranch is the checkout's branch when the run started; "" when detached.
	startBranch string
	// cleanup bounds each step once the run is over (finishing the workspace, the comment and
	// the labels); cleanupTimeout but in tests.
	cleanup time.Duration
}

// execute runs one configuration and reports it, after warnings found while reading it.
func execute(ctx context.Context, sys System, raw inputs.Raw, workDir string, warnings ...string) int {
	rep := runner.New(sys.Stdout, sys.Getenv)
	for _, w := range warnings {
		rep.Warning(w)
	}
	p, code := preflight(ctx, sys, raw, workDir, rep)
	if p == nil {
		return code
	}
	return exitCode(p.run(ctx, rep))
}

// preflight validates a configuration and masks its secrets; on failure it reports why and
// returns the exit code.
//
// Validation runs on its own goroutine so that a signal ends it at once, whatever it waits
// on (git reading a configuration include, a file on a stuck mount): it creates nothing, so
// there is nothing to clean up, and the process is about to exit.
func preflight(ctx context.Context, sys System, raw inputs.Raw, workDir string, rep *runner.Reporter) (*plan, int) {
	type result struct {
		p   *plan
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := validate(ctx, sys, raw, workDir)
		done <- result{p, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		rep.Error(fmt.Sprintf("cancelled while checking the inputs (%v); nothing was started", context.Cause(ctx)))
		return nil, exitFailed
	}
	if r.err != nil {
		for _, e := range unjoin(r.err) {
			rep.Error(e.Error())
		}
		return nil, exitCode(r.err)
	}
	for _, s := range r.p.env.secrets {
		rep.Mask(s)
	}
	rep.Mask(r.p.gh.token)
	return r.p, exitOK
}

// validate checks everything that can be checked before anything is created on disk. Each
// problem of the inputs, and of the repository and environment they name, is an
// *inputs.Problem; any other error means the check itself could not be made.
func validate(ctx context.Context, sys System, raw inputs.Raw, workDir string) (*plan, error) {
	cfg, err := inputs.Load(raw, inputs.Env{
		WorkDir:   workDir,
		ReadFile:  readRegular,
		Stat:      os.Stat,
		Agents:    agentInfos(),
		Sandboxes: sandboxes,
		Home:      sys.Getenv("HOME"),
	})
	if err != nil {
		return nil, err
	}
	p := &plan{cfg: cfg, console: sys.Stdout, home: sys.Getenv("HOME"), cleanup: cleanupTimeout}
	for _, k := range hostBase {
		if v := sys.Getenv(k); v != "" {
			p.gitEnv = append(p.gitEnv, k+"="+v)
		}
	}
	var errs []error
	if err := p.checkRepository(ctx, sys.Getenv("GITHUB_ACTIONS") == "true"); err != nil {
		errs = append(errs, err)
	}
	p.gh, err = newHub(sys.Getenv, cfg)
	if err != nil {
		errs = append(errs, err)
	}
	eventArgs := p.gh.eventArgs()
	if p.gh.eventUnread {
		// The event's own problem is reported; its keys get stand-ins so that it is not reported
		// again as every placeholder that names them.
		eventArgs = standIns(event.ArgNames())
	}
	if cfg.GitHub.OpenPR {
		// The keys known only at the end get stand-ins, so a misspelt one fails now.
		vals := prKeys(eventArgs)
		if _, _, err := renderPR(cfg.GitHub, vals, ""); err != nil {
			errs = append(errs, err)
		}
		onPR := p.gh.event != nil && p.gh.event.PR != nil
		if cfg.GitHub.PRBase == "" && cfg.BranchStrategy == inputs.StrategyHead && !onPR {
			errs = append(errs, &inputs.Problem{Input: inputs.InputPRBase, Message: "with branch-strategy head the pull request would merge the checked-out branch into itself; set pr-base to the branch it merges into"})
		}
	}
	if p.agent, err = agent.Lookup(cfg.Agent); err != nil {
		errs = append(errs, err)
	}
	if o := cfg.Output; o != nil {
		spec := &structured.Spec{Tag: o.Tag, Kind: structured.Kind(o.Type)}
		if o.Schema != nil {
			if spec.Schema, err = structured.CompileSchema(o.Schema); err != nil {
				errs = append(errs, &inputs.Problem{Input: inputs.InputOutputSchema, Message: err.Error()})
			}
		}
		p.output = spec
	}
	// The prompt is parsed and rendered once, now that the branches are known, so a command
	// that does not close, a missing {{KEY}}, a value no command can take or a missing output
	// tag fails before a worktree exists.
	if pr, err := p.renderPrompt(eventArgs); err != nil {
		errs = append(errs, err)
	} else {
		p.prompt = pr
		if o := cfg.Output; o != nil && !strings.Contains(pr.Text(), "<"+o.Tag+">") {
			errs = append(errs, &inputs.Problem{Input: inputs.InputOutputTag, Message: fmt.Sprintf("the prompt never mentions <%s>; tell the agent to answer inside <%s>...</%s>", o.Tag, o.Tag, o.Tag)})
		}
		// Only the literal text is known now; a prompt that its commands make too long fails
		// when the agent starts.
		if max := p.agentMaxPrompt(); max > 0 && pr.LiteralLen() > max {
			errs = append(errs, &inputs.Problem{Input: promptInput(cfg), Message: (&agent.PromptTooLongError{Agent: cfg.Agent, Size: pr.LiteralLen(), Max: max}).Error()})
		}
	}
	var names []string
	if p.agent != nil {
		names = p.agent.EnvNames()
	}
	if p.env, err = resolveEnv(sys.Getenv, cfg.EnvNames, cfg.EnvFileValues, names); err != nil {
		errs = append(errs, err)
	}
	for _, k := range slices.Sorted(maps.Keys(p.env.vars)) {
		if t := p.gh.token; t != "" && p.env.vars[k] == t {
			errs = append(errs, &inputs.Problem{Input: inputs.InputEnv, Message: k + " carries the GitHub token (github-token), which never enters the sandbox; remove it from env and env-file"})
		}
	}
	if cfg.Sandbox == inputs.SandboxDocker {
		if uid, gid := p.owner(); uid <= 0 || gid < 0 {
			errs = append(errs, &inputs.Problem{Input: inputs.InputContainerUID, Message: fmt.Sprintf("the workspace %s belongs to root (or its owner is unknown) and the agent never runs as root; set container-uid and container-gid to a user that may write the checkout", cfg.WorkingDirectory)})
		}
	}
	if p.agent != nil && cfg.ResumeSession != "" && p.agent.Sessions() != nil {
		// Before anything is created: the session must be where the run can carry it from.
		if _, err := session.Find(p.agent.Sessions(), p.home, cfg.WorkingDirectory, cfg.ResumeSession); err != nil {
			errs = append(errs, &inputs.Problem{Input: inputs.InputResumeSession, Message: err.Error() + "; use a session-id output of an earlier run on this machine or job (sessions are saved under HOME)"})
		}
	}
	if p.agent != nil && cfg.Sandbox == inputs.SandboxDocker {
		if err := credentialsSet(p.agent, sys.Getenv); err != nil {
			errs = append(errs, err)
		}
	}
	if p.agent != nil && cfg.Sandbox == inputs.SandboxNone {
		if err := findAgentCLI(p.agent, p.env.vars["PATH"]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if p.gh.actions {
		if err := p.checkNoPersistedToken(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkRepository checks, changing nothing, that working-directory holds a repository the
// branch strategy can work in: a problem of the inputs names the one to change, and in Actions
// a missing repository points at the checkout step the workflow may lack.
func (p *plan) checkRepository(ctx context.Context, actions bool) error {
	cfg := p.cfg
	var err error
	p.names, err = workspace.Preview(ctx, p.gitEnv, workspace.Options{
		RepoDir:   cfg.WorkingDirectory,
		Strategy:  cfg.BranchStrategy,
		Branch:    cfg.Branch,
		Name:      cfg.Name,
		GitConfig: p.gitConfig(),
	})
	var ce *workspace.CheckError
	if !errors.As(err, &ce) {
		return err
	}
	msg := strings.TrimPrefix(ce.Error(), "workspace: ")
	switch ce.Reason {
	case workspace.NotARepository:
		if actions {
			msg += "; the workflow may lack an actions/checkout step before this one, or working-directory may not name the checkout"
		} else {
			msg += "; run sandcastle in a git repository, or name one with --working-directory"
		}
		return &inputs.Problem{Input: inputs.InputWorkingDirectory, Message: msg}
	case workspace.NoCommits:
		return &inputs.Problem{Input: inputs.InputWorkingDirectory, Message: msg}
	case workspace.DetachedHead:
		return &inputs.Problem{Input: inputs.InputBranchStrategy, Message: msg}
	default:
		return &inputs.Problem{Input: inputs.InputBranch, Message: msg}
	}
}

// checkNoPersistedToken refuses a checkout that keeps a token in .git/config, as
// actions/checkout does unless told otherwise: the agent works in that repository and could
// read it there.
func (p *plan) checkNoPersistedToken(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	g := p.hostGit(p.cfg.WorkingDirectory)
	out, err := g.Run(ctx, "config", "--local", "--includes", "--name-only", "--get-regexp", `^http\..*\.extraheader$`)
	switch {
	case git.ExitCode(err) == 1:
		return nil // none set
	case err != nil:
		return fmt.Errorf("looking for a token kept in .git/config: %w", err)
	}
	return &inputs.Problem{Message: fmt.Sprintf("the checkout keeps a token in .git/config (%s), where the agent could read it; set persist-credentials: false on the actions/checkout step: the action pushes with github-token itself", strings.Join(strings.Fields(out), ", "))}
}

func (p *plan) agentMaxPrompt() int {
	if p.agent == nil {
		return 0
	}
	return p.agent.MaxPromptBytes()
}

// promptInput names the input the prompt came from.
func promptInput(cfg inputs.Config) string {
	if cfg.PromptFile != "" {
		return inputs.InputPromptFile
	}
	return inputs.InputPrompt
}

// credentialsSet checks that the agent can log in inside the sandbox, where no login of this
// machine exists: one of its credential variables must be set.
func credentialsSet(a agent.Provider, getenv func(string) string) error {
	names := a.Credentials()
	for _, k := range names {
		if getenv(k) != "" {
			return nil
		}
	}
	if len(names) == 0 {
		return nil
	}
	return &inputs.Problem{Input: inputs.InputAgent, Message: fmt.Sprintf("%s needs one of %s in the environment to log in inside the sandbox; set it from a secret (env: in the workflow step)", a.Name(), strings.Join(names, ", "))}
}

// findAgentCLI checks that the agent's program is on the PATH it will run with, so a missing
// CLI fails before anything is created.
func findAgentCLI(a agent.Provider, path string) error {
	cmd, err := a.Command(agent.Request{})
	if err != nil || len(cmd.Argv) == 0 {
		return err
	}
	prog := cmd.Argv[0]
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return nil
		}
	}
	return &inputs.Problem{Input: inputs.InputAgent, Message: fmt.Sprintf("%s runs %q, which is not on PATH (%s); install the %s CLI, or run in a sandbox image that has it", a.Name(), prog, path, a.Name())}
}

func agentInfos() []inputs.AgentInfo {
	var infos []inputs.AgentInfo
	for _, name := range agent.Names() {
		a, _ := agent.Lookup(name)
		s := a.Sessions()
		infos = append(infos, inputs.AgentInfo{Name: name, Efforts: a.Efforts(), PermissionModes: a.PermissionModes(), Resumable: s != nil, Forkable: s != nil && s.Fork})
	}
	return infos
}

// standIns gives each key itself as its value, for checks made before the values are known.
func standIns(keys []string) map[string]string {
	vals := make(map[string]string, len(keys))
	for _, k := range keys {
		vals[k] = k
	}
	return vals
}

// renderPrompt is the prompt for the run's branches: an inline prompt as it is, a prompt file
// parsed and filled with prompt.Values. Each problem names the file and the line. It notes
// each prompt-args key the file does not use in p.promptWarnings.
func (p *plan) renderPrompt(eventArgs map[string]string) (*prompt.Prompt, error) {
	if p.cfg.PromptFile == "" {
		return prompt.Inline(p.cfg.Prompt), nil
	}
	tmpl, err := prompt.Parse(p.cfg.Prompt)
	if err != nil {
		var errs []error
		for _, e := range unjoin(err) {
			errs = append(errs, &inputs.Problem{Input: inputs.InputPromptFile, Message: p.cfg.PromptFile + ": " + e.Error()})
		}
		return nil, errors.Join(errs...)
	}
	var source, target string
	if p.names != nil {
		source, target = p.names.Source, p.names.Target
	}
	values := prompt.Values(source, target, eventArgs, p.cfg.PromptArgs)
	pr, err := tmpl.Render(values)
	if err != nil {
		return nil, p.promptProblems(err, values)
	}
	used := tmpl.Keys()
	for _, k := range slices.Sorted(maps.Keys(p.cfg.PromptArgs)) {
		if !slices.Contains(used, k) {
			p.promptWarnings = append(p.promptWarnings, fmt.Sprintf("prompt-args: %q is not used by the prompt", k))
		}
	}
	return pr, nil
}

// promptFor is the rendered prompt, after logging each prompt-args key it does not use.
func (p *plan) promptFor(log *report.Log) *prompt.Prompt {
	for _, w := range p.promptWarnings {
		log.Warning("%s", w)
	}
	return p.prompt
}

// promptProblems words Render's error as input problems: the file's, or prompt-args' when the
// value came from there.
func (p *plan) promptProblems(err error, values map[string]string) error {
	file := p.cfg.PromptFile
	var mk *prompt.MissingKeysError
	if errors.As(err, &mk) {
		return &inputs.Problem{Input: inputs.InputPromptFile, Message: fmt.Sprintf("%s: %v; set %s in prompt-args (values known: %s)",
			file, mk, plural(len(mk.Keys), "it", "them"), strings.Join(slices.Sorted(maps.Keys(values)), ", "))}
	}
	var errs []error
	for _, e := range unjoin(err) {
		input := inputs.InputPromptFile
		var ve *prompt.ValueError
		if errors.As(e, &ve) {
			if _, given := p.cfg.PromptArgs[ve.Key]; given {
				input = inputs.InputPromptArgs
			}
		}
		errs = append(errs, &inputs.Problem{Input: input, Message: file + ": " + e.Error()})
	}
	return errors.Join(errs...)
}

// run prepares the workspace and sandbox, loops the agent, then reports. Whatever happens, the
// sandbox is stopped, the worktree is kept when it holds uncommitted work, and the commits made
// so far are reported. The error, already reported, is why the run failed.
func (p *plan) run(ctx context.Context, rep *runner.Reporter) error {
	p.red = rep.Redactor()
	end := rep.Group("Trigger")
	d, err := p.gh.guard(ctx)
	end()
	if err != nil {
		err = fmt.Errorf("checking who may start the run: %w", err)
		rep.Error(err.Error())
		if err := rep.SetOutputs(report.Outcome{Status: report.StatusFailed}); err != nil {
			rep.Warning(err.Error())
		}
		return err
	}
	if !d.Run {
		return p.refuse(ctx, rep, d)
	}
	if err := p.gh.startLabels(ctx); err != nil {
		rep.Warning(fmt.Sprintf("labels: %v", err))
	}
	prog := startProgress(ctx, p.gh, p.red, rep.Warning)

	final, err := p.work(ctx, rep, prog)

	prog.finish(ctx, final) // on a time of its own, which outlasts a rate limit
	cleanup, cancel := afterRun(ctx, p.cleanup)
	defer cancel()
	if err := p.gh.finishLabels(cleanup, err == nil); err != nil {
		rep.Warning(fmt.Sprintf("labels: %v", err))
	}
	return err
}

// refuse ends a run the event may not start: a green job that says why.
func (p *plan) refuse(ctx context.Context, rep *runner.Reporter, d event.Decision) error {
	status := report.StatusRefused
	if d.Skip {
		status = report.StatusSkipped
	}
	rep.Info(fmt.Sprintf("Not running (%s): %s", status, d.Reason))
	o := report.Outcome{Status: status, RefusalReason: d.Reason, RunURL: p.gh.runURL}
	// A refusal is answered where it was asked, but never to a bot (two bots could answer
	// each other forever) and never for an event that did not address the action at all.
	// Its own marker keeps a refusal from overwriting the status of an earlier run.
	if !d.Skip && !p.gh.event.IsBot() && p.gh.comments() {
		body := p.red.Redact(o.Comment())
		c, _, err := p.gh.api.UpsertComment(ctx, p.gh.owner, p.gh.repo, p.gh.issue, p.gh.marker+":refused", body)
		if err != nil {
			rep.Warning(fmt.Sprintf("progress comment: %v", err))
		}
		o.CommentURL = c.URL
	}
	// The refused label comes off, so that a maintainer can simply label the issue again.
	if !d.Skip && p.gh.cfg.TriggerLabel != "" {
		if err := p.gh.labels(ctx, nil, []string{p.gh.cfg.TriggerLabel}); err != nil {
			rep.Warning(fmt.Sprintf("labels: %v", err))
		}
	}
	if err := rep.SetOutputs(o); err != nil {
		rep.Error(err.Error())
		return err
	}
	if err := rep.Summary(o.Summary()); err != nil {
		rep.Warning(err.Error())
	}
	return nil
}

// work runs the agent and publishes its commits; it returns why the run failed, already
// reported, and the progress comment's final state.
func (p *plan) work(ctx context.Context, rep *runner.Reporter, prog *progress) (report.Outcome, error) {
	cfg := p.cfg
	// A run that fails before the agent starts still says so in its status output.
	failed := func(err error) (report.Outcome, error) {
		rep.Error(err.Error())
		if err := rep.SetOutputs(report.Outcome{Status: report.StatusFailed, CommentURL: prog.commentURL()}); err != nil {
			rep.Warning(err.Error())
		}
		return report.Outcome{Status: report.StatusFailed, Failure: err.Error()}, err
	}
	p.gh.findOrigin(ctx, p.hostGit(cfg.WorkingDirectory))
	ws, err := workspace.Prepare(ctx, p.gitEnv, workspace.Options{
		RepoDir:        cfg.WorkingDirectory,
		Strategy:       cfg.BranchStrategy,
		Branch:         cfg.Branch,
		Name:           cfg.Name,
		TempBranch:     p.names.Source,
		CopyToWorktree: cfg.CopyToWorktree,
		GitConfig:      p.gitConfig(),
		Fetch:          p.gh.fetch(cfg.WorkingDirectory, p.gitEnv, p.gitConfig()),
		Log:            rep.Logger(),
	})
	if err != nil {
		return failed(err)
	}
	// Every way out finishes the workspace, within its own time, which starts then: a run
	// longer than the cleanup time must not leave none.
	finish := func(ok bool) (workspace.Outcome, error) {
		cleanup, cancel := afterRun(ctx, p.cleanup)
		defer cancel()
		return ws.Finish(cleanup, ok)
	}

	top, err := p.hostGit(cfg.WorkingDirectory).TopLevel(ctx)
	if err != nil {
		finish(false)
		return failed(err)
	}
	// The worktree we just made must be the workspace owner's, whom the agent runs as.
	if err := handBack(top); err != nil {
		rep.Warning(err.Error())
	}
	logPath, logFile, err := openLog(cfg, ws, top)
	if err != nil {
		finish(false)
		return failed(err)
	}
	if logFile != nil {
		defer logFile.Close()
	}
	log := rep.NewLog(logFile)
	log.Status("--- Run started: %s ---", time.Now().UTC().Format(time.RFC3339))
	if logPath != "" {
		fmt.Fprintf(p.console, "Started on branch %s; log: %s\n", orDetached(ws.Source), logPath)
	}

	p.startBranch = ws.Target
	var lease string // where a lease push expects the remote branch
	if cfg.GitHub.Push == inputs.PushLease {
		start, err := ws.Head(ctx)
		if err != nil {
			finish(false)
			return failed(err)
		}
		lease = p.lease(ctx, ws.Source, start)
	}
	var onProgress func(run.Progress) // none without a comment to show it in
	if prog != nil {
		onProgress = prog.update
	}
	base, res, restored, runErr := p.loop(ctx, ws, top, log, onProgress)
	out, finishErr := finish(runErr == nil)
	if runErr == nil && finishErr != nil {
		runErr = finishErr
	} else if finishErr != nil {
		log.Warning("%v", finishErr)
	}

	if err := handBack(top); err != nil {
		log.Warning("%v", err)
	}
	status := statusOf(ctx, res, runErr)
	outputs := p.outcome(ws, out, base, res, status, logPath)
	outputs.RestoredGit = restored
	outputs.CommentURL = prog.commentURL()
	if res.Output != nil {
		_, skipped := report.FieldOutputs(res.Output.JSON)
		for _, name := range skipped {
			log.Status("No output for the structured output's field %q: the name is not usable as an output name or is taken", name)
		}
	}
	// Publishing outlives a cancelled run: pushing is how the commits survive the runner.
	end := rep.Group("Publish")
	pubCtx, cancelPub := afterRun(ctx, publishTimeout)
	pubErr := p.publish(pubCtx, &outputs, lease, top, runErr == nil, log)
	cancelPub()
	end()
	switch {
	case pubErr != nil && runErr == nil:
		runErr = pubErr
		if outputs.Status != report.StatusBranchMoved {
			outputs.Status = report.StatusFailed
		}
	case pubErr != nil:
		log.Warning("%v", pubErr)
	}
	if runErr != nil {
		log.Status("Run %s: %v", outputs.Status, runErr)
		rep.Error(runErr.Error())
		if out.PreservedPath != "" {
			rep.Warning(fmt.Sprintf("the worktree has uncommitted changes and was kept at %s", out.PreservedPath))
		}
		if out.KeptBranch != "" {
			rep.Warning(fmt.Sprintf("the agent's commits were kept on branch %s", out.KeptBranch))
		}
	} else {
		log.Status("Run %s after %d iteration(s)", status, len(res.Iterations))
	}
	if runErr != nil {
		outputs.Failure = runErr.Error()
	}
	if err := rep.SetOutputs(outputs); err != nil {
		rep.Error(err.Error())
		return outputs, errors.Join(runErr, err)
	}
	if err := rep.Summary(outputs.Summary()); err != nil {
		rep.Warning(err.Error())
	}
	if err := log.Err(); err != nil {
		rep.Warning(fmt.Sprintf("writing the log file: %v", err))
	}
	return outputs, runErr
}

// loop runs the hooks, starts the sandbox and runs the agent in it. With a Docker sandbox it
// also returns the paths of the repository's git directory that the agent changed and that
// were put back.
func (p *plan) loop(ctx context.Context, ws *workspace.Workspace, top string, log *report.Log, progress func(run.Progress)) (base string, res run.Result, restored []string, err error) {
	cfg := p.cfg
	pr := p.promptFor(log)
	vars, err := p.agentVars(ctx, ws)
	if err != nil {
		return "", res, nil, err
	}
	onHost := host.New(ws.Dir, environ(vars))
	defer onHost.Close(context.WithoutCancel(ctx))
	if err := run.Hooks(ctx, onHost, "hook-worktree-ready", cfg.Hooks.WorktreeReady, cfg.Hooks.Timeout, false); err != nil {
		return "", res, nil, err
	}

	sb := sandbox.Sandbox(onHost) // sandbox: none runs the agent on the host
	var repo run.Repo = ws
	var checkRepo func(context.Context) error
	if cfg.Sandbox == inputs.SandboxDocker {
		// Recorded once the host's own hook is done, so what it set up is kept.
		g, gerr := gitguard.Take(ctx, p.hostGit(ws.Dir))
		if gerr != nil {
			return "", res, nil, gerr
		}
		guard := &repoGuard{guard: g, log: log}
		// Deferred before closeSandbox, so it runs once the sandbox is gone; a failure to put
		// the repository back fails the run.
		defer func() {
			err = guard.close(err)
			restored = guard.restored
		}()
		checkRepo = func(context.Context) error { return guard.check() }
		container, copied, serr := p.startDocker(ctx, ws, top, vars, g, log)
		if serr != nil {
			return "", res, nil, serr
		}
		sb = container
		defer closeSandbox(ctx, sb, log)
		if copied {
			synced := &syncedRepo{Workspace: ws, sb: container, host: p.hostGit(ws.Dir)}
			repo = synced
			defer synced.finish(ctx, log) // before closeSandbox: the container must still be there
		}
	}
	if err := run.SandboxReadyHooks(ctx, sb, onHost, cfg.Hooks.SandboxReady, cfg.Hooks.HostSandboxReady, cfg.Hooks.Timeout); err != nil {
		return "", res, nil, err
	}
	var saver run.Saver
	if sessions := p.sessions(sb, ws); sessions != nil {
		saver = sessions
		if cfg.ResumeSession != "" {
			if err := sessions.Restore(ctx, cfg.ResumeSession); err != nil {
				return "", res, nil, err
			}
		}
	}
	if checkRepo != nil {
		// The sandbox's own hook ran in the repository too.
		if err := checkRepo(ctx); err != nil {
			return "", res, nil, err
		}
	}
	if base, err = ws.Head(ctx); err != nil {
		return "", res, nil, err
	}
	res, err = run.Loop(ctx, run.Config{
		Agent: p.agent,
		Request: agent.Request{
			Model: cfg.Model, Effort: cfg.Effort, PermissionMode: cfg.PermissionMode,
			ResumeSession: cfg.ResumeSession, ForkSession: cfg.ForkSession,
		},
		Sessions:          saver,
		Prompt:            pr,
		Signals:           cfg.CompletionSignals,
		MaxIterations:     cfg.MaxIterations,
		IdleTimeout:       cfg.IdleTimeout,
		CompletionTimeout: cfg.CompletionTimeout,
		ShellTimeout:      cfg.ShellTimeout,
		Output:            p.output,
		OutputRetries:     outputRetries(cfg),
		Verbose:           cfg.Verbose,
		Guard:             checkRepo,
		Progress:          progress,
	}, sb, repo, log)
	return base, res, nil, err
}

// sessions is how the agent's sessions leave the sandbox, or nil when it keeps none or there is
// no HOME to keep them in.
func (p *plan) sessions(sb sandbox.Sandbox, ws *workspace.Workspace) *session.Carrier {
	layout := p.agent.Sessions()
	if layout == nil || p.home == "" {
		return nil
	}
	return &session.Carrier{
		Layout:      layout,
		Sandbox:     sb,
		SandboxHome: sandboxHome,
		HostHome:    p.home,
		HostDir:     ws.Dir,
		Local:       p.cfg.Sandbox == inputs.SandboxNone,
	}
}

// closeSandbox stops the sandbox on every path, a cancelled run included, within its own
// deadline.
func closeSandbox(ctx context.Context, sb sandbox.Sandbox, log *report.Log) {
	ctx, cancel := afterRun(ctx, cleanupTimeout)
	defer cancel()
	if err := sb.Close(ctx); err != nil {
		log.Warning("stopping the sandbox: %v", err)
	}
}

func outputRetries(cfg inputs.Config) int {
	if cfg.Output == nil {
		return 0
	}
	return cfg.Output.MaxRetries
}

// agentVars is the agent's environment, plus a commit identity when the repository has none,
// so the agent can commit without anyone's global git config being touched.
func (p *plan) agentVars(ctx context.Context, ws *workspace.Workspace) (map[string]string, error) {
	// The same trust for the agent's git, through the environment only.
	vars := make(map[string]string, len(p.env.vars)+4)
	for _, kv := range git.ConfigEnv(environ(p.env.vars), p.gitConfig()...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	g := p.hostGit(ws.Dir)
	for _, id := range []struct{ key, env, fallback string }{
		{"user.name", "NAME", "sandcastle-agent[bot]"},
		{"user.email", "EMAIL", "sandcastle-agent[bot]@users.noreply.github.com"},
	} {
		if _, ok, err := g.ConfigValue(ctx, id.key); err != nil {
			return nil, err
		} else if ok {
			continue
		}
		for _, who := range []string{"GIT_AUTHOR_", "GIT_COMMITTER_"} {
			if _, set := vars[who+id.env]; !set {
				vars[who+id.env] = id.fallback
			}
		}
	}
	return vars, nil
}

// gitConfig is the configuration every git command gets, through the environment: nothing is
// ever written to a config file. The checkout and its worktrees may belong to another user than
// ours (the runner's, while the Action runs as root), and it is the repository the user named:
// trust it.
func (p *plan) gitConfig() []string {
	return []string{"safe.directory=*"}
}

// hostGit is git on the host in dir, with the environment and configuration of every host git
// command of the run.
func (p *plan) hostGit(dir string) git.Repo {
	return git.New(dir, p.gitEnv).WithConfig(p.gitConfig()...)
}

func statusOf(ctx context.Context, res run.Result, err error) report.Status {
	switch {
	case err != nil && ctx.Err() != nil:
		return report.StatusCancelled
	case err != nil:
		return report.StatusFailed
	case res.Signal != "":
		return report.StatusComplete
	default:
		return report.StatusIncomplete
	}
}

func orDetached(branch string) string {
	if branch == "" {
		return "(detached HEAD)"
	}
	return branch
}

// openLog opens the run log for appending. The default lives under .sandcastle/logs/, named
// after the branch and the run name.
func openLog(cfg inputs.Config, ws *workspace.Workspace, top string) (string, io.WriteCloser, error) {
	path := cfg.LogFile
	switch path {
	case inputs.LogStdout:
		return "", nil, nil
	case "":
		name := fileSafe(orDefault(ws.Source, "HEAD"))
		if cfg.BranchStrategy == inputs.StrategyMergeToHead {
			name = fileSafe(ws.Target) + "-" + name
		}
		if cfg.Name != "" {
			name += "-" + nameSafe(cfg.Name)
		}
		path = filepath.Join(top, ".sandcastle", "logs", name+".log")
	}
	// Not a Problem: the run has started, so exit code 2, "nothing was written", would be untrue.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", nil, &inputs.RuntimeError{Input: inputs.InputLogFile, Err: err}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return "", nil, &inputs.RuntimeError{Input: inputs.InputLogFile, Err: err}
	}
	return path, f, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fileSafe replaces the characters that cannot appear in file names on common systems.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '-'
		}
		return r
	}, s)
}

// nameSafe lower-cases a run name and keeps only [a-z0-9_.-].
func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	return []error{err}
}
