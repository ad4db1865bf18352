package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// These tests drive the real codex CLI against the OpenAI stand-in: they prove the wire format is
// good enough for the CLI, and pin the CLI behaviours doc.go describes.

// codexModel is in codex's bundled model catalog; another name adds a warning item to stdout.
const codexModel = "gpt-5.5"

func TestOpenAIDrivesRealCodex(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	repo := newRepo(t)
	const command = `echo hi >> notes.txt && git add notes.txt && git -c user.name=t -c user.email=t@t commit -qm 'add note'`
	o := NewOpenAI(t, Bash(command), Text("Done. "+signal))

	run := runCodex(t, codex, o, t.TempDir(), repo, "Add a note and commit it.")

	if run.exitCode != 0 {
		t.Fatalf("codex exit code = %d, want 0; stderr:\n%s", run.exitCode, run.stderr)
	}
	if got, want := gitOutput(t, repo, "log", "-1", "--format=%s"), "add note"; got != want {
		t.Errorf("last commit subject = %q, want %q", got, want)
	}
	ran := run.item(t, "command_execution")
	if ran.Item.ExitCode == nil || *ran.Item.ExitCode != 0 || !strings.Contains(ran.Item.Command, "commit -qm") {
		t.Errorf("command_execution item = %+v, want the scripted command with exit code 0", ran.Item)
	}
	if got := run.item(t, "agent_message").Item.Text; !strings.Contains(got, signal) {
		t.Errorf("agent_message text = %q, want it to contain %q", got, signal)
	}
	usage := run.find(t, "turn.completed", isType("turn.completed")).Usage
	want := codexUsage{
		InputTokens:       2 * (InputTokensPerReply + CacheReadTokensPerReply),
		CachedInputTokens: 2 * CacheReadTokensPerReply,
		OutputTokens:      2 * OutputTokensPerReply,
	}
	if usage != want {
		t.Errorf("turn.completed usage = %+v, want %+v (two replies)", usage, want)
	}
	if run.threadID(t) == "" {
		t.Errorf("thread.started has no thread_id")
	}

	reqs := o.Requests()
	if got, want := len(reqs), 2; got != want {
		t.Fatalf("main requests = %d, want %d", got, want)
	}
	if got, want := reqs[0].Model, codexModel; got != want {
		t.Errorf("model = %q, want %q", got, want)
	}
	if !strings.Contains(reqs[0].Transcript(), "user: Add a note and commit it.") {
		t.Errorf("first request does not carry the prompt:\n%s", reqs[0].Transcript())
	}
	second := reqs[1].Transcript()
	for _, want := range []string{`assistant: [tool_use exec_command {"cmd":`, "tool: [tool_result ", "Process exited with code 0"} {
		if !strings.Contains(second, want) {
			t.Errorf("second request lacks %q; transcript:\n%s", want, second)
		}
	}
	if got, want := lastToolResultID(reqs[1]), "call_testkit_00"; got != want {
		t.Errorf("second request's last tool result answers %q, want %q", got, want)
	}
}

func TestOpenAIErrorStepFailsCodex(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	tests := []struct {
		name   string
		status int
		// want is in turn.failed's message. codex 0.171 quotes the API's message for most
		// statuses, but replaces it for 429 and 500.
		want string
	}{
		{"unauthorized_401", 401, "unexpected status 401 Unauthorized: scripted failure 401"},
		{"forbidden_403", 403, "unexpected status 403 Forbidden: scripted failure 403"},
		{"bad_request_400_quotes_the_body", 400, `"message":"scripted failure 400"`},
		{"rate_limited_429_hides_the_message", 429, "exceeded retry limit, last status: 429 Too Many Requests"},
		{"server_error_500_hides_the_message", 500, "currently experiencing high demand"},
		{"unavailable_503", 503, "unexpected status 503 Service Unavailable: scripted failure 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := NewOpenAI(t, Error(tt.status, fmt.Sprintf("scripted failure %d", tt.status)))

			run := runCodex(t, codex, o, t.TempDir(), newRepo(t), "Say hi.")

			if got, want := run.exitCode, 1; got != want {
				t.Errorf("codex exit code = %d, want %d", got, want)
			}
			if got := run.find(t, "turn.failed", isType("turn.failed")).Error.Message; !strings.Contains(got, tt.want) {
				t.Errorf("turn.failed message = %q, want it to contain %q", got, tt.want)
			}
			if got, want := len(o.Requests()), 1; got != want {
				t.Errorf("main requests = %d, want %d (retries off)", got, want)
			}
		})
	}
}

// With stream_max_retries=0 a response cut before response.completed fails the turn at once;
// with codex's default it would reconnect and replay the turn, re-running its tool calls.
func TestOpenAICutStreamFailsCodexTurn(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	rec := testkit.NewRecordingTB(t)
	o := NewOpenAI(rec, TextThenHang("Done. "+signal))
	// Everything that may fail the test happens here, on the test's goroutine; the goroutine
	// only runs the process.
	cmd := cliCommand(t.Context(), codex, codexArgs(o), codexEnv(t, o, t.TempDir()), newRepo(t), "Say hi.")
	ctx, cancel := context.WithCancel(t.Context())
	outs := make(chan cliOutput, 1)
	go func() {
		defer cancel() // codex ended: stop waiting for its request
		outs <- runProcess(cmd)
	}()
	err := o.WaitRequests(ctx, 1) // fails if codex ended first
	rec.RunCleanups()             // ends the test's stand-in: the held stream closes
	run := codexRun{decodeCLI[codexLine](t, <-outs)}
	if err != nil {
		t.Fatalf("codex made no request: %v; exit code %d, stderr:\n%s", err, run.exitCode, run.stderr)
	}
	if got, want := run.exitCode, 1; got != want {
		t.Errorf("codex exit code = %d, want %d", got, want)
	}
	if got := run.item(t, "agent_message").Item.Text; !strings.Contains(got, signal) {
		t.Errorf("agent_message text = %q, want it to contain %q", got, signal)
	}
	if got, want := run.find(t, "turn.failed", isType("turn.failed")).Error.Message, "stream disconnected before completion"; !strings.Contains(got, want) {
		t.Errorf("turn.failed message = %q, want it to contain %q", got, want)
	}
	if got, want := len(o.Requests()), 1; got != want {
		t.Errorf("main requests = %d, want %d (no reconnect)", got, want)
	}
	if len(rec.Errors) > 0 {
		t.Errorf("unexpected stand-in errors: %q", rec.Errors)
	}
}

// CodexConfig in $CODEX_HOME/config.toml does what CodexArgs does, for a codex whose argv a
// test does not build.
func TestOpenAICodexConfigFile(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	o := NewOpenAI(t, Text("configured"))
	env := codexEnv(t, o, t.TempDir())
	if err := os.WriteFile(filepath.Join(env["CODEX_HOME"], "config.toml"), []byte(o.CodexConfig()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", codexModel, "-"}

	run := codexRun{runCLI[codexLine](t, cliCommand(t.Context(), codex, args, env, newRepo(t), "Say hi."))}

	if run.exitCode != 0 {
		t.Fatalf("codex exit code = %d, want 0; stderr:\n%s", run.exitCode, run.stderr)
	}
	if got, want := run.item(t, "agent_message").Item.Text, "configured"; got != want {
		t.Errorf("agent_message = %q, want %q", got, want)
	}
}

func TestOpenAIResumeSendsEarlierTurns(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	repo := newRepo(t)
	home := t.TempDir()
	o := NewOpenAI(t, Text("first answer"), Text("second answer"))

	first := runCodex(t, codex, o, home, repo, "first question")
	thread := first.threadID(t)
	second := runCodex(t, codex, o, home, repo, "second question", "resume", thread)

	if second.exitCode != 0 {
		t.Fatalf("resumed codex exit code = %d, want 0; stderr:\n%s", second.exitCode, second.stderr)
	}
	if got, want := second.item(t, "agent_message").Item.Text, "second answer"; got != want {
		t.Errorf("resumed agent_message = %q, want %q", got, want)
	}
	if got, want := second.threadID(t), thread; got != want {
		t.Errorf("resumed thread_id = %q, want the resumed %q", got, want)
	}
	checkResumed(t, o.Requests(), "user: first question", "assistant: first answer", "user: second question")
}

func TestOpenAIHangKeepsCodexWaiting(t *testing.T) {
	t.Parallel()
	codex := testkit.RequireBinary(t, "codex")
	tests := []struct {
		name string
		step Step
		// seen is what stdout shows before the CLI goes quiet.
		seen func(line codexLine) bool
	}{
		{"hang", Hang(), isType("turn.started")},
		{"text_then_hang", TextThenHang("Done. " + signal), func(line codexLine) bool {
			return line.Item.Type == "agent_message" && strings.Contains(line.Item.Text, signal)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := NewOpenAI(t, tt.step)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cmd := cliCommand(ctx, codex, codexArgs(o), codexEnv(t, o, t.TempDir()), newRepo(t), "Say hi.")

			lines := runUntilKilled(t, cmd, cancel, o.WaitRequests, tt.seen)
			for _, line := range lines {
				if line.Type == "turn.completed" || line.Type == "turn.failed" {
					t.Errorf("codex ended the turn while the reply was open: %+v", line)
				}
			}
		})
	}
}

// codexLine is the part of a `codex exec --json` line these tests read.
type codexLine struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Item     struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Command  string `json:"command"`
		ExitCode *int   `json:"exit_code"`
	} `json:"item"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
	Usage codexUsage `json:"usage"`
}

type codexUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

func isType(typ string) func(codexLine) bool {
	return func(l codexLine) bool { return l.Type == typ }
}

// codexRun is a codex run to its end.
type codexRun struct{ cliRun[codexLine] }

// item returns the first completed item of type typ.
func (r codexRun) item(t *testing.T, typ string) codexLine {
	t.Helper()
	return r.find(t, "item.completed/"+typ, func(l codexLine) bool { return l.Type == "item.completed" && l.Item.Type == typ })
}

func (r codexRun) threadID(t *testing.T) string {
	t.Helper()
	return r.find(t, "thread.started", isType("thread.started")).ThreadID
}

// codexArgs is the invocation the codex provider builds (internal/agent), pointed at o;
// extra goes right after exec (resume ID).
func codexArgs(o *OpenAI, extra ...string) []string {
	args := append([]string{"exec"}, extra...)
	args = append(args, "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", codexModel)
	return append(append(args, o.CodexArgs()...), "-")
}

// codexEnv is o.Env(home) with CODEX_HOME created, as codex requires.
func codexEnv(t *testing.T, o *OpenAI, home string) map[string]string {
	t.Helper()
	env := o.Env(home)
	if err := os.MkdirAll(env["CODEX_HOME"], 0o755); err != nil {
		t.Fatal(err)
	}
	return env
}

// runCodex runs codex in dir with prompt on stdin to its end and decodes its stdout.
func runCodex(t *testing.T, bin string, o *OpenAI, home, dir, prompt string, extra ...string) codexRun {
	t.Helper()
	return codexRun{runCLI[codexLine](t, cliCommand(t.Context(), bin, codexArgs(o, extra...), codexEnv(t, o, home), dir, prompt))}
}

// lastToolResultID is the call id the last tool result of r answers.
func lastToolResultID(r Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, b := range r.Messages[i].Content {
			if b.Type == "tool_result" {
				return b.ToolUseID
			}
		}
	}
	return ""
}
