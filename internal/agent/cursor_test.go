package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCursorCommand(t *testing.T) {
	head := []string{"agent", "--print", "--output-format", "stream-json", "--model"}
	argv := func(model, prompt string) []string {
		return slices.Concat(head, []string{model, "--force", "--", prompt})
	}

	checkCommands(t, cursor(), []commandCase{
		{name: "defaults", req: Request{Prompt: "fix it"}, argv: argv("composer-2", "fix it")},
		{name: "model", req: Request{Prompt: "p", Model: "claude-sonnet-4-6"}, argv: argv("claude-sonnet-4-6", "p")},
		{name: "prompt_is_one_argument", req: Request{Prompt: "it's\n$(rm -rf /)"}, argv: argv("composer-2", "it's\n$(rm -rf /)")},
		{name: "prompt_starting_with_dashes_follows_the_separator", req: Request{Prompt: "--help"}, argv: argv("composer-2", "--help")},
		{name: "prompt_at_the_limit", req: Request{Prompt: strings.Repeat("x", argMax)}, argv: argv("composer-2", strings.Repeat("x", argMax))},
		{name: "prompt_over_the_limit", req: Request{Prompt: strings.Repeat("x", argMax+1)}, wantErr: "cursor takes the prompt as a command-line argument"},
		{name: "no_efforts", req: Request{Effort: "high"}, wantErr: "cursor has no effort setting"},
		{name: "no_permission_modes", req: Request{PermissionMode: "plan"}, wantErr: "cursor has no permission-mode setting"},
		{name: "resume_is_refused", req: Request{ResumeSession: "c6b62c6f-7ead-4fd6-9922-e952131177ff"}, wantErr: "cursor cannot resume sessions"},
		{name: "model_looking_like_a_flag", req: Request{Model: "--yolo"}, wantErr: `model "--yolo" must not start`},
	})
}

func TestCursorCommandPromptTooLong(t *testing.T) {
	_, err := cursor().Command(Request{Prompt: strings.Repeat("é", argMax)})
	tooLong, ok := errors.AsType[*PromptTooLongError](err)
	if !ok {
		t.Fatalf("Command() error = %v, want a *PromptTooLongError", err)
	}
	if got, want := tooLong.Size, 2*argMax; got != want {
		t.Errorf("Size = %d, want %d (bytes, not runes)", got, want)
	}
}

func TestCursorParse(t *testing.T) {
	started := func(call string) string {
		return `{"type":"tool_call","subtype":"started","call_id":"c\nfc_1","tool_call":` + call + `,"session_id":"s"}`
	}
	tool := func(name, args string) []Event { return []Event{{Kind: EventToolCall, Tool: name, Args: args}} }
	tests := []struct {
		name string
		line string
		want []Event
	}{
		{"init", `{"type":"system","subtype":"init","apiKeySource":"env","cwd":"/w","session_id":"s1","model":"Composer 2"}`, []Event{{Kind: EventSession, SessionID: "s1"}}},
		{"other_system_line", `{"type":"system","subtype":"status","session_id":"s1"}`, nil},
		{"prompt_echo", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"print <promise>COMPLETE</promise>"}]},"session_id":"s"}`, nil},
		{"thinking", `{"type":"thinking","subtype":"delta","text":"hmm","session_id":"s"}`, nil},
		{
			"assistant_blocks",
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"text","text":"b"}]},"session_id":"s","model_call_id":"m-0"}`,
			[]Event{{Kind: EventText, Text: "a"}, {Kind: EventText, Text: "b"}},
		},
		{"shell", started(`{"shellToolCall":{"args":{"command":"npm test","workingDirectory":"","timeout":300000}},"toolCallId":"c"}`), tool("Bash", "npm test")},
		{"read", started(`{"readToolCall":{"args":{"path":"src/a.ts","offset":1,"limit":50}}}`), tool("Read", "src/a.ts")},
		{"write", started(`{"writeToolCall":{"args":{"path":"src/a.ts","fileText":"x"}}}`), tool("Write", "src/a.ts")},
		{"edit_after_metadata_keys", started(`{"hookAdditionalContexts":[],"toolCallId":"c","editToolCall":{"args":{"path":"/w/a.txt","streamContent":"hello\n"}},"startedAtMs":"1789467333873"}`), tool("Edit", "/w/a.txt")},
		{"delete", started(`{"deleteToolCall":{"args":{"path":"old.txt"}}}`), tool("Delete", "old.txt")},
		{"grep", started(`{"grepToolCall":{"args":{"pattern":"parseRange","path":"src"}}}`), tool("Grep", "parseRange")},
		{"glob", started(`{"globToolCall":{"args":{"globPattern":"**/*.ts","targetDirectory":"src"}}}`), tool("Glob", "**/*.ts")},
		{"ls", started(`{"lsToolCall":{"args":{"path":"/w","ignore":[]}}}`), tool("LS", "/w")},
		{
			"mcp",
			started(`{"mcpToolCall":{"args":{"name":"vortex-tool_search","args":{"query":"cortex"},"toolName":"tool_search","providerIdentifier":"vortex"}}}`),
			tool("vortex-tool_search", `{"query":"cortex"}`),
		},
		{"mcp_without_name", started(`{"mcpToolCall":{"args":{}}}`), tool("mcp", "")},
		{"unknown_kind_keeps_its_name", started(`{"semSearchToolCall":{"args":{"query":"where is parseRange"}}}`), tool("semSearch", `{"query":"where is parseRange"}`)},
		{"kind_without_args", started(`{"todoToolCall":{}}`), tool("todo", "")},
		{
			"function_with_command",
			started(`{"function":{"name":"run_terminal_cmd","arguments":"{\"command\":\"git commit -am \\\"fix\\\"\"}"}}`),
			tool("run_terminal_cmd", `git commit -am "fix"`),
		},
		{"function_with_other_arguments", started(`{"function":{"name":"search","arguments":"{\"q\": 1}"}}`), tool("search", `{"q":1}`)},
		{"function_with_plain_text_arguments", started(`{"function":{"name":"note","arguments":"take\nnotes"}}`), tool("note", "take notes")},
		{"function_without_arguments", started(`{"function":{"name":"list"}}`), tool("list", "")},
		{"function_without_name", started(`{"function":{"arguments":"{}"}}`), nil},
		{"metadata_only", started(`{"toolCallId":"c"}`), nil},
		{"tool_call_not_an_object", started(`"shell"`), nil},
		{"torn_tool_call", `{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{"args":{"command":"ls"`, nil},
		{"completed_call", `{"type":"tool_call","subtype":"completed","tool_call":{"shellToolCall":{"args":{"command":"npm test"},"result":{"success":{"exitCode":0}}}}}`, nil},
		{"reconnecting", `{"type":"connection","subtype":"reconnecting","session_id":"s","timestamp_ms":1}`, []Event{{Kind: EventError, Text: "connection to Cursor lost; reconnecting"}}},
		{"reconnected", `{"type":"connection","subtype":"reconnected","session_id":"s"}`, nil},
		{
			"result_with_usage",
			`{"type":"result","subtype":"success","duration_ms":2404,"is_error":false,"result":"5","session_id":"s","usage":{"inputTokens":14125,"outputTokens":111,"cacheReadTokens":28224,"cacheWriteTokens":3}}`,
			[]Event{{Kind: EventResult, Text: "5"}, {Kind: EventUsage, Usage: Usage{InputTokens: 14125, OutputTokens: 111, CacheReadTokens: 28224, CacheCreationTokens: 3}}},
		},
		{"empty_success_result", `{"type":"result","subtype":"success","is_error":false,"result":""}`, []Event{{Kind: EventResult}}},
		{"result_without_text", `{"type":"result","subtype":"success","is_error":false}`, nil},
		{"error_result", `{"type":"result","subtype":"error","is_error":true,"result":"Model not available"}`, []Event{{Kind: EventResult, Text: "Model not available", IsError: true}}},
		{"error_result_without_text", `{"type":"result","subtype":"error_timeout","result":""}`, []Event{{Kind: EventResult, Text: "cursor error_timeout without a message", IsError: true}}},
		{"bare_error_result", `{"type":"result","is_error":true}`, []Event{{Kind: EventResult, Text: "cursor error without a message", IsError: true}}},
		{"mistyped_usage", `{"type":"result","result":"r","usage":"none"}`, []Event{{Kind: EventResult, Text: "r"}}},
		{"mistyped_field_keeps_the_rest", `{"type":"result","is_error":"no","result":"kept"}`, []Event{{Kind: EventResult, Text: "kept"}}},
		{"not_json", `T: Named models unavailable on the free plan`, nil},
		{"truncated_json", `{"type":"result","result":"cut`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cursor().Parse([]byte(tt.line), nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%s) =\n  %s\nwant\n  %s", tt.line, formatEvents(got), formatEvents(tt.want))
			}
		})
	}
}

func TestCursorParseAppendsAndDoesNotRetainLine(t *testing.T) {
	prior := []Event{{Kind: EventText, Text: "earlier"}}
	line := []byte(`{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{"args":{"command":"ls"}}}}`)
	events := cursor().Parse(line, prior)
	for i := range line {
		line[i] = 'z' // the caller reuses its buffer for the next line
	}
	if got, want := formatEvents(events), `text "earlier" | tool Bash "ls"`; got != want {
		t.Errorf("events after the buffer changed = %s, want %s", got, want)
	}
}

// cursorStreams are the stdout captures golden-tested below (reconstructed: the CLI needs an
// account to run).
var cursorStreams = []string{"cursor-stream.jsonl"}

func TestCursorParseGolden(t *testing.T) {
	checkParseGolden(t, cursor(), cursorStreams)
}

func TestCursorParseReconstructedStream(t *testing.T) {
	first := "I'll read the README and the range module first."
	second := "Found it: the loop bound is exclusive. I've fixed it and the tests pass.\n\n<promise>COMPLETE</promise>"
	want := []Event{
		{Kind: EventSession, SessionID: "c6b62c6f-7ead-4fd6-9922-e952131177ff"},
		{Kind: EventText, Text: first},
		{Kind: EventToolCall, Tool: "Read", Args: "src/range.ts"},
		{Kind: EventToolCall, Tool: "Write", Args: "src/range.ts"},
		{Kind: EventToolCall, Tool: "Bash", Args: "npm test"},
		{Kind: EventToolCall, Tool: "run_terminal_cmd", Args: `git commit -am "RALPH: fix off-by-one in parseRange"`},
		{Kind: EventText, Text: second},
		{Kind: EventResult, Text: first + second},
	}
	checkFileEvents(t, cursor(), "cursor-stream.jsonl", want)
}

// FuzzCursorParse checks that no input panics and that every event is well formed.
func FuzzCursorParse(f *testing.F) {
	addFuzzLines(f, cursorStreams...)
	f.Add([]byte(`{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{"args":{"command":"a\u0000\nb"}},"zToolCall":{}}}`))
	f.Add([]byte(`{"type":"tool_call","subtype":"started","tool_call":{"function":{"name":"f","arguments":"{\"command\":[1]}"}}}`))
	f.Add([]byte(`{"type":"result","is_error":true,"result":null,"usage":{"inputTokens":1e400}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEventsWellFormed(t, line, cursor().Parse(line, nil))
	})
}

// BenchmarkCursorParse parses a few MB of stream built from the fixture plus the line kinds that
// dominate real runs: completed tool calls carrying file contents and command output.
func BenchmarkCursorParse(b *testing.B) {
	unit := readLines(b, "cursor-stream.jsonl")
	big := strings.Repeat(`func f() { return \"x\" }\n`, 1500) // ~40 KB of escaped source
	unit = append(unit,
		[]byte(fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"f.go"},"result":{"success":{"content":"%s"}}}},"session_id":"s"}`, big)),
		[]byte(fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"writeToolCall":{"args":{"path":"f.go","fileText":"%s"}}},"session_id":"s"}`, big)),
	)
	benchmarkParse(b, cursor(), unit)
}
