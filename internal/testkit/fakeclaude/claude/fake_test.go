package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rig is one fake claude with its script, run in-process.
type rig struct {
	t      *testing.T
	script string
	dir    string
	home   string
}

func newRig(t *testing.T, steps ...Step) *rig {
	t.Helper()
	r := &rig{t: t, script: filepath.Join(t.TempDir(), "claude"), dir: t.TempDir(), home: t.TempDir()}
	data, err := json.Marshal(Script{Steps: steps, Usage: Usage{InputTokens: 10, OutputTokens: 2, CostUSD: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.script+".script", data, 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// run is one invocation; it returns the exit code and the lines printed, decoded.
func (r *rig) run(args ...string) (int, []map[string]any, string) {
	r.t.Helper()
	var stdout, stderr bytes.Buffer
	f := &fake{script: r.script, dir: r.dir, home: r.home, env: []string{"PATH=" + os.Getenv("PATH")},
		stdin: strings.NewReader("the prompt"), stdout: &stdout, stderr: &stderr, hang: func() int { return 143 }}
	code := f.run(args)
	var lines []map[string]any
	for l := range strings.Lines(stdout.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			r.t.Fatalf("line %q is not JSON: %v", l, err)
		}
		lines = append(lines, m)
	}
	return code, lines, stderr.String()
}

func types(lines []map[string]any) string {
	var ts []string
	for _, l := range lines {
		ts = append(ts, l["type"].(string))
	}
	return strings.Join(ts, " ")
}

func TestConversation(t *testing.T) {
	r := newRig(t, Step{Kind: "bash", Command: "echo out; exit 3"}, Step{Kind: "text", Text: "done"},
		Step{Kind: "hang"}, Step{Kind: "text_then_hang", Text: "signal"}, Step{Kind: "error", Status: 401, Body: "bad key"})
	code, lines, _ := r.run("--model", "m")
	if code != 0 || types(lines) != "system assistant user assistant result" {
		t.Fatalf("exit %d, lines %v", code, lines)
	}
	tool := lines[2]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if tool["content"] != "out\n" || tool["is_error"] != true {
		t.Errorf("tool result %v, want the output of a failed command", tool)
	}
	result := lines[4]
	if result["result"] != "done" || result["total_cost_usd"] != 1.0 || result["usage"].(map[string]any)["input_tokens"] != 20.0 {
		t.Errorf("result %v, want two replies' usage", result)
	}
	session := lines[0]["session_id"].(string)

	if code, lines, _ := r.run("--resume", session); code != 143 || types(lines) != "system" {
		t.Errorf("hang: exit %d, lines %v", code, lines)
	}
	if code, lines, _ := r.run("--resume", session, "--fork-session"); code != 143 || types(lines) != "system assistant" || lines[0]["session_id"] == session {
		t.Errorf("text then hang in a fork: exit %d, lines %v", code, lines)
	}
	if code, lines, _ := r.run(); code != 1 || lines[1]["result"] != "API Error: 401 bad key" || lines[1]["is_error"] != true {
		t.Errorf("error: exit %d, lines %v", code, lines)
	}
	if code, lines, _ := r.run(); code != 1 || !strings.Contains(lines[1]["result"].(string), "script exhausted") {
		t.Errorf("exhausted: exit %d, lines %v", code, lines)
	}
	if code, lines, _ := r.run("--resume", "no-such-session"); code != 1 || !strings.Contains(lines[0]["result"].(string), "No conversation found") {
		t.Errorf("missing session: exit %d, lines %v", code, lines)
	}
	calls, err := os.ReadFile(r.script + ".calls")
	if err != nil || strings.Count(string(calls), "the prompt") != 6 {
		t.Errorf("calls recorded: %q, %v", calls, err)
	}
	sessions, _ := filepath.Glob(filepath.Join(r.home, ".claude", "projects", "*", "*.jsonl"))
	if len(sessions) != 4 {
		t.Errorf("sessions %q, want four: the first, its fork, and the error's and the exhausted script's", sessions)
	}
}

func TestBrokenScripts(t *testing.T) {
	r := newRig(t, Step{Kind: "sing"})
	if code, _, stderr := r.run(); code != 2 || !strings.Contains(stderr, `unknown step "sing"`) {
		t.Errorf("unknown step: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(r.script+".script", []byte("{"), 0o644)
	if code, _, stderr := r.run(); code != 2 || !strings.Contains(stderr, "claude.script") {
		t.Errorf("bad script: exit %d, stderr %q", code, stderr)
	}
	os.Remove(r.script + ".script")
	if code, _, _ := r.run(); code != 2 {
		t.Errorf("no script: exit %d", code)
	}
}
