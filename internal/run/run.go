package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

// Repo is the view of the workspace the loop needs: where HEAD is and which commits the agent
// made since a base.
type Repo interface {
	Head(ctx context.Context) (string, error)
	Commits(ctx context.Context, base string) ([]gitref.Commit, error)
}

// Log receives what a person watching the run should see. Agent output arrives between
// BeginAgent and EndAgent.
type Log interface {
	Status(format string, args ...any)
	Warning(format string, args ...any)
	BeginAgent()
	AgentText(text string)
	// Prompt shows the prompt an iteration sends (verbose): text written by strangers, like the
	// agent's.
	Prompt(iteration int, text string)
	ToolCall(name, args string)
	Raw(line string)
	EndAgent()
}

// Agent is the agent CLI the loop runs: how to start one invocation and how to read what it
// prints (an agent.Provider is one).
type Agent interface {
	Command(r agent.Request) (agent.Command, error)
	Parse(line []byte, dst []agent.Event) []agent.Event
}

// Config is one run of the loop.
type Config struct {
	Agent     Agent
	AgentName string        // the agent input's value, naming the agent in warnings and errors
	Request   agent.Request // Model, Effort, PermissionMode, ResumeSession; Prompt is set per iteration
	Prompt    *prompt.Prompt

	Signals           []string
	MaxIterations     int
	IdleTimeout       time.Duration
	CompletionTimeout time.Duration
	ShellTimeout      time.Duration

	Output        *structured.Spec // nil: no structured output
	OutputRetries int

	// Verify, when set, is run by sh in the sandbox after each iteration, within ShellTimeout
	// (see verify.go). Redact hides the run's secrets in what it printed before a prompt or
	// the log carries it; nil leaves it as it is.
	Verify string
	Redact func(string) string
	// MaxCostUSD stops the loop once the cost the agent reported reaches it; 0: no limit.
	MaxCostUSD float64

	Verbose bool // log each iteration's prompt and every raw stdout line

	// Sessions, when set, saves the agent's session after each invocation that reported one,
	// so it outlives the sandbox.
	Sessions Saver

	// Guard, when set, runs after every agent invocation, a cancelled one included, before the
	// host reads the repository again: it puts back what the agent must not change (see package
	// gitguard). Its error ends the run.
	Guard func(ctx context.Context) error

	// Progress, when set, hears how the run goes: as each iteration starts, at each tool call
	// and once an iteration's commits are known. It is called on the loop's goroutine and must
	// not block.
	Progress func(Progress)
}

// Progress is where a run stands.
type Progress struct {
	Iteration     int
	MaxIterations int
	LastTool      string // "name(args)" of the tool call this report is about; "" when none

	Commits int // commits made so far, all iterations
}

// Saver keeps an agent session beyond the sandbox and says where.
type Saver interface {
	Save(ctx context.Context, id string) (string, error)
}

// saveTimeout bounds saving one session: a find and a cat in the sandbox, and a local write.
const saveTimeout = time.Minute

// Iteration is what one agent invocation produced.
type Iteration struct {
	Number      int
	SessionID   string
	SessionFile string // where the session was saved; "" when it was not
	Usage       agent.Usage
	HasUsage    bool
	Signal      string
	Forced      bool // the signal was seen but the process hung; it was stopped after the grace window
	Commits     []gitref.Commit
	LastTool    string
	Retry       bool    // a structured-output retry, not a loop iteration
	Verify      *Verify // how verify-command ended after it; nil when none ran
}

// Result is the outcome of the loop. It is returned, filled as far as the run got, with errors too,
// so nothing the agent did is lost from the report.
type Result struct {
	Iterations []Iteration
	Signal     string // the completion signal that ended the loop, "" when it ran out of iterations
	// Unverified says the loop ran out of iterations with verify-command failing after the last.
	Unverified  bool
	Commits     []gitref.Commit
	Output      *structured.Value
	SessionID   string
	SessionFile string
	Usage       agent.Usage
	// Final is the agent's final message of the last iteration, the answer a person would read.
	Final string
}

// Loop runs the agent in sb until a completion signal or MaxIterations, then extracts the
// structured output when one is configured. With a verify command, a signal ends the loop only
// when the command passed after that iteration; when it failed, the next iteration's prompt
// carries the end of what it printed. A cost budget reached before the last iteration ends
// the loop with a *BudgetError.
func Loop(ctx context.Context, c Config, sb sandbox.Sandbox, repo Repo, log Log) (Result, error) {
	var res Result
	var last, signalled *transcript
	var failed *Verify // how verify-command failed after the iteration before; nil when it did not
	for i := 1; i <= c.MaxIterations; i++ {
		if ctx.Err() != nil {
			return res, context.Cause(ctx)
		}
		log.Status("Iteration %d/%d", i, c.MaxIterations)
		c.progress(Progress{Iteration: i, MaxIterations: c.MaxIterations, Commits: len(res.Commits)})
		text, err := Expand(ctx, withVerify(c.Prompt, failed), sb, c.ShellTimeout, log)
		if err != nil {
			return res, err
		}
		if failed != nil && !c.Prompt.Uses(prompt.VerifyOutput) {
			text += failed.framed(c.Verify)
		}
		if c.Verbose {
			log.Prompt(i, text)
		}
		req := c.Request
		req.Prompt = text
		if i > 1 { // resuming applies to the first iteration only
			req.ResumeSession, req.ForkSession = "", false
		}
		it, tr, err := invoke(ctx, c, sb, repo, log, req, i, len(res.Commits))
		if err == nil && c.Verify != "" {
			it.Verify, err = verify(ctx, c, sb, log, i)
		}
		res.add(it, tr)
		c.progress(Progress{Iteration: i, MaxIterations: c.MaxIterations, Commits: len(res.Commits)})
		if err != nil {
			return res, err
		}
		last, failed = tr, nil
		if it.Verify != nil && !it.Verify.Passed {
			failed = it.Verify
		}
		if it.Signal != "" {
			signalled = tr
			if failed == nil {
				res.Signal = it.Signal
				log.Status("Agent signalled completion after %d iteration(s)", i)
				break
			}
			log.Status("Agent signalled completion, but verify-command failed after iteration %d: the loop goes on", i)
		}
		if c.MaxCostUSD > 0 && res.Usage.CostUSD >= c.MaxCostUSD && i < c.MaxIterations {
			return res, &BudgetError{Budget: "max-cost-usd", Detail: fmt.Sprintf("the agent reported $%s after %d iteration(s), and the budget is $%s", dollars(res.Usage.CostUSD), i, dollars(c.MaxCostUSD))}
		}
	}
	switch {
	case res.Signal != "":
	case failed != nil:
		res.Unverified = true
		log.Status("Reached max iterations (%d) with verify-command still failing", c.MaxIterations)
	default:
		log.Status("Reached max iterations (%d) without a completion signal", c.MaxIterations)
	}
	// The output is the answer of the iteration that signalled completion, else the last one's.
	if signalled == nil {
		signalled = last
	}
	if c.Output != nil && signalled != nil {
		return res, extract(ctx, c, sb, repo, log, &res, signalled)
	}
	return res, nil
}

func (c Config) progress(p Progress) {
	if c.Progress != nil {
		c.Progress(p)
	}
}

// add records one invocation; tr, its transcript, is nil when the agent never started.
func (r *Result) add(it Iteration, tr *transcript) {
	r.Iterations = append(r.Iterations, it)
	if tr != nil {
		r.Final = tr.final()
	}
	r.Commits = append(r.Commits, it.Commits...)
	if it.SessionID != "" {
		r.SessionID, r.SessionFile = it.SessionID, it.SessionFile
	}
	r.Usage.Add(it.Usage)
}

// extract pulls the structured output from the final message, resuming the agent's session
// with a description of the problem while retries remain.
func extract(ctx context.Context, c Config, sb sandbox.Sandbox, repo Repo, log Log, res *Result, tr *transcript) error {
	for left := c.OutputRetries; ; left-- {
		v, err := structured.Extract(tr.final(), *c.Output)
		if err == nil {
			res.Output = &v
			return nil
		}
		var se *structured.Error
		if !errors.As(err, &se) || left == 0 {
			return &OutputError{Err: err, Retries: c.OutputRetries}
		}
		session := tr.sessionID
		if session == "" {
			return &OutputError{Err: fmt.Errorf("%w (no session id to resume for a retry)", err), Retries: c.OutputRetries}
		}
		log.Warning("structured output: %s; retrying by resuming session %s (%d retr%s left)", se.Problem, session, left, plural(left, "y", "ies"))
		req := c.Request
		req.Prompt = se.Feedback(left - 1)
		req.ResumeSession, req.ForkSession = session, false
		it, next, ierr := invoke(ctx, c, sb, repo, log, req, len(res.Iterations)+1, len(res.Commits))
		it.Retry = true
		res.add(it, next)
		if ierr != nil {
			return ierr
		}
		tr = next
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Errors that end a run. Each says what happened and what to change.
var (
	errIdle  = errors.New("agent idle")
	errGrace = errors.New("completion grace window expired")
)

// BudgetError is a run stopped by one of its budgets (the timeouts keys run-minutes and
// max-cost-usd): the agent is stopped and what it committed so far is kept.
type BudgetError struct {
	Budget string // the key of the timeouts input that set it
	Detail string // what was spent, against what
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("budget %s reached: %s; the run stopped and keeps what was committed (raise the timeouts input's %s to let it go on)", e.Budget, e.Detail, e.Budget)
}

// dollars writes a cost with at most 6 decimals, as the cost-usd output does.
func dollars(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0"), ".")
}

// IdleTimeoutError means the agent printed nothing for the idle timeout before signalling.
type IdleTimeoutError struct{ Timeout time.Duration }

func (e *IdleTimeoutError) Error() string {
	return fmt.Sprintf("agent printed nothing for %s and was stopped; raise the timeouts input's idle-seconds if it needs longer between outputs", e.Timeout)
}

// AgentError means the agent CLI failed.
type AgentError struct {
	Agent    string
	ExitCode int
	Signaled bool
	Detail   string
}

func (e *AgentError) Error() string {
	how := fmt.Sprintf("exited with code %d", e.ExitCode)
	if e.Signaled {
		how = fmt.Sprintf("was killed by signal %d", e.ExitCode-128)
	}
	if e.ExitCode == 0 {
		how = "reported an error"
	}
	if e.Detail == "" {
		return fmt.Sprintf("agent %s %s", e.Agent, how)
	}
	return fmt.Sprintf("agent %s %s: %s", e.Agent, how, e.Detail)
}

// OutputError means no valid structured output was produced after every retry.
type OutputError struct {
	Err     error
	Retries int
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("structured output: %v (after %d retr%s; see output-tag, output-schema, output-max-retries)", e.Err, e.Retries, plural(e.Retries, "y", "ies"))
}

func (e *OutputError) Unwrap() error { return e.Err }

// invoke runs the agent once and returns what it did.
func invoke(ctx context.Context, c Config, sb sandbox.Sandbox, repo Repo, log Log, req agent.Request, n, commitsBefore int) (Iteration, *transcript, error) {
	it := Iteration{Number: n}
	base, err := repo.Head(ctx)
	if err != nil {
		return it, nil, fmt.Errorf("iteration %d: read HEAD: %w", n, err)
	}
	cmd, err := c.Agent.Command(req)
	if err != nil {
		return it, nil, err
	}

	tr := newTranscript(c.Signals)
	w := newWatch(ctx, c.IdleTimeout, c.CompletionTimeout)
	w.warnEvery(idleWarning, func(silent time.Duration) {
		log.Status("Agent silent for %s (timeouts: idle-seconds %s)", silent, c.IdleTimeout)
	})
	defer w.stop()

	var events []agent.Event
	var lines []string // the last lines of raw stdout, for failure details
	onLine := func(line []byte) {
		if c.Verbose {
			log.Raw(string(line))
		}
		events = c.Agent.Parse(line, events[:0])
		if len(events) == 0 {
			lines = keepLast(lines, string(line), 20)
		}
		for _, ev := range events {
			tr.add(ev)
			switch ev.Kind {
			case agent.EventText:
				log.AgentText(ev.Text)
			case agent.EventToolCall:
				log.ToolCall(ev.Tool, ev.Args)
				c.progress(Progress{Iteration: n, MaxIterations: c.MaxIterations, LastTool: ev.Tool + "(" + ev.Args + ")", Commits: commitsBefore})
			case agent.EventError:
				log.Warning("%s reported: %s", c.AgentName, ev.Text)
			}
		}
		w.activity(tr.signal() != "")
	}

	log.BeginAgent()
	r, err := sb.Exec(w.ctx, sandboxExec(cmd, onLine))
	log.EndAgent()
	var guardErr error
	if c.Guard != nil {
		guardErr = c.Guard(context.WithoutCancel(ctx))
	}

	it.SessionID, it.Usage, it.HasUsage, it.LastTool = tr.sessionID, tr.usage, tr.hasUsage, tr.lastTool
	it.Signal = tr.signal()
	if it.SessionID != "" && c.Sessions != nil {
		it.SessionFile = saveSession(ctx, c.Sessions, log, it.SessionID)
	}
	// Commits are collected on every path: an agent that failed may still have committed work.
	commits, cerr := repo.Commits(context.WithoutCancel(ctx), base)
	it.Commits = commits

	switch {
	case guardErr != nil:
		return it, tr, fmt.Errorf("iteration %d: %w", n, guardErr)
	case errors.Is(err, errGrace):
		it.Forced = true
		log.Warning("completion signal seen but the agent kept running; stopped it after the %s grace window (the timeouts input's completion-seconds)", c.CompletionTimeout)
	case errors.Is(err, errIdle):
		return it, tr, &IdleTimeoutError{Timeout: c.IdleTimeout}
	case err != nil:
		return it, tr, err
	case r.ExitCode != 0 || tr.isError:
		return it, tr, &AgentError{Agent: c.AgentName, ExitCode: r.ExitCode, Signaled: r.Signaled, Detail: failureDetail(r.Stderr, tr, lines)}
	}
	if cerr != nil {
		return it, tr, fmt.Errorf("iteration %d: collect commits: %w", n, cerr)
	}
	return it, tr, nil
}

// saveSession saves the session even when the agent failed or the run was cancelled: it shows
// what happened. Failing to save costs only a later resume, so it is a warning.
func saveSession(ctx context.Context, s Saver, log Log, id string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	p, err := s.Save(ctx, id)
	if err != nil {
		log.Warning("session %s was not saved, so it cannot be resumed after this run: %v", id, err)
	}
	return p
}

func sandboxExec(cmd agent.Command, onLine func([]byte)) sandbox.Exec {
	return sandbox.Exec{Argv: cmd.Argv, Stdin: cmd.Stdin, Env: cmd.Env, OnLine: onLine}
}

func keepLast(lines []string, line string, n int) []string {
	if strings.TrimSpace(line) == "" {
		return lines
	}
	if len(lines) == n {
		lines = append(lines[:0], lines[1:]...)
	}
	return append(lines, line)
}

// failureDetail prefers the agent's own error report, then what the CLI said on stderr (which
// for some CLIs is mostly progress noise), then the agent's final message (a CLI that prints
// "Rate limit exceeded" as its answer and exits 1, as the reference reads it), then its last
// reported error, then its last unparsed output lines.
func failureDetail(stderr string, tr *transcript, lines []string) string {
	if tr.isError && strings.TrimSpace(tr.result) != "" {
		return strings.TrimSpace(tr.result)
	}
	if s := strings.TrimSpace(stderr); s != "" {
		return lastLines(s, 20)
	}
	if s := strings.TrimSpace(tr.final()); s != "" {
		return lastLines(tail(s, detailKeep), 20)
	}
	if s := strings.TrimSpace(tr.lastError); s != "" {
		return s
	}
	return strings.Join(lines, "\n")
}

// detailKeep bounds how much of the agent's final message a failure quotes: its end, where the
// reason for stopping is.
const detailKeep = 2000

// tail is the last n bytes of s or a few fewer, starting on a whole character.
func tail(s string, n int) string {
	i := max(len(s)-n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

func lastLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// Expand runs the prompt's commands in sb and logs each with the size of its output.
func Expand(ctx context.Context, p *prompt.Prompt, sb sandbox.Sandbox, timeout time.Duration, log Log) (string, error) {
	text, done, err := p.Expand(ctx, shellRunner(sb), timeout)
	for _, e := range done {
		log.Status("!`%s` ran: %d bytes (~%d tokens)", e.Command, e.Bytes, (e.Bytes+3)/4)
	}
	return text, err
}

// shellRunner runs a command block in sb: its shell text by sh, its values in the environment
// of that one process.
func shellRunner(sb sandbox.Sandbox) prompt.Runner {
	return func(ctx context.Context, c prompt.Command) (prompt.Output, error) {
		r, err := sb.Exec(ctx, sandbox.Exec{Argv: []string{"sh", "-c", c.Shell}, Env: c.Env})
		return prompt.Output{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode}, err
	}
}

// idleWarning is how often a silent agent is reported while the idle timeout runs.
const idleWarning = time.Minute

// watch cancels the agent's context when it stays silent too long: IdleTimeout before a
// completion signal (a failure), CompletionTimeout after one (success; the process hung).
type watch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	timer  *time.Timer
	done   bool
	idle   time.Duration
	grace  time.Duration
	signal bool

	warn       *time.Timer // reports silence every warnPeriod before a signal
	warnPeriod time.Duration
	silentFor  time.Duration
	onSilence  func(time.Duration)
}

// warnEvery reports every period of silence to f until a signal is seen.
func (w *watch) warnEvery(period time.Duration, f func(silent time.Duration)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnPeriod, w.onSilence = period, f
	w.warn = time.AfterFunc(period, w.silence)
}

func (w *watch) silence() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.signal {
		return
	}
	w.silentFor += w.warnPeriod
	w.onSilence(w.silentFor)
	w.warn.Reset(w.warnPeriod)
}

func newWatch(parent context.Context, idle, grace time.Duration) *watch {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watch{ctx: ctx, cancel: cancel, idle: idle, grace: grace}
	w.timer = time.AfterFunc(idle, w.fire)
	return w
}

func (w *watch) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if w.signal {
		w.cancel(errGrace)
	} else {
		w.cancel(errIdle)
	}
}

// activity restarts the active timer; signalled switches it to the grace window for good.
func (w *watch) activity(signalled bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.signal = w.signal || signalled
	if w.warn != nil {
		w.silentFor = 0
		w.warn.Reset(w.warnPeriod)
	}
	d := w.idle
	if w.signal {
		d = w.grace
	}
	w.timer.Reset(d)
}

func (w *watch) stop() {
	w.mu.Lock()
	w.done = true
	w.timer.Stop()
	if w.warn != nil {
		w.warn.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}
