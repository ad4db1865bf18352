package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

// fakeSandbox plays scripted invocations: each call to Exec takes the next script entry.
// Shell commands (prompt expansion) are not expected here.
type fakeSandbox struct {
	t       *testing.T
	mu      sync.Mutex
	scripts []func(ctx context.Context, e sandbox.Exec) (sandbox.Result, error)
	calls   []sandbox.Exec
}

func (f *fakeSandbox) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, e)
	f.mu.Unlock()
	if n >= len(f.scripts) {
		f.t.Fatalf("unexpected Exec #%d: %q", n+1, e.Argv)
	}
	return f.scripts[n](ctx, e)
}

func (f *fakeSandbox) RepoDir() string             { return "/repo" }
func (f *fakeSandbox) Close(context.Context) error { return nil }
func (f *fakeSandbox) argv(i int) []string         { return f.calls[i].Argv }
func (f *fakeSandbox) stdin(i int) string          { return f.calls[i].Stdin }
func (f *fakeSandbox) count() int                  { f.mu.Lock(); defer f.mu.Unlock(); return len(f.calls) }
func (f *fakeSandbox) add(s ...func(context.Context, sandbox.Exec) (sandbox.Result, error)) {
	f.scripts = append(f.scripts, s...)
}

// lines replays stream lines and exits with code.
func lines(code int, ls ...string) func(context.Context, sandbox.Exec) (sandbox.Result, error) {
	return func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
		for _, l := range ls {
			e.OnLine([]byte(l))
		}
		return sandbox.Result{ExitCode: code}, nil
	}
}

// linesThenHang replays lines, then waits for the loop to stop it, as a hung process would.
func linesThenHang(ls ...string) func(context.Context, sandbox.Exec) (sandbox.Result, error) {
	return func(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
		for _, l := range ls {
			e.OnLine([]byte(l))
		}
		<-ctx.Done()
		return sandbox.Result{ExitCode: 128 + 9, Signaled: true}, fmt.Errorf("killed: %w", context.Cause(ctx))
	}
}

func initLine(session string) string {
	return `{"type":"system","subtype":"init","session_id":"` + session + `"}`
}

func textLine(s string) string {
	return `{"type":"assistant","message":{"content":[{"type":"text","text":` + quote(s) + `}]}}`
}

func resultLine(s string, isErr bool) string {
	return fmt.Sprintf(`{"type":"result","is_error":%t,"result":%s,"total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}}`, isErr, quote(s))
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// fakeRepo hands out one new commit per call to Commits.
type fakeRepo struct {
	mu    sync.Mutex
	heads int
	next  int
}

func (r *fakeRepo) Head(context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.heads++
	return fmt.Sprintf("base%d", r.heads), nil
}

func (r *fakeRepo) Commits(_ context.Context, base string) ([]gitref.Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	return []gitref.Commit{{SHA: fmt.Sprintf("c%d", r.next), Subject: "from " + base}}, nil
}

type nopLog struct {
	mu       sync.Mutex
	statuses []string
	warnings []string
	tools    []string
	prompts  []string
}

func (l *nopLog) Status(f string, a ...any) {
	l.mu.Lock()
	l.statuses = append(l.statuses, fmt.Sprintf(f, a...))
	l.mu.Unlock()
}
func (l *nopLog) Prompt(n int, text string) {
	l.prompts = append(l.prompts, fmt.Sprintf("%d: %s", n, text))
}
func (l *nopLog) Warning(f string, a ...any) {
	l.mu.Lock()
	l.warnings = append(l.warnings, fmt.Sprintf(f, a...))
	l.mu.Unlock()
}
func (l *nopLog) BeginAgent()      {}
func (l *nopLog) AgentText(string) {}
func (l *nopLog) ToolCall(n, a string) {
	l.tools = append(l.tools, n+"("+a+")")
}
func (l *nopLog) Raw(string) {}
func (l *nopLog) EndAgent()  {}

const signal = "<promise>COMPLETE</promise>"

// claudeCode is the claude-code agent, whose stream-json the fake sandbox's scripts speak.
func claudeCode(t testing.TB) agent.Provider {
	t.Helper()
	a, err := agent.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func config(t testing.TB, iterations int) Config {
	return Config{
		Agent:             claudeCode(t),
		AgentName:         "claude-code",
		Prompt:            prompt.Inline("do the work"),
		Signals:           []string{signal},
		MaxIterations:     iterations,
		IdleTimeout:       time.Hour,
		CompletionTimeout: time.Hour,
		ShellTimeout:      time.Minute,
	}
}

func TestLoopStopsOnSignal(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s1"), textLine("working"), resultLine("not yet", false)),
		lines(0, initLine("s2"), `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"make test"}}]}}`, resultLine("done "+signal, false)),
	)
	log := &nopLog{}
	res, err := Loop(t.Context(), config(t, 5), sb, &fakeRepo{}, log)
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if got, want := len(res.Iterations), 2; got != want {
		t.Fatalf("iterations = %d, want %d", got, want)
	}
	if res.Signal != signal {
		t.Errorf("Signal = %q, want %q", res.Signal, signal)
	}
	if got, want := shas(res.Commits), []string{"c1", "c2"}; !slices.Equal(got, want) {
		t.Errorf("commits = %v, want %v", got, want)
	}
	if res.SessionID != "s2" {
		t.Errorf("SessionID = %q, want the last session s2", res.SessionID)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 20, OutputTokens: 10, CacheReadTokens: 200, CacheCreationTokens: 14, CostUSD: 0.5}); got != want {
		t.Errorf("Usage = %+v, want the sum %+v", got, want)
	}
	if got, want := log.tools, []string{"Bash(make test)"}; !slices.Equal(got, want) {
		t.Errorf("tool calls = %v, want %v", got, want)
	}
	if got := sb.stdin(0); got != "do the work" {
		t.Errorf("prompt on stdin = %q", got)
	}
}

func TestLoopRunsOutOfIterations(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	for range 3 {
		sb.add(lines(0, initLine("s"), resultLine("more to do", false)))
	}
	res, err := Loop(t.Context(), config(t, 3), sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if len(res.Iterations) != 3 || res.Signal != "" {
		t.Errorf("got %d iterations, signal %q; want 3 and none", len(res.Iterations), res.Signal)
	}
}

func TestLoopResumesOnlyFirstIteration(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(lines(0, resultLine("a", false)), lines(0, resultLine("b", false)))
	c := config(t, 2)
	c.Request.ResumeSession = "prev"
	if _, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{}); err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if !slices.Contains(sb.argv(0), "--resume") {
		t.Errorf("first iteration argv %q lacks --resume", sb.argv(0))
	}
	if slices.Contains(sb.argv(1), "--resume") {
		t.Errorf("second iteration argv %q resumes again", sb.argv(1))
	}
}

func TestLoopIdleTimeoutStopsAgent(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(linesThenHang(initLine("s"), textLine("thinking")))
	c := config(t, 1)
	c.IdleTimeout = 20 * time.Millisecond
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	var idle *IdleTimeoutError
	if !errors.As(err, &idle) {
		t.Fatalf("Loop error = %v, want IdleTimeoutError", err)
	}
	if got := shas(res.Commits); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("commits after idle timeout = %v, want the agent's commit kept", got)
	}
}

func TestLoopGraceWindowCompletes(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(linesThenHang(initLine("s"), textLine("all done "+signal)))
	c := config(t, 3)
	c.CompletionTimeout = 20 * time.Millisecond
	log := &nopLog{}
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, log)
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if res.Signal != signal || !res.Iterations[0].Forced {
		t.Errorf("Signal = %q, forced = %v; want the signal, forced", res.Signal, res.Iterations[0].Forced)
	}
	if len(log.warnings) != 1 || !strings.Contains(log.warnings[0], "completion-seconds") {
		t.Errorf("warnings = %q, want one naming completion-seconds", log.warnings)
	}
}

func TestLoopAgentError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script func(context.Context, sandbox.Exec) (sandbox.Result, error)
		want   string
	}{
		{"error_result", lines(1, resultLine("Invalid API key · Please run /login", true)), "exited with code 1: Invalid API key"},
		{"error_result_exit_zero", lines(0, resultLine("API Error: 500", true)), "reported an error: API Error: 500"},
		{"stderr_first", func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
			return sandbox.Result{ExitCode: 2, Stderr: "boom\n"}, nil
		}, "exited with code 2: boom"},
		{"error_result_over_stderr_noise", func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
			e.OnLine([]byte(resultLine("Invalid API key", true)))
			return sandbox.Result{ExitCode: 1, Stderr: "Reading prompt from stdin...\n"}, nil
		}, "exited with code 1: Invalid API key"},
		{"final_message_when_stderr_is_empty", lines(1, textLine("Looking at the code."), resultLine("Rate limit exceeded. Try again in 60s.", false)), "exited with code 1: Rate limit exceeded. Try again in 60s."},
		{"final_text_without_result", lines(1, textLine("Rate limit exceeded")), "exited with code 1: Rate limit exceeded"},
		{"final_message_ends_long_text", lines(1, textLine(strings.Repeat("é", 3000)+"\nQuota used up")), "exited with code 1: " + strings.Repeat("é", 12)},
		{"stderr_over_final_message", func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
			e.OnLine([]byte(resultLine("all done", false)))
			return sandbox.Result{ExitCode: 3, Stderr: "segfault\n"}, nil
		}, "exited with code 3: segfault"},
		{"signal_kill", func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
			e.OnLine([]byte("not json"))
			return sandbox.Result{ExitCode: 137, Signaled: true}, nil
		}, "killed by signal 9: not json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := &fakeSandbox{t: t}
			sb.add(tt.script)
			_, err := Loop(t.Context(), config(t, 1), sb, &fakeRepo{}, &nopLog{})
			var ae *AgentError
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v, want AgentError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// reportingAgent is claude-code plus lines `ERROR msg`, which it reports as non-fatal errors, the
// way codex reports a retried request.
type reportingAgent struct{ agent.Provider }

func (a reportingAgent) Parse(line []byte, dst []agent.Event) []agent.Event {
	if msg, ok := strings.CutPrefix(string(line), "ERROR "); ok {
		return append(dst, agent.Event{Kind: agent.EventError, Text: msg})
	}
	return a.Provider.Parse(line, dst)
}

func TestLoopReportedErrors(t *testing.T) {
	t.Parallel()
	t.Run("warned_and_run_goes_on", func(t *testing.T) {
		sb := &fakeSandbox{t: t}
		sb.add(lines(0, "ERROR Reconnecting... 1/5", textLine("done "+signal)))
		log := &nopLog{}
		c := config(t, 1)
		c.Agent = reportingAgent{claudeCode(t)}
		res, err := Loop(t.Context(), c, sb, &fakeRepo{}, log)
		if err != nil || res.Signal != signal {
			t.Fatalf("Loop() = signal %q, error %v; want the signal and no error", res.Signal, err)
		}
		if want := "claude-code reported: Reconnecting... 1/5"; !slices.Contains(log.warnings, want) {
			t.Errorf("warnings = %q, want %q", log.warnings, want)
		}
	})
	t.Run("last_one_is_the_failure_detail", func(t *testing.T) {
		sb := &fakeSandbox{t: t}
		sb.add(lines(1, "ERROR Reconnecting... 1/5", "ERROR unexpected status 401 Unauthorized"))
		c := config(t, 1)
		c.Agent = reportingAgent{claudeCode(t)}
		_, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
		if want := "exited with code 1: unexpected status 401 Unauthorized"; err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("error = %v, want it to end with %q", err, want)
		}
	})
}

func TestLoopCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	sb := &fakeSandbox{t: t}
	sb.add(func(c context.Context, e sandbox.Exec) (sandbox.Result, error) {
		cancel()
		return linesThenHang()(c, e)
	})
	res, err := Loop(ctx, config(t, 3), sb, &fakeRepo{}, &nopLog{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if len(res.Commits) != 1 || sb.count() != 1 {
		t.Errorf("commits %v after %d execs; want the commit kept and no further iteration", res.Commits, sb.count())
	}
}

func TestLoopStructuredOutputRetry(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("sess-1"), resultLine(`<result>{"score": "high"}</result> `+signal, false)),
		lines(0, initLine("sess-1"), resultLine(`<result>{"score": 7}</result>`, false)),
	)
	schema, err := structured.CompileSchema([]byte(`{"type":"object","properties":{"score":{"type":"integer"}},"required":["score"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := config(t, 1)
	c.Output = &structured.Spec{Tag: "result", Kind: structured.Object, Schema: schema}
	c.OutputRetries = 2
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if got, want := string(res.Output.JSON), `{"score":7}`; got != want {
		t.Errorf("output = %s, want %s", got, want)
	}
	retry := sb.argv(1)
	if i := slices.Index(retry, "--resume"); i < 0 || retry[i+1] != "sess-1" {
		t.Errorf("retry argv = %q, want --resume sess-1", retry)
	}
	if s := sb.stdin(1); !strings.Contains(s, "<result>") || !strings.Contains(s, "/score") {
		t.Errorf("retry prompt does not describe the problem:\n%s", s)
	}
	if !res.Iterations[1].Retry || len(res.Commits) != 2 {
		t.Errorf("retry not recorded: %+v", res.Iterations)
	}
}

func TestLoopStructuredOutputExhausted(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s"), resultLine("no tag here", false)),
		lines(0, initLine("s"), resultLine("still none", false)),
	)
	c := config(t, 1)
	c.Output = &structured.Spec{Tag: "result", Kind: structured.String}
	c.OutputRetries = 1
	_, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	var oe *OutputError
	var se *structured.Error
	if !errors.As(err, &oe) || !errors.As(err, &se) || se.Found {
		t.Fatalf("error = %v, want OutputError wrapping a not-found structured.Error", err)
	}
}

func shas(cs []gitref.Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.SHA)
	}
	return out
}

func TestWatchReportsSilence(t *testing.T) {
	t.Parallel()
	w := newWatch(t.Context(), time.Hour, time.Hour)
	defer w.stop()
	got := make(chan time.Duration, 3)
	w.warnEvery(time.Millisecond, func(d time.Duration) { got <- d })
	if first, second := <-got, <-got; first != time.Millisecond || second != 2*time.Millisecond {
		t.Errorf("silence reported as %s then %s, want 1ms then 2ms", first, second)
	}
	w.activity(true) // a signal ends the reports for good
	for len(got) > 0 {
		<-got
	}
	w.mu.Lock()
	silent := w.silentFor
	w.mu.Unlock()
	if silent != 0 {
		t.Errorf("silentFor = %s after activity, want 0", silent)
	}
}

// saver records the sessions it is asked to save; ids starting with "bad" fail.
type saver struct {
	mu  sync.Mutex
	ids []string
}

func (s *saver) Save(_ context.Context, id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
	if strings.HasPrefix(id, "bad") {
		return "", errors.New("disk full")
	}
	return "/home/me/" + id + ".jsonl", nil
}

func TestLoopSavesSessions(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s1"), textLine("working")),
		lines(0, initLine("bad2"), textLine("still working")),
		lines(1, textLine("no session reported")),
	)
	s, log := &saver{}, &nopLog{}
	c := config(t, 3)
	c.Sessions = s
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, log)
	if err == nil {
		t.Fatal("Loop() error = nil, want the third iteration's failure")
	}
	if got, want := s.ids, []string{"s1", "bad2"}; !slices.Equal(got, want) {
		t.Errorf("saved %q, want %q (every iteration that reported a session, failed ones too)", got, want)
	}
	if got, want := res.Iterations[0].SessionFile, "/home/me/s1.jsonl"; got != want {
		t.Errorf("iteration 1 SessionFile = %q, want %q", got, want)
	}
	if res.SessionID != "bad2" || res.SessionFile != "" {
		t.Errorf("Result session = %q at %q, want bad2, unsaved", res.SessionID, res.SessionFile)
	}
	if len(log.warnings) != 1 || !strings.Contains(log.warnings[0], "session bad2 was not saved") || !strings.Contains(log.warnings[0], "disk full") {
		t.Errorf("warnings = %q, want one about bad2", log.warnings)
	}
}

func TestLoopReportsProgressAndFinal(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s1"), `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"make test"}}]}}`, resultLine("first answer", false)),
		lines(0, initLine("s2"), resultLine("all done "+signal, false)),
	)
	var got []Progress
	c := config(t, 3)
	c.Progress = func(p Progress) { got = append(got, p) }
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	want := []Progress{
		{Iteration: 1, MaxIterations: 3},
		{Iteration: 1, MaxIterations: 3, LastTool: "Bash(make test)"},
		{Iteration: 1, MaxIterations: 3, Commits: 1},
		{Iteration: 2, MaxIterations: 3, Commits: 1},
		{Iteration: 2, MaxIterations: 3, Commits: 2},
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := res.Final, "all done "+signal; got != want {
		t.Errorf("Final = %q, want the last iteration's answer %q", got, want)
	}
}

// TestLoopExpandsInTheSandbox: a template's command runs in the sandbox by sh, its value in the
// environment of that one process and never in the shell text; the run logs each command with
// the size of its output and, verbose, the prompt each iteration sends.
func TestLoopExpandsInTheSandbox(t *testing.T) {
	t.Parallel()
	tmpl, err := prompt.Parse("Title: !`printf '%s' \"{{TITLE}}\"`")
	if err != nil {
		t.Fatal(err)
	}
	const title = `x"; touch pwned; echo "y`
	pr, err := tmpl.Render(map[string]string{"TITLE": title})
	if err != nil {
		t.Fatal(err)
	}
	shell := func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
		if want := []string{"sh", "-c", `printf '%s' "${SANDCASTLE_ARG_TITLE}"`}; !slices.Equal(e.Argv, want) || e.Env["SANDCASTLE_ARG_TITLE"] != title {
			t.Errorf("expansion exec = %q with env %q, want %q with the title in SANDCASTLE_ARG_TITLE", e.Argv, e.Env, want)
		}
		return sandbox.Result{Stdout: e.Env["SANDCASTLE_ARG_TITLE"]}, nil
	}
	for _, verbose := range []bool{false, true} {
		sb := &fakeSandbox{t: t}
		sb.add(shell, lines(0, resultLine("working", false)), shell, lines(0, resultLine("done", false)))
		c := config(t, 2)
		c.Prompt, c.Verbose = pr, verbose
		log := &nopLog{}
		if _, err := Loop(t.Context(), c, sb, &fakeRepo{}, log); err != nil {
			t.Fatalf("Loop: %v", err)
		}
		if got, want := sb.stdin(3), "Title: "+title; got != want {
			t.Errorf("the second iteration's prompt = %q, want %q", got, want)
		}
		if want := "!`printf '%s' \"{{TITLE}}\"` ran: 24 bytes (~6 tokens)"; !slices.Contains(log.statuses, want) {
			t.Errorf("statuses %q lack %q", log.statuses, want)
		}
		var want []string
		if verbose {
			want = []string{"1: Title: " + title, "2: Title: " + title}
		}
		if !slices.Equal(log.prompts, want) {
			t.Errorf("verbose %t: prompts logged = %q, want %q", verbose, log.prompts, want)
		}
	}
}

// TestLoopGuardsAfterEveryInvocation: the guard runs after each agent invocation, retries
// included and a cancelled one too, always before the commits are read; its error ends the run.
func TestLoopGuardsAfterEveryInvocation(t *testing.T) {
	t.Parallel()
	var order []string
	repo := &orderRepo{fakeRepo: &fakeRepo{}, order: &order}
	guard := func(ctx context.Context) error {
		if ctx.Err() != nil {
			t.Error("the guard got an ended context")
		}
		order = append(order, "guard")
		return nil
	}

	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("sess-1"), resultLine("no output yet", false)),
		lines(0, initLine("sess-1"), resultLine(`<result>{"score": 7}</result>`, false)),
	)
	c := config(t, 1)
	c.Output = &structured.Spec{Tag: "result", Kind: structured.Object}
	c.OutputRetries = 1
	c.Guard = guard
	if _, err := Loop(t.Context(), c, sb, repo, &nopLog{}); err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if got, want := strings.Join(order, " "), "guard commits guard commits"; got != want {
		t.Errorf("order = %q, want %q", got, want)
	}

	order = nil
	ctx, cancel := context.WithCancel(t.Context())
	sb = &fakeSandbox{t: t}
	sb.add(func(c context.Context, e sandbox.Exec) (sandbox.Result, error) {
		cancel()
		return linesThenHang()(c, e)
	})
	c = config(t, 3)
	c.Guard = guard
	if _, err := Loop(ctx, c, sb, repo, &nopLog{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Loop: %v", err)
	}
	if got, want := strings.Join(order, " "), "guard commits"; got != want {
		t.Errorf("cancelled: order = %q, want %q", got, want)
	}

	broken := errors.New("gitguard: put back .git/config: permission denied")
	sb = &fakeSandbox{t: t}
	sb.add(lines(0, resultLine("did something", false)))
	c = config(t, 3)
	c.Guard = func(context.Context) error { return broken }
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	if !errors.Is(err, broken) || sb.count() != 1 {
		t.Errorf("Loop = %v after %d execs, want the guard's error after the first", err, sb.count())
	}
	if len(res.Commits) != 1 {
		t.Errorf("commits %v, want the iteration's commit kept", res.Commits)
	}
}

// orderRepo records when commits are read.
type orderRepo struct {
	*fakeRepo
	order *[]string
}

func (r *orderRepo) Commits(ctx context.Context, base string) ([]gitref.Commit, error) {
	*r.order = append(*r.order, "commits")
	return r.fakeRepo.Commits(ctx, base)
}
