package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClaudeCommand(t *testing.T) {
	head := []string{"claude", "--print", "--verbose"}
	skip := []string{"--dangerously-skip-permissions"}
	output := []string{"--output-format", "stream-json", "--model"}
	tail := []string{}
	argv := func(parts ...[]string) []string { return slices.Concat(parts...) }
	sandboxEnv := map[string]string{"IS_SANDBOX": "1"}

	checkCommands(t, claudeCode(), []commandCase{
		{
			name: "defaults",
			req:  Request{Prompt: "fix it"},
			argv: argv(head, skip, output, []string{"claude-opus-4-8"}, tail),
			env:  sandboxEnv,
		},
		{
			name: "model_with_quote_is_one_argument",
			req:  Request{Prompt: "p", Model: "it's-a-model"},
			argv: argv(head, skip, output, []string{"it's-a-model"}, tail),
			env:  sandboxEnv,
		},
		{
			name: "effort",
			req:  Request{Prompt: "p", Effort: "xhigh"},
			argv: argv(head, skip, output, []string{"claude-opus-4-8", "--effort", "xhigh"}, tail),
			env:  sandboxEnv,
		},
		{
			name: "resume",
			req:  Request{Prompt: "p", ResumeSession: "abc-123"},
			argv: argv(head, skip, output, []string{"claude-opus-4-8", "--resume", "abc-123"}, tail),
			env:  sandboxEnv,
		},
		{
			name: "resume_and_fork_with_effort",
			req:  Request{Prompt: "p", Effort: "high", ResumeSession: "abc-123", ForkSession: true},
			argv: argv(head, skip, output, []string{"claude-opus-4-8", "--effort", "high", "--resume", "abc-123", "--fork-session"}, tail),
			env:  sandboxEnv,
		},
		{
			name: "permission_mode_replaces_skip_flag",
			req:  Request{Prompt: "p", PermissionMode: "auto", Model: "claude-sonnet-4-6"},
			argv: argv(head, []string{"--permission-mode", "auto"}, output, []string{"claude-sonnet-4-6"}, tail),
		},
		{
			name: "bypass_permissions_is_a_mode_too",
			req:  Request{Prompt: "p", PermissionMode: "bypassPermissions"},
			argv: argv(head, []string{"--permission-mode", "bypassPermissions"}, output, []string{"claude-opus-4-8"}, tail),
		},
		{name: "unknown_effort", req: Request{Effort: "extreme"}, wantErr: `effort "extreme": valid values are low, medium, high, xhigh, max`},
		{name: "effort_is_case_sensitive", req: Request{Effort: "High"}, wantErr: `invalid effort "High"`},
		{name: "unknown_permission_mode", req: Request{PermissionMode: "yolo"}, wantErr: `permission-mode "yolo": valid values are default, acceptEdits, plan, auto, dontAsk, bypassPermissions`},
		{name: "fork_without_resume", req: Request{ForkSession: true}, wantErr: "fork-session needs a session to resume"},
		{name: "session_looking_like_a_flag", req: Request{ResumeSession: "--dangerously-skip-permissions"}, wantErr: `session id "--dangerously-skip-permissions" is not valid`},
		{name: "model_looking_like_a_flag", req: Request{Model: "-x"}, wantErr: `model "-x" must not start`},
		{name: "session_with_newline", req: Request{ResumeSession: "a\nb"}, wantErr: "is not valid"},
		{name: "model_with_newline", req: Request{Model: "a\nb"}, wantErr: "control characters"},
	})
}

func TestClaudeCommandPromptNeverInArgv(t *testing.T) {
	checkPromptOnStdin(t, claudeCode(), Request{PermissionMode: "plan"})
}

func TestClaudeParse(t *testing.T) {
	text := func(s string) Event { return Event{Kind: EventText, Text: s} }
	tool := func(name, args string) Event { return Event{Kind: EventToolCall, Tool: name, Args: args} }
	assistant := func(blocks string) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[` + blocks + `]},"parent_tool_use_id":null,"session_id":"s"}`
	}
	use := func(name, input string) string {
		return `{"type":"tool_use","id":"t","name":"` + name + `","input":` + input + `}`
	}
	long := strings.Repeat("x", 300)

	tests := []struct {
		name string
		line string
		want []Event
	}{
		{"init", `{"type":"system","subtype":"init","session_id":"abc","tools":["Bash"]}`, []Event{{Kind: EventSession, SessionID: "abc"}}},
		{"init_with_type_last", `{"session_id":"abc","subtype":"init","type":"system"}`, []Event{{Kind: EventSession, SessionID: "abc"}}},
		{"init_with_whitespace_and_crlf", "  { \"type\" : \"system\" , \"subtype\" : \"init\" , \"session_id\" : \"abc\" }\r", []Event{{Kind: EventSession, SessionID: "abc"}}},
		{"other_system_subtype", `{"type":"system","subtype":"compact_boundary","session_id":"abc"}`, nil},
		{"one_text_event_per_block", assistant(`{"type":"text","text":"A"},{"type":"thinking","thinking":"hmm"},{"type":"text","text":"B"}`), []Event{text("A"), text("B")}},
		{"empty_text_block", assistant(`{"type":"text","text":""}`), nil},
		{
			"every_tool_is_reported_in_order",
			assistant(`{"type":"text","text":"A"},` + use("Read", `{"file_path":"/w/a.go"}`) + `,{"type":"text","text":"B"},` + use("Bash", `{"command":"ls","description":"list"}`)),
			[]Event{text("A"), tool("Read", "/w/a.go"), text("B"), tool("Bash", "ls")},
		},
		{"edit", assistant(use("Edit", `{"file_path":"/w/x.ts","old_string":"a","new_string":"b"}`)), []Event{tool("Edit", "/w/x.ts")}},
		{"write_skips_content", assistant(use("Write", `{"content":"`+long+`","file_path":"/w/big.txt"}`)), []Event{tool("Write", "/w/big.txt")}},
		{"web_search", assistant(use("WebSearch", `{"query":"go 1.26 release"}`)), []Event{tool("WebSearch", "go 1.26 release")}},
		{"web_fetch", assistant(use("WebFetch", `{"url":"https://go.dev","prompt":"summarise"}`)), []Event{tool("WebFetch", "https://go.dev")}},
		{"agent", assistant(use("Agent", `{"description":"explore","prompt":"look around"}`)), []Event{tool("Agent", "explore")}},
		{"task", assistant(use("Task", `{"description":"plan","subagent_type":"Plan"}`)), []Event{tool("Task", "plan")}},
		{"grep", assistant(use("Grep", `{"pattern":"func main","path":"."}`)), []Event{tool("Grep", "func main")}},
		{"glob", assistant(use("Glob", `{"pattern":"**/*.go"}`)), []Event{tool("Glob", "**/*.go")}},
		{"multiline_command_is_one_line", assistant(use("Bash", `{"command":"cat <<EOF\nhi\nEOF"}`)), []Event{tool("Bash", "cat <<EOF hi EOF")}},
		{"long_command_is_clipped", assistant(use("Bash", `{"command":"`+long+`"}`)), []Event{tool("Bash", long[:200]+"…")}},
		{"unknown_tool_shows_compact_json", assistant(use("mcp__github__get_issue", `{ "owner" : "o",  "repo":"r", "n": 17 }`)), []Event{tool("mcp__github__get_issue", `{"owner":"o","repo":"r","n":17}`)}},
		{"json_strings_keep_spaces", assistant(use("TodoWrite", `{"todos":[{"content":"run the  tests"}]}`)), []Event{tool("TodoWrite", `{"todos":[{"content":"run the  tests"}]}`)}},
		{"large_unknown_input_is_clipped", assistant(use("Custom", `{"data":"`+long+`"}`)), []Event{tool("Custom", (`{"data":"` + long)[:200]+"…")}},
		{"main_field_not_a_string", assistant(use("Bash", `{"command":["ls","-l"]}`)), []Event{tool("Bash", `{"command":["ls","-l"]}`)}},
		{"main_field_missing", assistant(use("Read", `{"offset":1}`)), []Event{tool("Read", `{"offset":1}`)}},
		{"tool_names_are_case_insensitive", assistant(use("bash", `{"command":"ls"}`)), []Event{tool("bash", "ls")}},
		{"tool_without_input", assistant(`{"type":"tool_use","id":"t","name":"Bash"}`), []Event{tool("Bash", "")}},
		{"tool_with_null_input", assistant(`{"type":"tool_use","id":"t","name":"Bash","input":null}`), []Event{tool("Bash", "")}},
		{"escaped_quotes_before_main_field", assistant(use("Write", `{"content":"say \"file_path\": \"no\" \\","file_path":"yes"}`)), []Event{tool("Write", "yes")}},
		{"nested_main_field_is_not_the_main_field", assistant(use("Read", `{"opts":{"file_path":"inner"},"x":[{"file_path":"i2"}],"file_path":"outer"}`)), []Event{tool("Read", "outer")}},
		{"only_nested_main_field", assistant(use("Read", `{"opts":{"file_path":"inner"}}`)), []Event{tool("Read", `{"opts":{"file_path":"inner"}}`)}},
		{"escaped_main_field", assistant(use("Bash", `{"command":"echo \"hi\" \u00e9\ttab"}`)), []Event{tool("Bash", `echo "hi" é tab`)}},
		{"tool_without_name", assistant(`{"type":"tool_use","id":"t","input":{}}`), nil},
		{
			"subagent_text_hidden_tools_shown",
			`{"type":"assistant","parent_tool_use_id":"toolu_9","message":{"content":[{"type":"text","text":"<promise>COMPLETE</promise>"},` + use("Bash", `{"command":"go test ./..."}`) + `]}}`,
			[]Event{tool("Bash", "go test ./...")},
		},
		{
			"success_result_with_usage",
			`{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4},"total_cost_usd":0.5}`,
			[]Event{{Kind: EventResult, Text: "done"}, {Kind: EventUsage, Usage: Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheCreationTokens: 4, CostUSD: 0.5}}},
		},
		{"empty_success_result", `{"type":"result","subtype":"success","is_error":false,"result":""}`, []Event{{Kind: EventResult}}},
		{"result_without_text_or_error", `{"type":"result","subtype":"success","is_error":false}`, nil},
		{
			"api_error_result",
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"result":"API Error: 400 bad request","terminal_reason":"api_error"}`,
			[]Event{{Kind: EventResult, Text: "API Error: 400 bad request", IsError: true}},
		},
		{
			"max_turns_with_errors",
			`{"type":"result","subtype":"error_max_turns","is_error":true,"terminal_reason":"max_turns","errors":["Reached maximum number of turns (20)"],"usage":{"input_tokens":7},"total_cost_usd":0.01}`,
			[]Event{
				{Kind: EventResult, Text: "claude-code error_max_turns: Reached maximum number of turns (20)", IsError: true},
				{Kind: EventUsage, Usage: Usage{InputTokens: 7, CostUSD: 0.01}},
			},
		},
		{
			"max_turns_with_empty_errors",
			`{"type":"result","subtype":"error_max_turns","is_error":true,"terminal_reason":"max_turns","errors":[]}`,
			[]Event{{Kind: EventResult, Text: "claude-code error_max_turns (terminal reason: max_turns)", IsError: true}},
		},
		{
			"error_subtype_without_is_error",
			`{"type":"result","subtype":"error_during_execution","errors":["boom"," "]}`,
			[]Event{{Kind: EventResult, Text: "claude-code error_during_execution: boom", IsError: true}},
		},
		{"mistyped_usage", `{"type":"result","result":"r","usage":"none","total_cost_usd":null}`, []Event{{Kind: EventResult, Text: "r"}}},
		{"result_not_a_string", `{"type":"result","subtype":"success","result":42}`, nil},
		{"bare_error_result", `{"type":"result","is_error":true}`, []Event{{Kind: EventResult, Text: "claude-code error without a message", IsError: true}}},
		{
			"mistyped_field_keeps_the_rest",
			`{"type":"result","subtype":"success","is_error":false,"errors":"not a list","result":"kept","total_cost_usd":"free"}`,
			[]Event{{Kind: EventResult, Text: "kept"}},
		},
		{"user_tool_result", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"the result of \"assistant\" and \"system\""}]}}`, nil},
		{"not_json", `Error: something went wrong`, nil},
		{"json_array", `["assistant"]`, nil},
		{"truncated_json", `{"type":"result","result":"cut`, nil},
		{"leading_garbage", `x{"type":"result","result":"r"}`, nil},
		{"empty", ``, nil},
		{"nested_type_is_not_the_line_type", `{"type":"user","message":{"type":"assistant","content":[{"type":"text","text":"quoted"}]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claudeCode().Parse([]byte(tt.line), nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%s) =\n  %s\nwant\n  %s", tt.line, formatEvents(got), formatEvents(tt.want))
			}
		})
	}
}

func TestClaudeParseAppends(t *testing.T) {
	prior := []Event{{Kind: EventText, Text: "earlier"}}
	got := claudeCode().Parse([]byte(`{"type":"system","subtype":"init","session_id":"s"}`), prior)
	want := []Event{prior[0], {Kind: EventSession, SessionID: "s"}}
	if !slices.Equal(got, want) {
		t.Errorf("Parse appended %v, want %v", got, want)
	}
}

func TestClaudeParseDoesNotRetainLine(t *testing.T) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"hello"},{"type":"tool_use","name":"X","input":{"a":1}}]}}`)
	events := claudeCode().Parse(line, nil)
	for i := range line {
		line[i] = 'z' // the caller reuses its buffer for the next line
	}
	if got, want := formatEvents(events), `text "hello" | tool X "{\"a\":1}"`; got != want {
		t.Errorf("events after the buffer changed = %s, want %s", got, want)
	}
}

// claudeStreams are the stdout captures golden-tested below; claude-code-session.jsonl is an
// on-disk transcript, not stdout, and only seeds the fuzzer.
var claudeStreams = []string{
	"claude-code-2.1.328-real.jsonl",
	"claude-code-stream.jsonl",
	"claude-code-error-stream.jsonl",
}

func TestClaudeParseGolden(t *testing.T) {
	checkParseGolden(t, claudeCode(), claudeStreams)
}

func TestClaudeParseRealCapture(t *testing.T) {
	final := "Done. <result>{\"summary\": \"added a note\", \"score\": 7}</result>\n<promise>COMPLETE</promise>"
	want := []Event{
		{Kind: EventSession, SessionID: "e67eb2d6-2b19-4189-9fd9-8be802421262"},
		{Kind: EventToolCall, Tool: "Bash", Args: "echo note-$(date +%s%N) >> notes.txt && git add notes.txt && git commit -qm 'agent: add note' && echo committed"},
		{Kind: EventText, Text: final},
		{Kind: EventResult, Text: final},
		{Kind: EventUsage, Usage: Usage{InputTokens: 24, OutputTokens: 18, CostUSD: 0.00057}},
	}
	checkFileEvents(t, claudeCode(), "claude-code-2.1.328-real.jsonl", want)
}

func TestClaudeParseReconstructedStream(t *testing.T) {
	events := parseFile(t, claudeCode(), "claude-code-stream.jsonl")
	var tools []string
	last := map[EventKind]Event{}
	texts := 0
	for _, ev := range events {
		last[ev.Kind] = ev
		switch ev.Kind {
		case EventToolCall:
			tools = append(tools, ev.Tool+" "+ev.Args)
		case EventText:
			texts++
		}
	}
	wantTools := []string{
		"Bash gh issue view 17",
		"Read /home/agent/workspace/src/range.ts",
		"Edit /home/agent/workspace/src/range.ts",
		"Bash npm run typecheck && npm test",
		`Bash git commit -am "RALPH: fix off-by-one in parseRange" && gh issue close 17 --comment "Completed by Sandcastle"`,
	}
	if !slices.Equal(tools, wantTools) {
		t.Errorf("tool calls =\n  %q\nwant\n  %q", tools, wantTools)
	}
	if got, want := texts, 3; got != want {
		t.Errorf("text events = %d, want %d", got, want)
	}
	if got, want := last[EventSession].SessionID, "5b0f8d3e-2c1a-4e7b-9f61-3d2a8c4b7e10"; got != want {
		t.Errorf("session = %q, want %q", got, want)
	}
	if r := last[EventResult]; r.IsError || !strings.HasSuffix(r.Text, "Issue #17 is closed.\n\n<promise>COMPLETE</promise>") {
		t.Errorf("result = %+v, want the final text, not an error", r)
	}
	wantUsage := Usage{InputTokens: 33, OutputTokens: 260, CacheReadTokens: 110289, CacheCreationTokens: 11175, CostUSD: 0.3184}
	if got := last[EventUsage].Usage; got != wantUsage {
		t.Errorf("usage = %+v, want %+v", got, wantUsage)
	}
}

func TestClaudeParseErrorStream(t *testing.T) {
	checkFileEvents(t, claudeCode(), "claude-code-error-stream.jsonl", []Event{
		{Kind: EventSession, SessionID: "c3d4e5f6-0718-4293-a4b5-c6d7e8f90a1b"},
		{Kind: EventText, Text: "Invalid API key · Please run /login"},
		{Kind: EventResult, Text: "Invalid API key · Please run /login", IsError: true},
		{Kind: EventUsage},
	})
}

// FuzzClaudeParse checks that no input panics and that every event is well formed.
func FuzzClaudeParse(f *testing.F) {
	addFuzzLines(f, append(slices.Clone(claudeStreams), "claude-code-session.jsonl")...)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"a\u0000\nb"}}]}}`))
	f.Add([]byte(`{"type":"result","subtype":"error_max_turns","errors":[1,null,"x"],"usage":{"input_tokens":1e400}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":"plain"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEventsWellFormed(t, line, claudeCode().Parse(line, nil))
	})
}

// FuzzObjectField checks that the field scanner never panics, even on input that did not pass
// encoding/json, and that what it finds on valid objects agrees with encoding/json.
func FuzzObjectField(f *testing.F) {
	f.Add([]byte(`{"file_path":"a","content":"x\\\"y"}`), "file_path")
	f.Add([]byte(`{"a":{"b":[1,"]}"]},"b":true}`), "b")
	f.Add([]byte(`{"a":"unterminated`), "a")
	f.Add([]byte(`{ "k" : "v" , "k" : 2 }`), "k")
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		raw, ok := objectField(obj, key)
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil || !utf8.ValidString(key) {
			return
		}
		// encoding/json unescapes keys; objectField compares them as written.
		if bytes.Contains(obj, []byte(`\`)) {
			return
		}
		want, has := m[key]
		if ok != has {
			t.Fatalf("objectField(%s, %q) found = %v, encoding/json = %v", obj, key, ok, has)
		}
		if ok && !bytes.Equal(bytes.TrimSpace(raw), bytes.TrimSpace(want)) {
			t.Fatalf("objectField(%s, %q) = %s, encoding/json = %s", obj, key, raw, want)
		}
	})
}

// BenchmarkClaudeParse parses a few MB of stream built from the fixtures plus the line kinds
// that dominate real runs: large tool results and large Write inputs.
func BenchmarkClaudeParse(b *testing.B) {
	var unit [][]byte
	for _, name := range claudeStreams {
		unit = append(unit, readLines(b, name)...)
	}
	big := strings.Repeat(`func f() { return \"x\" }\n`, 1500) // ~40 KB of escaped source
	unit = append(unit,
		[]byte(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"`+big+`","is_error":false}]},"parent_tool_use_id":null,"session_id":"s"}`),
		[]byte(`{"type":"assistant","message":{"id":"m","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/home/agent/workspace/f.go","content":"`+big+`"}}],"usage":{"input_tokens":6}},"parent_tool_use_id":null,"session_id":"s"}`),
	)
	benchmarkParse(b, claudeCode(), unit)
}
