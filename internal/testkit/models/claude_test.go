package models

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// These tests drive the real claude CLI against the stand-in: they prove the wire format is
// good enough for the CLI, and pin the CLI behaviours doc.go describes.

const signal = "<promise>COMPLETE</promise>"

func TestAnthropicDrivesRealClaude(t *testing.T) {
	t.Parallel()
	claude := testkit.RequireBinary(t, "claude")
	repo := newRepo(t)
	a := NewAnthropic(t,
		Bash(`echo hi >> notes.txt && git add notes.txt && git -c user.name=t -c user.email=t@t commit -qm 'add note'`),
		Text("Done. "+signal),
	)

	run := runClaude(t, claude, a.Env(t.TempDir()), repo, "Add a note and commit it.")

	if run.exitCode != 0 {
		t.Fatalf("claude exit code = %d, want 0; stderr:\n%s", run.exitCode, run.stderr)
	}
	if got, want := gitOutput(t, repo, "log", "-1", "--format=%s"), "add note"; got != want {
		t.Errorf("last commit subject = %q, want %q", got, want)
	}
	res := run.result(t)
	if res.IsError || res.Subtype != "success" {
		t.Errorf("result is_error = %v, subtype = %q; want a success", res.IsError, res.Subtype)
	}
	if !strings.Contains(res.Result, signal) {
		t.Errorf("result = %q, want it to contain %q", res.Result, signal)
	}
	if res.SessionID == "" || res.SessionID != run.init(t).SessionID {
		t.Errorf("result session_id = %q, init session_id = %q; want equal and non-empty", res.SessionID, run.init(t).SessionID)
	}
	if got, want := res.Usage.InputTokens, int64(2*InputTokensPerReply); got != want {
		t.Errorf("result input_tokens = %d, want %d (two replies)", got, want)
	}
	if got, want := res.Usage.OutputTokens, int64(2*OutputTokensPerReply); got != want {
		t.Errorf("result output_tokens = %d, want %d (two replies)", got, want)
	}
	if res.TotalCostUSD <= 0 {
		t.Errorf("result total_cost_usd = %v, want > 0", res.TotalCostUSD)
	}

	reqs := a.Requests()
	if got, want := len(reqs), 2; got != want {
		t.Fatalf("main requests = %d, want %d", got, want)
	}
	if got, want := reqs[0].Model, "claude-opus-4-8"; got != want {
		t.Errorf("model = %q, want %q", got, want)
	}
	if !strings.Contains(reqs[0].Transcript(), "Add a note and commit it.") {
		t.Errorf("first request does not carry the prompt:\n%s", reqs[0].Transcript())
	}
	// claude 2.1.332 interleaves "system" role messages (environment, token budget), so look
	// at the last user turn rather than the last message.
	if got, want := toolResultIDs(lastUser(reqs[1])), "toolu_testkit_00"; got != want {
		t.Errorf("second request's last user turn has tool results for %q, want %q", got, want)
	}
}

func TestAnthropicErrorStepFailsClaude(t *testing.T) {
	t.Parallel()
	claude := testkit.RequireBinary(t, "claude")
	tests := []struct {
		name     string
		status   int
		requests int // how many requests the CLI makes for one failure (Env's retries off)
	}{
		{"unauthorized_401", 401, 1},
		{"forbidden_403", 403, 1},
		{"server_error_500", 500, 1},
		{"overloaded_529", 529, 1},
		{"not_found_404_retries_without_streaming", 404, 2},
		{"bad_request_400_retries_dropping_betas", 400, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := fmt.Sprintf("scripted failure %d", tt.status)
			var steps []Step
			for range tt.requests {
				steps = append(steps, Error(tt.status, msg))
			}
			a := NewAnthropic(t, steps...)

			run := runClaude(t, claude, a.Env(t.TempDir()), t.TempDir(), "Say hi.")

			if run.exitCode == 0 {
				t.Errorf("claude exit code = 0, want non-zero")
			}
			res := run.result(t)
			if !res.IsError {
				t.Errorf("result is_error = false, want true; result %q", res.Result)
			}
			if res.APIErrorStatus == nil || *res.APIErrorStatus != tt.status {
				t.Errorf("result api_error_status = %v, want %d", res.APIErrorStatus, tt.status)
			}
			if got := len(a.Requests()); got != tt.requests {
				t.Errorf("main requests = %d, want %d", got, tt.requests)
			}
			t.Logf("result: %q", res.Result)
		})
	}
}

func TestAnthropicResumeSendsEarlierTurns(t *testing.T) {
	t.Parallel()
	claude := testkit.RequireBinary(t, "claude")
	repo := newRepo(t)
	home := t.TempDir()
	a := NewAnthropic(t, Text("first answer"), Text("second answer"))

	first := runClaude(t, claude, a.Env(home), repo, "first question")
	session := first.result(t).SessionID
	second := runClaude(t, claude, a.Env(home), repo, "second question", "--resume", session)

	if second.exitCode != 0 {
		t.Fatalf("resumed claude exit code = %d, want 0; stderr:\n%s", second.exitCode, second.stderr)
	}
	if got, want := second.result(t).Result, "second answer"; got != want {
		t.Errorf("resumed result = %q, want %q", got, want)
	}
	if got, want := second.result(t).SessionID, session; got != want {
		t.Errorf("resumed session_id = %q, want the resumed %q", got, want)
	}
	checkResumed(t, a.Requests(), "first question", "assistant: first answer", "second question")
}

func TestAnthropicHangKeepsClaudeWaiting(t *testing.T) {
	t.Parallel()
	claude := testkit.RequireBinary(t, "claude")
	tests := []struct {
		name string
		step Step
		// seen is what stdout shows before the CLI goes quiet.
		seen func(line streamLine) bool
	}{
		{"hang", Hang(), func(line streamLine) bool { return line.Type == "system" && line.Subtype == "init" }},
		{"text_then_hang", TextThenHang("Done. " + signal), func(line streamLine) bool {
			return line.Type == "assistant" && strings.Contains(line.Message.Content.Text(), signal)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := NewAnthropic(t, tt.step)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cmd := cliCommand(ctx, claude, claudeArgs(), a.Env(t.TempDir()), t.TempDir(), "Say hi.")

			// By hand, claude 2.1.332 sat in both states for minutes, even with API_TIMEOUT_MS=5000.
			lines := runUntilKilled(t, cmd, cancel, a.WaitRequests, tt.seen)
			for _, line := range lines {
				if line.Type == "result" {
					t.Errorf("claude printed a result line while the reply was open: %+v", line)
				}
			}
		})
	}
}

// streamLine is the part of a claude stream-json line these tests read.
type streamLine struct {
	Type           string  `json:"type"`
	Subtype        string  `json:"subtype"`
	SessionID      string  `json:"session_id"`
	Result         string  `json:"result"`
	IsError        bool    `json:"is_error"`
	APIErrorStatus *int    `json:"api_error_status"`
	TotalCostUSD   float64 `json:"total_cost_usd"`
	Usage          struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Message struct {
		Content Content `json:"content"`
	} `json:"message"`
}

// claudeRun is a claude run to its end.
type claudeRun struct{ cliRun[streamLine] }

func (r claudeRun) result(t *testing.T) streamLine {
	t.Helper()
	return r.find(t, "result", func(l streamLine) bool { return l.Type == "result" })
}

func (r claudeRun) init(t *testing.T) streamLine {
	t.Helper()
	return r.find(t, "system/init", func(l streamLine) bool { return l.Type == "system" && l.Subtype == "init" })
}

// claudeArgs is the AFK invocation the claude-code provider builds (spec agents.md §1).
func claudeArgs(extra ...string) []string {
	args := []string{"--print", "--verbose", "--dangerously-skip-permissions", "--output-format", "stream-json", "--model", "claude-opus-4-8"}
	return append(append(args, extra...), "-p", "-")
}

// runClaude runs claude in dir with prompt on stdin to its end and decodes its stdout.
func runClaude(t *testing.T, bin string, env map[string]string, dir, prompt string, extra ...string) claudeRun {
	t.Helper()
	return claudeRun{runCLI[streamLine](t, cliCommand(t.Context(), bin, claudeArgs(extra...), env, dir, prompt))}
}

func lastUser(r Request) Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	return Message{}
}

func toolResultIDs(m Message) string {
	var ids []string
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			ids = append(ids, b.ToolUseID)
		}
	}
	return strings.Join(ids, ",")
}

// newRepo makes a git repository with one commit.
func newRepo(t *testing.T) string {
	t.Helper()
	testkit.RequireBinary(t, "git")
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitOutput(t, dir, "init", "-q")
	gitOutput(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
