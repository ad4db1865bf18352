package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPiCommand(t *testing.T) {
	head := []string{"pi", "-p", "--mode", "json", "--model"}
	argv := func(parts ...[]string) []string { return slices.Concat(parts...) }

	checkCommands(t, pi(), []commandCase{
		{name: "defaults", req: Request{Prompt: "fix it"}, argv: argv(head, []string{"claude-sonnet-4-6"})},
		{name: "provider_model", req: Request{Prompt: "p", Model: "openai/gpt-5.5"}, argv: argv(head, []string{"openai/gpt-5.5"})},
		{name: "thinking", req: Request{Prompt: "p", Effort: "off"}, argv: argv(head, []string{"claude-sonnet-4-6", "--thinking", "off"})},
		{
			name: "resume_continues_in_place",
			req:  Request{Prompt: "p", Effort: "high", ResumeSession: "019e9b10-4a5b-7c6d-8e9f-0a1b2c3d4e5f"},
			argv: argv(head, []string{"claude-sonnet-4-6", "--thinking", "high", "--session", "019e9b10-4a5b-7c6d-8e9f-0a1b2c3d4e5f"}),
		},
		{
			name: "fork_is_a_flag_of_its_own",
			req:  Request{Prompt: "p", ResumeSession: "abc-123", ForkSession: true},
			argv: argv(head, []string{"claude-sonnet-4-6", "--fork", "abc-123"}),
		},
		{name: "unknown_thinking", req: Request{Effort: "max"}, wantErr: `effort "max": valid values are off, minimal, low, medium, high, xhigh`},
		{name: "no_permission_modes", req: Request{PermissionMode: "bypassPermissions"}, wantErr: "pi has no permission-mode setting"},
		{name: "fork_without_resume", req: Request{ForkSession: true}, wantErr: "fork-session needs a session to resume"},
		{name: "session_read_as_a_path", req: Request{ResumeSession: "notes.jsonl"}, wantErr: "pi reads as a file path"},
		{name: "session_with_slash", req: Request{ResumeSession: "../x"}, wantErr: "is not valid"},
		{name: "model_looking_like_a_flag", req: Request{Model: "--no-session"}, wantErr: `model "--no-session" must not start`},
	})
}

func TestPiCommandPromptNeverInArgv(t *testing.T) {
	checkPromptOnStdin(t, pi(), Request{ResumeSession: "abc-123"})
}

func TestPiSessionDir(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/agent/workspace", "--home-agent-workspace--"},
		{"/srv/ci/my.repo/my_repo", "--srv-ci-my.repo-my_repo--"},
		{`C:\repos\my-app`, "--C--repos-my-app--"},
		{`\\server\share`, "---server-share--"},
		{"//double", "---double--"},
		{"/", "----"},
		{"relative/dir", "--relative-dir--"},
	}
	for _, tt := range tests {
		if got := pi().Sessions.Dir(tt.cwd); got != tt.want {
			t.Errorf("Dir(%q) = %q, want %q", tt.cwd, got, tt.want)
		}
	}
}

func TestPiParse(t *testing.T) {
	tool := func(name, args string) Event { return Event{Kind: EventToolCall, Tool: name, Args: args} }
	update := func(ev string) string {
		return `{"type":"message_update","assistantMessageEvent":` + ev + `,"message":{"role":"assistant","content":[{"type":"text","text":"<promise>COMPLETE</promise> so far"}]}}`
	}
	usage := `"usage":{"input":1812,"output":57,"cacheRead":100,"cacheWrite":20,"totalTokens":1989,"cost":{"input":0.005,"output":0.0009,"total":0.0061}}`
	user := `{"role":"user","content":[{"type":"text","text":"Fix it. Then print <promise>COMPLETE</promise>."}]}`
	assistant := func(content, rest string) string {
		return `{"role":"assistant","content":[` + content + `],"api":"anthropic-messages",` + rest + `}`
	}
	agentEnd := func(messages ...string) string {
		return `{"type":"agent_end","messages":[` + strings.Join(messages, ",") + `]}`
	}
	result := func(s string) Event { return Event{Kind: EventResult, Text: s} }
	failed := func(s string) Event { return Event{Kind: EventResult, Text: s, IsError: true} }

	tests := []struct {
		name string
		line string
		want []Event
	}{
		{"session_header", `{"type":"session","version":3,"id":"019e","timestamp":"t","cwd":"/w"}`, []Event{{Kind: EventSession, SessionID: "019e"}}},
		{"session_header_without_id", `{"type":"session","version":3}`, nil},
		{"text_delta", update(`{"type":"text_delta","contentIndex":0,"delta":"I'll run "}`), []Event{{Kind: EventText, Text: "I'll run "}}},
		{"empty_text_delta", update(`{"type":"text_delta","delta":""}`), nil},
		{"text_end_repeats_the_deltas", update(`{"type":"text_end","content":"I'll run the tests."}`), nil},
		{"thinking_delta_is_not_text", update(`{"type":"thinking_delta","delta":"<promise>COMPLETE</promise>"}`), nil},
		{"toolcall_delta_is_not_a_call_yet", update(`{"type":"toolcall_delta","delta":"{\"command\": \"npm"}`), nil},
		{
			"update_error",
			update(`{"type":"error","reason":"error","error":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded_error"}}`),
			[]Event{{Kind: EventError, Text: "overloaded_error"}},
		},
		{"update_error_without_message", update(`{"type":"error","reason":"aborted"}`), []Event{{Kind: EventError, Text: "pi request failed without a message"}}},
		{"lower_case_bash", `{"type":"tool_execution_start","toolCallId":"t1","toolName":"bash","args":{"command":"npm test"}}`, []Event{tool("bash", "npm test")}},
		{"read", `{"type":"tool_execution_start","toolCallId":"t1","toolName":"read","args":{"path":"src/range.ts","offset":1}}`, []Event{tool("read", "src/range.ts")}},
		{"edit", `{"type":"tool_execution_start","toolName":"edit","args":{"path":"src/range.ts","oldText":"<","newText":"<="}}`, []Event{tool("edit", "src/range.ts")}},
		{"write_skips_content", `{"type":"tool_execution_start","toolName":"write","args":{"content":"` + strings.Repeat("x", 300) + `","path":"big.txt"}}`, []Event{tool("write", "big.txt")}},
		{"find", `{"type":"tool_execution_start","toolName":"find","args":{"pattern":"**/*.ts","path":"src"}}`, []Event{tool("find", "**/*.ts")}},
		{"extension_tool", `{"type":"tool_execution_start","toolName":"todo","args":{"items":["a"]}}`, []Event{tool("todo", `{"items":["a"]}`)}},
		{"tool_without_name", `{"type":"tool_execution_start","args":{"command":"ls"}}`, nil},
		{"tool_execution_update", `{"type":"tool_execution_update","toolName":"bash","args":{"command":"npm test"},"partialResult":{"content":[]}}`, nil},
		{"tool_execution_end", `{"type":"tool_execution_end","toolName":"bash","result":{"content":[{"type":"text","text":"\"error\""}]},"isError":true}`, nil},
		{
			"assistant_message_end_reports_usage",
			`{"type":"message_end","message":` + assistant(`{"type":"text","text":"hi"}`, usage+`,"stopReason":"stop"`) + `}`,
			[]Event{{Kind: EventUsage, Usage: Usage{InputTokens: 1812, OutputTokens: 57, CacheReadTokens: 100, CacheCreationTokens: 20, CostUSD: 0.0061}}},
		},
		{"user_message_end", `{"type":"message_end","message":` + user + `}`, nil},
		{"user_message_start", `{"type":"message_start","message":` + user + `}`, nil},
		{"tool_result_message_end", `{"type":"message_end","message":{"role":"toolResult","toolName":"bash","content":[{"type":"text","text":"ok"}],"usage":{"input":1}}}`, nil},
		{"assistant_message_start_not_counted", `{"type":"message_start","message":` + assistant(``, usage) + `}`, nil},
		{"turn_end_not_counted_again", `{"type":"turn_end","message":` + assistant(`{"type":"text","text":"hi"}`, usage) + `,"toolResults":[]}`, nil},
		{"mistyped_usage", `{"type":"message_end","message":` + assistant(``, `"usage":{"input":"lots","output":2}`) + `}`, []Event{{Kind: EventUsage, Usage: Usage{OutputTokens: 2}}}},
		{"assistant_message_end_without_usage", `{"type":"message_end","message":` + assistant(``, `"stopReason":"stop"`) + `}`, nil},
		{
			"agent_end_result_is_the_last_assistant_message",
			agentEnd(user, assistant(`{"type":"text","text":"I'll run the tests."},{"type":"toolCall","name":"bash","arguments":{}}`, usage),
				`{"role":"toolResult","content":[{"type":"text","text":"ok"}]}`,
				assistant(`{"type":"thinking","thinking":"hmm"},{"type":"text","text":"All pass."},{"type":"text","text":"<promise>COMPLETE</promise>"}`, usage)),
			[]Event{result("All pass.\n<promise>COMPLETE</promise>")},
		},
		{"agent_end_never_echoes_the_prompt", agentEnd(user), nil},
		{"agent_end_last_assistant_without_text", agentEnd(user, assistant(`{"type":"text","text":"older"}`, usage), assistant(`{"type":"toolCall","name":"bash"}`, usage)), nil},
		{
			"agent_end_error",
			agentEnd(user, assistant(``, `"stopReason":"error","errorMessage":"401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}"`)),
			[]Event{failed(`401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)},
		},
		{"agent_end_error_with_partial_text", agentEnd(assistant(`{"type":"text","text":"<promise>COMPLETE"}`, `"stopReason":"error","errorMessage":"terminated"`)), []Event{failed("terminated")}},
		{"agent_end_aborted", agentEnd(user, assistant(``, `"stopReason":"aborted"`)), []Event{failed("pi request aborted")}},
		{"agent_end_error_without_message", agentEnd(assistant(``, `"stopReason":"error"`)), []Event{failed("pi request failed without a message")}},
		{"agent_end_without_messages", `{"type":"agent_end","messages":[]}`, nil},
		{"agent_end_messages_not_a_list", `{"type":"agent_end","messages":"none"}`, nil},
		{"agent_end_assistant_content_not_a_list", agentEnd(`{"role":"assistant","content":"plain"}`), nil},
		{
			"auto_retry",
			`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"529 overloaded_error"}`,
			[]Event{{Kind: EventError, Text: "529 overloaded_error (retry 1 of 3)"}},
		},
		{"auto_retry_end", `{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"529 overloaded_error"}`, nil},
		{"compaction_failed", `{"type":"compaction_end","reason":"overflow","aborted":false,"willRetry":false,"errorMessage":"Context overflow recovery failed: x"}`, []Event{{Kind: EventError, Text: "Context overflow recovery failed: x"}}},
		{"compaction_done", `{"type":"compaction_end","reason":"threshold","aborted":false,"willRetry":false}`, nil},
		{"keys_in_any_order", `{"id":"019e","cwd":"/w","type":"session"}`, []Event{{Kind: EventSession, SessionID: "019e"}}},
		{"agent_start", `{"type":"agent_start"}`, nil},
		{"not_json", `No API key found for anthropic.`, nil},
		{"truncated_json", `{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"cut`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pi().Parse([]byte(tt.line), nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%s) =\n  %s\nwant\n  %s", tt.line, formatEvents(got), formatEvents(tt.want))
			}
		})
	}
}

func TestPiParseSkipsBulkyLinesCheaply(t *testing.T) {
	msg := `{"role":"assistant","content":[{"type":"thinking","thinking":"` + bigOutput + `"}]}`
	for _, line := range []string{
		`{"type":"message_update","assistantMessageEvent":{"type":"thinking_delta","delta":"x","partial":` + msg + `},"message":` + msg + `}`,
		`{"type":"tool_execution_end","toolName":"read","result":{"content":[{"type":"text","text":"` + bigOutput + `"}]},"isError":false}`,
		`{"type":"turn_end","message":` + msg + `,"toolResults":[]}`,
	} {
		checkSkippedCheaply(t, pi(), []byte(line))
	}
}

func TestPiParseAppendsAndDoesNotRetainLine(t *testing.T) {
	prior := []Event{{Kind: EventText, Text: "earlier"}}
	line := []byte(`{"type":"agent_end","messages":[{"role":"assistant","content":[{"type":"text","text":"hello"}]}]}`)
	events := pi().Parse(line, prior)
	for i := range line {
		line[i] = 'z' // the caller reuses its buffer for the next line
	}
	if got, want := formatEvents(events), `text "earlier" | result "hello"`; got != want {
		t.Errorf("events after the buffer changed = %s, want %s", got, want)
	}
}

// piStreams are the stdout captures golden-tested below: reconstructed ones, upstream's sample,
// and real ones of pi 0.73.1 (against a scripted stand-in for the Messages API).
// pi-sample-resumed-session.jsonl is an on-disk session, not stdout, and only seeds the fuzzer.
var piStreams = []string{
	"pi-0.73.1-real.jsonl",
	"pi-0.73.1-401-real.jsonl",
	"pi-0.73.1-fork-real.jsonl",
	"pi-stream.jsonl",
	"pi-sample-stream-stdout.jsonl",
}

func TestPiParseGolden(t *testing.T) {
	checkParseGolden(t, pi(), piStreams)
}

func TestPiParseRealCapture(t *testing.T) {
	checkFileEvents(t, pi(), "pi-0.73.1-real.jsonl", []Event{
		{Kind: EventSession, SessionID: "01a22ea2-1c24-74e5-9639-01b9f61fc6cc"},
		{Kind: EventUsage, Usage: Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 40}},
		{Kind: EventToolCall, Tool: "bash", Args: "echo hi > f && git add f && git commit -q -m x"},
		{Kind: EventText, Text: "done <promise>COMPLETE</promise>"},
		{Kind: EventUsage, Usage: Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 40}},
		{Kind: EventResult, Text: "done <promise>COMPLETE</promise>"},
	})
}

// pi exits 0 when the model call fails; the failed assistant message is the only sign.
func TestPiParseRealAuthFailure(t *testing.T) {
	checkFileEvents(t, pi(), "pi-0.73.1-401-real.jsonl", []Event{
		{Kind: EventSession, SessionID: "01a22ea3-1b48-75a2-b39b-636864ded3a7"},
		{Kind: EventUsage},
		{Kind: EventResult, IsError: true, Text: `401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key (scripted 401)"}}`},
	})
}

func TestPiParseReconstructedStream(t *testing.T) {
	events := parseFile(t, pi(), "pi-stream.jsonl")
	var text strings.Builder
	var others []Event
	for _, ev := range events {
		if ev.Kind == EventText {
			text.WriteString(ev.Text)
			continue
		}
		others = append(others, ev)
	}
	final := "All 42 tests pass. The fix is committed.\n\n<promise>COMPLETE</promise>"
	if got, want := text.String(), "I'll run the tests first."+final; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	want := []Event{
		{Kind: EventSession, SessionID: "019e9b10-4a5b-7c6d-8e9f-0a1b2c3d4e5f"},
		{Kind: EventUsage, Usage: Usage{InputTokens: 1812, OutputTokens: 57, CostUSD: 0.006291}},
		{Kind: EventToolCall, Tool: "bash", Args: "npm test"},
		{Kind: EventUsage, Usage: Usage{InputTokens: 1960, OutputTokens: 24, CostUSD: 0.00624}},
		{Kind: EventResult, Text: final},
	}
	if !slices.Equal(others, want) {
		t.Errorf("events other than text =\n  %s\nwant\n  %s", formatEvents(others), formatEvents(want))
	}
}

func TestPiParseSampleStream(t *testing.T) {
	checkFileEvents(t, pi(), "pi-sample-stream-stdout.jsonl", []Event{
		{Kind: EventSession, SessionID: "019e7434-08a3-772a-ba93-08265b85f937"},
		{Kind: EventText, Text: "Hi"},
		{Kind: EventText, Text: "!"},
		{Kind: EventUsage, Usage: Usage{InputTokens: 1488, OutputTokens: 6, CostUSD: 0.00762}},
		{Kind: EventResult, Text: "Hi!"},
	})
}

// FuzzPiParse checks that no input panics and that every event is well formed.
func FuzzPiParse(f *testing.F) {
	addFuzzLines(f, append(slices.Clone(piStreams), "pi-sample-resumed-session.jsonl")...)
	f.Add([]byte(`{"type":"agent_end","messages":[{"role":"assistant","content":[{"type":"text","text":""}],"stopReason":"error"},{"role":"assistant"}]}`))
	f.Add([]byte(`{"type":"message_end","message":{"role":"assistant","usage":{"input":1e400,"cost":{"total":"x"}}}}`))
	f.Add([]byte(`{"type":"tool_execution_start","toolName":"bash","args":{"command":"a\u0000\nb"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEventsWellFormed(t, line, pi().Parse(line, nil))
	})
}

// BenchmarkPiParse parses a few MB of stream built from the fixtures plus the line kinds that
// dominate real runs: deltas of a long answer, each repeating the partial message twice, and
// large tool output.
func BenchmarkPiParse(b *testing.B) {
	var unit [][]byte
	for _, name := range piStreams {
		unit = append(unit, readLines(b, name)...)
	}
	partial := strings.Repeat(`The fix is \"committed\" and tested. `, 500) // ~19 KB so far
	msg := `{"role":"assistant","content":[{"type":"text","text":"` + partial + `"}],"usage":{"input":0,"output":0}}`
	unit = append(unit,
		[]byte(fmt.Sprintf(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"ok ","partial":%s},"message":%s}`, msg, msg)),
		[]byte(fmt.Sprintf(`{"type":"message_update","assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"hm","partial":%s},"message":%s}`, msg, msg)),
		[]byte(`{"type":"tool_execution_end","toolCallId":"t","toolName":"read","result":{"content":[{"type":"text","text":"`+bigOutput+`"}]},"isError":false}`),
		[]byte(`{"type":"message_end","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"`+bigOutput+`"}],"isError":false}}`),
	)
	benchmarkParse(b, pi(), unit)
}
