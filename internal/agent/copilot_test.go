package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCopilotCommand(t *testing.T) {
	head := []string{"copilot", "--output-format", "json", "--model"}
	allow := []string{"--allow-all", "--no-ask-user"}
	argv := func(parts ...[]string) []string { return slices.Concat(parts...) }
	env := map[string]string{"COPILOT_AUTO_UPDATE": "false"}

	checkCommands(t, copilot(), []commandCase{
		{name: "defaults", req: Request{Prompt: "fix it"}, argv: argv(head, []string{"claude-sonnet-4.5"}, allow), env: env},
		{name: "model", req: Request{Prompt: "p", Model: "gpt-5.4"}, argv: argv(head, []string{"gpt-5.4"}, allow), env: env},
		{name: "effort", req: Request{Prompt: "p", Effort: "xhigh"}, argv: argv(head, []string{"claude-sonnet-4.5"}, allow, []string{"--reasoning-effort", "xhigh"}), env: env},
		{name: "prompt_starting_with_dashes", req: Request{Prompt: "-p --help"}, argv: argv(head, []string{"claude-sonnet-4.5"}, allow), env: env},
		{name: "unknown_effort", req: Request{Effort: "extreme"}, wantErr: `effort "extreme": valid values are none, minimal, low, medium, high, xhigh, max`},
		{name: "no_permission_modes", req: Request{PermissionMode: "plan"}, wantErr: "copilot has no permission-mode setting"},
		{name: "resume_is_refused", req: Request{ResumeSession: "08f6db99-c0af-4d97-a927-a526b205de12"}, wantErr: "copilot cannot resume sessions"},
		{name: "model_looking_like_a_flag", req: Request{Model: "--yolo"}, wantErr: `model "--yolo" must not start`},
	})
}

func TestCopilotCommandPromptNeverInArgv(t *testing.T) {
	checkPromptOnStdin(t, copilot(), Request{Effort: "low"})
}

func TestCopilotParse(t *testing.T) {
	event := func(typ, data string) string {
		return `{"type":"` + typ + `","data":` + data + `,"id":"e1","timestamp":"2026-06-30T09:41:01.037Z","parentId":null}`
	}
	tests := []struct {
		name string
		line string
		want []Event
	}{
		{"session_start", event("session.start", `{"sessionId":"s1","version":1,"producer":"copilot-agent"}`), []Event{{Kind: EventSession, SessionID: "s1"}}},
		{"prompt_echo", event("user.message", `{"content":"print <promise>COMPLETE</promise>"}`), nil},
		{"delta_is_not_counted_twice", event("assistant.message_delta", `{"messageId":"m","deltaContent":"hi"}`), nil},
		{
			"message_with_output_tokens",
			event("assistant.message", `{"messageId":"m","content":"All done.","toolRequests":[],"outputTokens":23}`),
			[]Event{{Kind: EventText, Text: "All done."}, {Kind: EventUsage, Usage: Usage{OutputTokens: 23}}},
		},
		{"message_with_only_tool_requests", event("assistant.message", `{"messageId":"m","content":"","toolRequests":[{"name":"bash"}]}`), nil},
		{
			"subagent_message_is_not_the_answer",
			`{"type":"assistant.message","agentId":"a1","data":{"content":"<promise>COMPLETE</promise>","outputTokens":5}}`,
			[]Event{{Kind: EventUsage, Usage: Usage{OutputTokens: 5}}},
		},
		{"subagent_message_by_parent_call", event("assistant.message", `{"content":"report","parentToolCallId":"t1"}`), nil},
		{
			"usage_input_side",
			event("assistant.usage", `{"model":"m","inputTokens":100,"outputTokens":7,"cacheReadTokens":40,"cacheWriteTokens":10,"cost":1}`),
			[]Event{{Kind: EventUsage, Usage: Usage{InputTokens: 50, CacheReadTokens: 40, CacheCreationTokens: 10}}},
		},
		{"bash", event("tool.execution_start", `{"toolCallId":"t","toolName":"bash","arguments":{"command":"npm test","description":"Run"}}`), []Event{{Kind: EventToolCall, Tool: "bash", Args: "npm test"}}},
		{"view", event("tool.execution_start", `{"toolName":"view","arguments":{"path":"/w/src/a.ts"}}`), []Event{{Kind: EventToolCall, Tool: "view", Args: "/w/src/a.ts"}}},
		{"report_intent", event("tool.execution_start", `{"toolName":"report_intent","arguments":{"intent":"Fixing"}}`), []Event{{Kind: EventToolCall, Tool: "report_intent", Args: `{"intent":"Fixing"}`}}},
		{"tool_without_name", event("tool.execution_start", `{"arguments":{}}`), nil},
		{"tool_output", event("tool.execution_complete", `{"toolCallId":"t","success":true,"result":{"content":"ok"}}`), nil},
		{
			"session_error",
			event("session.error", `{"errorType":"authentication","message":"Authentication failed (HTTP 401).\n  Check your token.","statusCode":401}`),
			[]Event{{Kind: EventError, Text: "Authentication failed (HTTP 401).\n  Check your token."}},
		},
		{"session_error_without_message", event("session.error", `{"errorType":"quota"}`), []Event{{Kind: EventError, Text: "copilot error without a message (quota)"}}},
		{"warning", event("session.warning", `{"warningType":"mcp","message":"server x failed"}`), []Event{{Kind: EventError, Text: "server x failed"}}},
		{"retry_notice", event("session.info", `{"infoType":"model_retry","message":"Request failed due to a transient API error. Retrying..."}`), []Event{{Kind: EventError, Text: "Request failed due to a transient API error. Retrying..."}}},
		{"other_notice", event("session.info", `{"infoType":"tip","message":"Try /model"}`), nil},
		{
			"result",
			`{"type":"result","timestamp":"2026-06-30T09:41:59.902Z","sessionId":"s2","exitCode":0,"usage":{"premiumRequests":1}}`,
			[]Event{{Kind: EventSession, SessionID: "s2"}},
		},
		{"failed_result_leaves_the_error_to_the_exit_status", `{"type":"result","sessionId":"s2","exitCode":1}`, []Event{{Kind: EventSession, SessionID: "s2"}}},
		{
			"blocked_result",
			`{"type":"result","sessionId":"s2","exitCode":1,"outcome":"blocked","blocker":{"kind":"permission","reason":"denied","resumable":true}}`,
			[]Event{{Kind: EventSession, SessionID: "s2"}, {Kind: EventResult, Text: "copilot stopped: the task is blocked (permission: denied)", IsError: true}},
		},
		{"blocked_without_detail", `{"type":"result","exitCode":1,"outcome":"blocked"}`, []Event{{Kind: EventResult, Text: "copilot stopped: the task is blocked", IsError: true}}},
		{"mistyped_field_keeps_the_rest", `{"type":"result","sessionId":"s3","exitCode":"one"}`, []Event{{Kind: EventSession, SessionID: "s3"}}},
		{"nested_type_is_not_the_line_type", `{"type":"session.idle","data":{"type":"assistant.message","content":"quoted"}}`, nil},
		{"not_json", `Error: No authentication information found.`, nil},
		{"truncated_json", `{"type":"assistant.message","data":{"content":"cut`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := copilot().Parse([]byte(tt.line), nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%s) =\n  %s\nwant\n  %s", tt.line, formatEvents(got), formatEvents(tt.want))
			}
		})
	}
}

func TestCopilotParseAppendsAndDoesNotRetainLine(t *testing.T) {
	prior := []Event{{Kind: EventText, Text: "earlier"}}
	line := []byte(`{"type":"tool.execution_start","data":{"toolName":"github-mcp-server-get_issue","arguments":{"issue_number":17}}}`)
	events := copilot().Parse(line, prior)
	for i := range line {
		line[i] = 'z' // the caller reuses its buffer for the next line
	}
	if got, want := formatEvents(events), `text "earlier" | tool github-mcp-server-get_issue "{\"issue_number\":17}"`; got != want {
		t.Errorf("events after the buffer changed = %s, want %s", got, want)
	}
}

// copilotStreams are the stdout captures golden-tested below: real ones of copilot 1.0.102
// against scripted stand-ins for an OpenAI-compatible API (prompt on stdin) and for the
// Anthropic API (prompt in -p), and a reconstructed one.
var copilotStreams = []string{
	"copilot-1.0.102-real.jsonl",
	"copilot-1.0.102-401-real.jsonl",
	"copilot-1.0.102-anthropic-real.jsonl",
	"copilot-stream.jsonl",
}

func TestCopilotParseGolden(t *testing.T) {
	checkParseGolden(t, copilot(), copilotStreams)
}

// The real run's prompt contains the completion signal; only the agent's own message may
// carry it.
func TestCopilotParseRealCapture(t *testing.T) {
	checkFileEvents(t, copilot(), "copilot-1.0.102-real.jsonl", []Event{
		{Kind: EventToolCall, Tool: "bash", Args: "echo hi > f && git add f && git commit -q -m x"},
		{Kind: EventText, Text: "done <promise>COMPLETE</promise>"},
		{Kind: EventSession, SessionID: "a38ad44e-3a87-4be1-8735-ae11eb230591"},
	})
}

// A real authentication failure: two retries are announced, then the error that ends the run
// (copilot exits 1 and writes nothing to stderr, so the error is the failure detail).
func TestCopilotParseRealAuthFailure(t *testing.T) {
	retry := Event{Kind: EventError, Text: "Request failed due to a transient API error. Retrying..."}
	want := []Event{
		retry,
		retry,
		{Kind: EventError, Text: "Authentication failed with provider at http://127.0.0.1:18182/v1 (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN."},
		{Kind: EventSession, SessionID: "751415fd-641c-455b-938e-929ae20f8923"},
	}
	checkFileEvents(t, copilot(), "copilot-1.0.102-401-real.jsonl", want)
}

func TestCopilotParseReconstructedStream(t *testing.T) {
	checkFileEvents(t, copilot(), "copilot-stream.jsonl", []Event{
		{Kind: EventText, Text: "I'll run the tests first."},
		{Kind: EventUsage, Usage: Usage{OutputTokens: 61}},
		{Kind: EventToolCall, Tool: "bash", Args: "npm test"},
		{Kind: EventToolCall, Tool: "report_intent", Args: `{"intent":"Committing fix"}`},
		{Kind: EventText, Text: "All 42 tests pass. Committed the fix and closed #17.\n\n<promise>COMPLETE</promise>"},
		{Kind: EventUsage, Usage: Usage{OutputTokens: 23}},
		{Kind: EventSession, SessionID: "08f6db99-c0af-4d97-a927-a526b205de12"},
	})
}

// FuzzCopilotParse checks that no input panics and that every event is well formed.
func FuzzCopilotParse(f *testing.F) {
	addFuzzLines(f, copilotStreams...)
	f.Add([]byte(`{"type":"tool.execution_start","data":{"toolName":"bash","arguments":{"command":"a\u0000\nb"}}}`))
	f.Add([]byte(`{"type":"assistant.usage","data":{"inputTokens":1,"cacheReadTokens":9e18,"cacheWriteTokens":9e18}}`))
	f.Add([]byte(`{"type":"result","exitCode":2,"outcome":"blocked","blocker":{"kind":[],"reason":" "}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEventsWellFormed(t, line, copilot().Parse(line, nil))
	})
}

// BenchmarkCopilotParse parses a few MB of stream built from the fixtures plus the line kind
// that dominates real runs: tool output.
func BenchmarkCopilotParse(b *testing.B) {
	var unit [][]byte
	for _, name := range copilotStreams {
		unit = append(unit, readLines(b, name)...)
	}
	big := strings.Repeat(`func f() { return \"x\" }\n`, 1500) // ~40 KB of escaped output
	unit = append(unit, []byte(fmt.Sprintf(
		`{"type":"tool.execution_complete","data":{"toolCallId":"t","success":true,"result":{"content":"%s"}},"id":"e","timestamp":"2026-06-30T09:41:11.407Z","parentId":"p"}`, big)))
	benchmarkParse(b, copilot(), unit)
}
