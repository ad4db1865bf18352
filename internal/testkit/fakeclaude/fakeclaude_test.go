package fakeclaude

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// fakeRun runs the fake claude in dir with HOME home and returns the events claude's parser
// finds in its stdout, and its exit code.
func fakeRun(t *testing.T, f *Claude, dir, home, prompt string, args ...string) ([]agent.Event, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(f.Dir(), "claude"), append([]string{"--print", "--output-format", "stream-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com"}
	cmd.Stdin = strings.NewReader(prompt)
	out, err := cmd.Output()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	for line := range strings.Lines(string(out)) {
		events = claudeCode(t).Parse([]byte(strings.TrimSuffix(line, "\n")), events)
	}
	return events, code
}

func kinds(events []agent.Event) []agent.EventKind {
	var ks []agent.EventKind
	for _, e := range events {
		ks = append(ks, e.Kind)
	}
	return ks
}

// TestFakeClaudeSpeaksStreamJSON: the fake's stream is what claude's parser reads from the real
// CLI: a session, the tool call it ran, the final text and the result with the usage of each
// reply; and the next invocation resumes the session and goes on with the script.
func TestFakeClaudeSpeaksStreamJSON(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	f := New(t,
		models.Bash("echo hi > hi.txt && git add hi.txt && git commit -qm 'Say hi' && echo committed"),
		models.Text("Done. <promise>COMPLETE</promise>"),
		models.Error(500, "scripted outage"),
		models.Text("again"),
	)
	events, code := fakeRun(t, f, dir, home, "Say hi.", "--model", "claude-opus-4-8")
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if want := []agent.EventKind{agent.EventSession, agent.EventToolCall, agent.EventText, agent.EventResult, agent.EventUsage}; !slices.Equal(kinds(events), want) {
		t.Fatalf("events %+v, want kinds %v", events, want)
	}
	session := events[0].SessionID
	if events[1].Tool != "Bash" || !strings.Contains(events[1].Args, "git commit") || events[3].Text != "Done. <promise>COMPLETE</promise>" {
		t.Errorf("tool call %+v, result %+v", events[1], events[3])
	}
	if u := events[4].Usage; u.InputTokens != 2*models.InputTokensPerReply || u.CacheCreationTokens != 2*models.CacheCreationTokensPerReply || u.CostUSD != 2*CostPerReply {
		t.Errorf("usage %+v, want two replies' worth", u)
	}
	if out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%s").Output(); err != nil || strings.TrimSpace(string(out)) != "Say hi" {
		t.Errorf("the tool call's commit: %q, %v", out, err)
	}

	events, code = fakeRun(t, f, dir, home, "Go on.", "--resume", session)
	if code != 1 || !events[len(events)-2].IsError || !strings.Contains(events[len(events)-2].Text, "API Error: 500 scripted outage") {
		t.Errorf("exit %d, events %+v; want the scripted API error", code, events)
	}
	if events[0].SessionID != session {
		t.Errorf("resumed session %q, want %q", events[0].SessionID, session)
	}
	events, _ = fakeRun(t, f, dir, home, "Fork it.", "--resume", session, "--fork-session")
	if events[0].SessionID == session || events[0].SessionID == "" {
		t.Errorf("forked session %q, want a new one", events[0].SessionID)
	}

	calls := f.Calls()
	if len(calls) != 3 || calls[0].Prompt != "Say hi." || calls[0].Dir != dir || !slices.Contains(calls[1].Args, "--resume") || !slices.Contains(calls[0].Env, "HOME="+home) {
		t.Errorf("calls %+v", calls)
	}
	sessions, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(sessions) != 2 {
		t.Errorf("session files %q, want the session and its fork", sessions)
	}
}

// TestFakeClaudeRefusesAMissingSession: resuming a session that is not in the store fails as
// claude fails, and takes no step.
func TestFakeClaudeRefusesAMissingSession(t *testing.T) {
	f := New(t, models.Text("never"))
	events, code := fakeRun(t, f, t.TempDir(), t.TempDir(), "p", "--resume", "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93")
	if code != 1 || len(events) == 0 || !strings.Contains(events[0].Text, "No conversation found") {
		t.Errorf("exit %d, events %+v; want no conversation found", code, events)
	}
	fakeRun(t, f, t.TempDir(), t.TempDir(), "p")
}

// TestFakeClaudeScriptExhausted: a step past the end fails the invocation, saying so.
func TestFakeClaudeScriptExhausted(t *testing.T) {
	f := New(t)
	events, code := fakeRun(t, f, t.TempDir(), t.TempDir(), "p")
	if code != 1 || !strings.Contains(events[len(events)-2].Text, "script exhausted") {
		t.Errorf("exit %d, events %+v; want the script exhausted", code, events)
	}
}

// claudeCode is the claude-code agent, whose stream-json the fake claude speaks.
func claudeCode(t testing.TB) agent.Provider {
	t.Helper()
	a, err := agent.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFakeClaudeUnusedScript: steps left unused fail the test, unless the test skipped (a tool
// it needs is missing) or failed already.
func TestFakeClaudeUnusedScript(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		end       func(rec *testkit.RecordingTB)
		wantError bool
	}{
		{"passed", func(*testkit.RecordingTB) {}, true},
		{"skipped", func(rec *testkit.RecordingTB) { rec.Skipf("skipping: not here") }, false},
		{"failed", func(rec *testkit.RecordingTB) { rec.Errorf("failed") }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := testkit.NewRecordingTB(t)
			New(rec, models.Text("never asked"))
			tt.end(rec)
			rec.RunCleanups()
			got := slices.ContainsFunc(rec.Errors, func(e string) bool { return strings.Contains(e, "script not finished") })
			if got != tt.wantError {
				t.Errorf("errors = %q, want script not finished: %v", rec.Errors, tt.wantError)
			}
		})
	}
}

// TestBuildFake: a build lands at its path whole, through a file of its own that is gone after,
// and the program runs; a directory that cannot be made is an error.
func TestBuildFake(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "claude")
	if err := buildFake(dir, path); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %v in the build directory; want the program alone", entries)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the program: %v, %v; want an executable", fi, err)
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := buildFake(filepath.Join(blocked, "sub"), filepath.Join(blocked, "sub", "claude")); err == nil {
		t.Error("building under a file: no error")
	}
}
