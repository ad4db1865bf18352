package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// These tests speak to the OpenAI stand-in over HTTP without the CLI, so they run everywhere.

// responsesBody is a minimal main Responses API request: it offers codex's shell tool, so it
// consumes a step.
const responsesBody = `{"model":"gpt-5.5","stream":%t,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],` +
	`"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}},{"type":"web_search"}]}`

// responsesEvent is the part of a Responses API stream event these tests read.
type responsesEvent struct {
	Type           string `json:"type"`
	SequenceNumber int    `json:"sequence_number"`
	Delta          string `json:"delta"`
	Response       struct {
		Status string `json:"status"`
		Usage  struct {
			InputTokens        int `json:"input_tokens"`
			InputTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokens int `json:"output_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	} `json:"response"`
	Item struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Content   []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

// readEvents splits an event stream into events, checking that each frame is an event line and
// a JSON data line of the same type, numbered in order.
func readEvents(t *testing.T, body []byte) []responsesEvent {
	t.Helper()
	var events []responsesEvent
	for frame := range strings.SplitSeq(strings.TrimSpace(string(body)), "\n\n") {
		name, data, ok := strings.Cut(frame, "\ndata: ")
		if !ok {
			t.Fatalf("event without data line: %q", frame)
		}
		var ev responsesEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event data is not JSON: %v: %q", err, data)
		}
		if got, want := strings.TrimPrefix(name, "event: "), ev.Type; got != want {
			t.Errorf("event name %q, data type %q; want equal", got, want)
		}
		if got, want := ev.SequenceNumber, len(events); got != want {
			t.Errorf("%s sequence_number = %d, want %d", ev.Type, got, want)
		}
		events = append(events, ev)
	}
	return events
}

func TestOpenAIStreamIsWellFormed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		step   Step
		events string
		// deltas is what the delta events join into.
		deltas string
	}{
		{"text", Text("Done. <promise>COMPLETE</promise>"),
			"response.created response.output_item.added response.content_part.added response.output_text.delta " +
				"response.output_text.done response.content_part.done response.output_item.done response.completed",
			"Done. <promise>COMPLETE</promise>"},
		{"bash", Bash("ls > out.txt"),
			"response.created response.output_item.added response.function_call_arguments.delta " +
				"response.function_call_arguments.done response.output_item.done response.completed",
			`{"cmd":"ls > out.txt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := NewOpenAI(t, tt.step)
			_, body := post(t, t.Context(), o.URL()+"/responses", fmt.Sprintf(responsesBody, true))

			events := readEvents(t, body)
			var types []string
			var deltas strings.Builder
			for _, ev := range events {
				types = append(types, ev.Type)
				deltas.WriteString(ev.Delta)
			}
			if got := strings.Join(types, " "); got != tt.events {
				t.Errorf("event sequence = %s, want %s", got, tt.events)
			}
			if got := deltas.String(); got != tt.deltas {
				t.Errorf("deltas join into %q, want %q", got, tt.deltas)
			}
			done := events[len(events)-2].Item
			if got := done.Arguments + strings.Join(contentTexts(done.Content), ""); got != tt.deltas {
				t.Errorf("output_item.done carries %q, want %q", got, tt.deltas)
			}
			completed := events[len(events)-1].Response
			if got, want := completed.Status, "completed"; got != want {
				t.Errorf("response.completed status = %q, want %q", got, want)
			}
			u := completed.Usage
			if got, want := u.InputTokens-u.InputTokensDetails.CachedTokens, InputTokensPerReply; got != want {
				t.Errorf("input_tokens - cached_tokens = %d, want InputTokensPerReply = %d", got, want)
			}
			if got, want := u.InputTokensDetails.CachedTokens, CacheReadTokensPerReply; got != want {
				t.Errorf("cached_tokens = %d, want %d", got, want)
			}
			if got, want := u.OutputTokens, OutputTokensPerReply; got != want {
				t.Errorf("output_tokens = %d, want %d", got, want)
			}
			if got, want := u.TotalTokens, u.InputTokens+u.OutputTokens; got != want {
				t.Errorf("total_tokens = %d, want %d", got, want)
			}
		})
	}
}

func contentTexts(content []struct {
	Text string `json:"text"`
}) []string {
	var texts []string
	for _, c := range content {
		texts = append(texts, c.Text)
	}
	return texts
}

func TestOpenAIBashCallsOfferedShellTool(t *testing.T) {
	t.Parallel()
	const (
		execCommand = `{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"workdir":{"type":"string"}}}}`
		shellArray  = `{"type":"function","name":"shell","parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}}`
		bashString  = `{"type":"function","name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}}}}`
		other       = `{"type":"function","name":"view_image","parameters":{"type":"object","properties":{"path":{"type":"string"}}}},{"type":"web_search"}`
	)
	tests := []struct {
		name      string
		tools     string
		wantName  string
		wantArgs  string
		wantError string
	}{
		{"exec_command_takes_cmd", other + "," + execCommand, "exec_command", `{"cmd":"ls -a"}`, ""},
		{"exec_command_preferred", shellArray + "," + bashString + "," + execCommand, "exec_command", `{"cmd":"ls -a"}`, ""},
		{"array_command_runs_bash", other + "," + shellArray, "shell", `{"command":["bash","-lc","ls -a"]}`, ""},
		{"string_command", bashString, "bash", `{"command":"ls -a"}`, ""},
		{"no_shell_tool_fails_test", other, "", "", "request offers no shell tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := testkit.NewRecordingTB(t)
			o := NewOpenAI(rec, Bash("ls -a"))
			body := `{"model":"m","stream":false,"input":"run it","tools":[` + tt.tools + `]}`
			status, reply := post(t, t.Context(), o.URL()+"/responses", body)
			rec.RunCleanups()

			if tt.wantError != "" {
				if got := strings.Join(rec.Errors, "\n"); !strings.Contains(got, tt.wantError) {
					t.Errorf("test errors = %q, want one containing %q", got, tt.wantError)
				}
				if status != http.StatusBadRequest {
					t.Errorf("status = %d, want 400", status)
				}
				return
			}
			if len(rec.Errors) > 0 {
				t.Fatalf("unexpected test errors: %q", rec.Errors)
			}
			var resp struct {
				Output []struct {
					Type      string `json:"type"`
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
					CallID    string `json:"call_id"`
				} `json:"output"`
			}
			if err := json.Unmarshal(reply, &resp); err != nil || len(resp.Output) != 1 {
				t.Fatalf("reply = %s (%v), want one output item", reply, err)
			}
			call := resp.Output[0]
			if call.Type != "function_call" || call.Name != tt.wantName || call.Arguments != tt.wantArgs || call.CallID != "call_testkit_00" {
				t.Errorf("output = %+v, want function_call %s %s with call_id call_testkit_00", call, tt.wantName, tt.wantArgs)
			}
		})
	}
}

func TestOpenAISideRequestsKeepScript(t *testing.T) {
	t.Parallel()
	o := NewOpenAI(t, Text("main answer"))
	ctx := t.Context()

	// codex's WebSocket upgrade, which it falls back from on 404.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.URL()+"/responses", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.StatusCode, http.StatusNotFound; got != want {
		t.Errorf("WebSocket upgrade status = %d, want %d", got, want)
	}
	side := `{"model":"gpt-5.5","stream":false,"input":"title?","tools":[]}`
	if status, body := post(t, ctx, o.URL()+"/responses", side); status != http.StatusOK || !bytes.Contains(body, []byte(`"text":"ok"`)) {
		t.Errorf("side request = %d %s, want 200 with text ok", status, body)
	}
	if status, _ := post(t, ctx, o.URL()+"/chat/completions", `{}`); status != http.StatusNotFound {
		t.Errorf("unknown path status = %d, want 404", status)
	}

	_, body := post(t, ctx, o.URL()+"/responses", fmt.Sprintf(responsesBody, false))
	if !bytes.Contains(body, []byte("main answer")) {
		t.Errorf("first main request got %s, want the first step", body)
	}
	if got, want := len(o.Requests()), 1; got != want {
		t.Errorf("recorded requests = %d, want %d (side requests are not recorded)", got, want)
	}
}

func TestOpenAICodexSettings(t *testing.T) {
	t.Parallel()
	o := NewOpenAI(t)
	url := o.URL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Errorf("URL() = %q, want http://127.0.0.1:PORT/v1", url)
	}

	wantArgs := []string{
		"-c", `model_provider="sandcastle_test"`,
		"-c", `model_providers.sandcastle_test={name="sandcastle_test",base_url="` + url + `",env_key="CODEX_API_KEY",wire_api="responses",stream_max_retries=0,request_max_retries=0}`,
	}
	if got := o.CodexArgs(); !slices.Equal(got, wantArgs) {
		t.Errorf("CodexArgs() =\n%q\nwant\n%q", got, wantArgs)
	}

	wantConfig := `model_provider = "sandcastle_test"

[model_providers.sandcastle_test]
name = "sandcastle_test"
base_url = "` + url + `"
env_key = "CODEX_API_KEY"
wire_api = "responses"
stream_max_retries = 0
request_max_retries = 0
`
	if got := o.CodexConfig(); got != wantConfig {
		t.Errorf("CodexConfig() =\n%s\nwant\n%s", got, wantConfig)
	}

	env := o.Env("/home/agent")
	for k, want := range map[string]string{"HOME": "/home/agent", "CODEX_HOME": "/home/agent/.codex", "CODEX_API_KEY": FakeAPIKey} {
		if got := env[k]; got != want {
			t.Errorf("Env()[%s] = %q, want %q", k, got, want)
		}
	}
}

func TestResponsesRequestDecoding(t *testing.T) {
	t.Parallel()
	body := `{"model":"gpt-5.5","instructions":"be brief","stream":true,
		"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}],
		"input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"question"},{"type":"input_image","image_url":"data:"}]},
		{"type":"reasoning","summary":[]},
		{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"},
		{"type":"function_call_output","call_id":"call_1","output":"a.txt"},
		{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"call_2"},
		{"type":"custom_tool_call_output","call_id":"call_2","output":[{"type":"input_text","text":"patched"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer","annotations":[]}]},
		{"role":"user","content":"plain follow-up"}]}`
	r, err := decodeResponsesRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.System.Text(), "be brief"; got != want {
		t.Errorf("system = %q, want %q", got, want)
	}
	if !r.Stream || r.Model != "gpt-5.5" {
		t.Errorf("stream = %v, model = %q; want true, gpt-5.5", r.Stream, r.Model)
	}
	if got, want := fmt.Sprint(r.Tools), "[{exec_command function} {apply_patch custom} { web_search}]"; got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}
	want := "developer: rules\n" +
		"user: question\n" +
		`assistant: [tool_use exec_command {"cmd":"ls"}]` + "\n" +
		"tool: [tool_result a.txt]\n" +
		`assistant: [tool_use apply_patch "*** Begin Patch"]` + "\n" +
		"tool: [tool_result patched]\n" +
		"assistant: answer\n" +
		"user: plain follow-up\n"
	if got := r.Transcript(); got != want {
		t.Errorf("Transcript() =\n%s\nwant\n%s", got, want)
	}
	if got, want := r.Messages[4].Content[0].ToolUseID, "call_1"; got != want {
		t.Errorf("tool result call id = %q, want %q", got, want)
	}

	r, err = decodeResponsesRequest([]byte(`{"model":"m","input":"just a prompt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Transcript(), "user: just a prompt\n"; got != want {
		t.Errorf("string input Transcript() = %q, want %q", got, want)
	}
}
