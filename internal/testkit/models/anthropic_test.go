package models

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// These tests speak to the stand-in over HTTP without the CLI, so they run everywhere.

// mainBody is a minimal main request: it offers a tool, so it consumes a step.
const mainBody = `{"model":"claude-opus-4-8","stream":%t,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`

func post(t *testing.T, ctx context.Context, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, b
}

func TestAnthropicStreamIsWellFormed(t *testing.T) {
	t.Parallel()
	a := NewAnthropic(t, Bash("ls"))
	_, body := post(t, t.Context(), a.URL()+"/v1/messages", fmt.Sprintf(mainBody, true))

	var types []string
	var partial strings.Builder
	for ev := range strings.SplitSeq(strings.TrimSpace(string(body)), "\n\n") {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		if !ok {
			t.Fatalf("event without data line: %q", ev)
		}
		var payload struct {
			Type  string `json:"type"`
			Delta struct {
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &payload); err != nil {
			t.Fatalf("event data is not JSON: %v: %q", err, data)
		}
		if got, want := strings.TrimPrefix(name, "event: "), payload.Type; got != want {
			t.Errorf("event name %q, data type %q; want equal", got, want)
		}
		types = append(types, payload.Type)
		partial.WriteString(payload.Delta.PartialJSON)
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event sequence = %s, want %s", got, want)
	}
	var input bashInput
	if err := json.Unmarshal([]byte(partial.String()), &input); err != nil {
		t.Fatalf("tool input deltas do not join into JSON: %v: %q", err, partial.String())
	}
	if got, want := input.Command, "ls"; got != want {
		t.Errorf("tool input command = %q, want %q", got, want)
	}
}

func TestAnthropicSideRequestsKeepScript(t *testing.T) {
	t.Parallel()
	a := NewAnthropic(t, Text("main answer"))
	ctx := t.Context()

	if status, _ := post(t, ctx, a.URL()+"/v1/messages/count_tokens?beta=true", `{"model":"m","messages":[]}`); status != http.StatusOK {
		t.Errorf("count_tokens status = %d, want 200", status)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, a.URL()+"/api/hello", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Errorf("HEAD /api/hello status = %d, want %d", got, want)
	}
	side := `{"model":"claude-haiku-4-5","stream":false,"messages":[{"role":"user","content":"title?"}]}`
	if status, body := post(t, ctx, a.URL()+"/v1/messages", side); status != http.StatusOK || !bytes.Contains(body, []byte(`"text":"ok"`)) {
		t.Errorf("side request = %d %s, want 200 with text ok", status, body)
	}
	if status, _ := post(t, ctx, a.URL()+"/api/unknown", `{}`); status != http.StatusNotFound {
		t.Errorf("unknown path status = %d, want 404", status)
	}

	_, body := post(t, ctx, a.URL()+"/v1/messages", fmt.Sprintf(mainBody, false))
	if !bytes.Contains(body, []byte("main answer")) {
		t.Errorf("first main request got %s, want the first step", body)
	}
	if got, want := len(a.Requests()), 1; got != want {
		t.Errorf("recorded requests = %d, want %d (side requests are not recorded)", got, want)
	}
}

func TestRequestDecoding(t *testing.T) {
	t.Parallel()
	body := `{"model":"m","system":"be brief","messages":[
		{"role":"user","content":"question"},
		{"role":"assistant","content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.txt"}]}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"plain result","is_error":true}]}]}`
	var r Request
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if got, want := r.System.Text(), "be brief"; got != want {
		t.Errorf("system = %q, want %q", got, want)
	}
	want := "user: question\n" +
		"assistant: let me look\n" +
		`assistant: [tool_use Bash {"command":"ls"}]` + "\n" +
		"user: [tool_result a.txt]\n" +
		"user: [tool_result plain result]\n"
	if got := r.Transcript(); got != want {
		t.Errorf("Transcript() =\n%s\nwant\n%s", got, want)
	}
	if !r.Messages[3].Content[0].IsError {
		t.Errorf("is_error not decoded")
	}
}

// golden compares got with testdata/NAME.golden; UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name+".golden"), got)
}

// TestAnthropicEnv: the variables point claude at the stand-in, hermetic and quiet.
func TestAnthropicEnv(t *testing.T) {
	a := NewAnthropic(t)
	env := a.Env("/home/agent")
	for k, want := range map[string]string{"HOME": "/home/agent", "TMPDIR": "/home/agent/tmp", "ANTHROPIC_BASE_URL": a.URL(),
		"ANTHROPIC_API_KEY": FakeAPIKey, "CLAUDE_CODE_MAX_RETRIES": "0", "IS_SANDBOX": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
}
