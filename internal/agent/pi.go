package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// pi is Mario Zechner's pi coding agent (`pi`, npm @mariozechner/pi-coding-agent), run in print
// mode with its JSON event stream. It has no permission modes: pi has no permission prompts to
// skip or configure.
func pi() Provider {
	// The API key variables of pi's providers (pi --help lists them): whichever provider the
	// model belongs to, one of these logs it in.
	credentials := []string{
		"ANTHROPIC_API_KEY",
		"ANTHROPIC_OAUTH_TOKEN",
		"OPENAI_API_KEY",
		"GEMINI_API_KEY",
		"AZURE_OPENAI_API_KEY",
		"GOOGLE_CLOUD_API_KEY",
		"DEEPSEEK_API_KEY",
		"GROQ_API_KEY",
		"CEREBRAS_API_KEY",
		"XAI_API_KEY",
		"OPENROUTER_API_KEY",
		"AI_GATEWAY_API_KEY",
		"ZAI_API_KEY",
		"MISTRAL_API_KEY",
		"MINIMAX_API_KEY",
		"MINIMAX_CN_API_KEY",
		"MOONSHOT_API_KEY",
		"FIREWORKS_API_KEY",
		"OPENCODE_API_KEY",
		"KIMI_API_KEY",
		"CLOUDFLARE_API_KEY",
		"XIAOMI_API_KEY",
		"COPILOT_GITHUB_TOKEN",
	}
	return Provider{cli: piCLI{}, Spec: Spec{
		Name:    "pi",
		Label:   "Pi",
		Secret:  "ANTHROPIC_API_KEY",
		Program: "pi",
		// The model Sandcastle's own scaffolding defaults to.
		DefaultModel: "claude-sonnet-4-6",
		// The values of pi's --thinking flag, weakest first.
		Efforts: []string{"off", "minimal", "low", "medium", "high", "xhigh"},
		// The credentials plus the endpoint settings of the providers that need them and the
		// proxy variables. Cloud credentials (AWS_*, Google application-default ones) and tokens a
		// job often holds for other work (GH_TOKEN, GITHUB_TOKEN, HF_TOKEN) are left out on
		// purpose: handing them to the agent must be the user's explicit choice (the env input).
		EnvNames: append(slices.Clone(credentials),
			"AZURE_OPENAI_BASE_URL",
			"AZURE_OPENAI_RESOURCE_NAME",
			"AZURE_OPENAI_API_VERSION",
			"AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
			"CLOUDFLARE_ACCOUNT_ID",
			"CLOUDFLARE_GATEWAY_ID",
			"HTTPS_PROXY",
			"HTTP_PROXY",
			"NO_PROXY",
		),
		Credentials: credentials,
		// Each assistant message has usage.cost.total.
		ReportsCost: true,
		// pi keeps each session in ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl and takes
		// --session (continue in place) and --fork (continue in a new session).
		Sessions: &Sessions{
			Root:    ".pi/agent/sessions",
			Pattern: func(id string) string { return "*_" + id + ".jsonl" },
			Dir:     piSessionDir,
			Fork:    true,
		},
	}}
}

// piSessionDir is pi's name for the session directory of cwd: one leading separator dropped,
// every '/', '\' and ':' turned into '-', and the whole wrapped in "--".
func piSessionDir(cwd string) string {
	if cwd != "" && (cwd[0] == '/' || cwd[0] == '\\') {
		cwd = cwd[1:]
	}
	return "--" + strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '-'
		}
		return r
	}, cwd) + "--"
}

type piCLI struct{}

// command builds
//
//	pi -p --mode json --model MODEL [--thinking LEVEL] [--session ID | --fork ID]
//
// with the prompt on stdin. Sessions persist (no --no-session) so that they can be resumed.
func (piCLI) command(r Request, model string) (Command, error) {
	if strings.HasSuffix(r.ResumeSession, ".jsonl") {
		// pi would open such an argument as a file path rather than look the id up.
		return Command{}, fmt.Errorf("pi: session id %q ends in .jsonl, which pi reads as a file path; use the id the agent printed", r.ResumeSession)
	}
	argv := []string{"-p", "--mode", "json", "--model", model}
	if r.Effort != "" {
		argv = append(argv, "--thinking", r.Effort)
	}
	switch {
	case r.ForkSession:
		argv = append(argv, "--fork", r.ResumeSession)
	case r.ResumeSession != "":
		argv = append(argv, "--session", r.ResumeSession)
	}
	return Command{Argv: argv, Stdin: r.Prompt}, nil
}

// piLine holds the fields of one `pi --mode json` line that produce events. The message bodies
// stay raw (aliasing the line): every message_update repeats the whole partial message, and
// agent_end repeats the whole run, so they are decoded only where needed.
type piLine struct {
	Type string `json:"type"`
	ID   string `json:"id"` // session header

	AssistantMessageEvent struct {
		Type  string  `json:"type"`
		Delta string  `json:"delta"`
		Error rawJSON `json:"error"` // the failed message, on type "error"
	} `json:"assistantMessageEvent"`

	Message  rawJSON   `json:"message"`  // message_end
	Messages []rawJSON `json:"messages"` // agent_end

	ToolName string  `json:"toolName"` // tool_execution_start
	Args     rawJSON `json:"args"`

	Attempt      int    `json:"attempt"` // auto_retry_start
	MaxAttempts  int    `json:"maxAttempts"`
	ErrorMessage string `json:"errorMessage"` // auto_retry_start, compaction_end
}

type piMessage struct {
	Role         string  `json:"role"`
	Content      rawJSON `json:"content"`
	StopReason   string  `json:"stopReason"`
	ErrorMessage string  `json:"errorMessage"`
	Usage        rawJSON `json:"usage"`
}

type piUsage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Cost       struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

// parse maps one `pi --mode json` line to events:
//
//   - session (the header): EventSession;
//   - message_update text_delta: EventText with the delta (thinking is left out);
//   - tool_execution_start: EventToolCall, for every tool;
//   - message_end of an assistant message: EventUsage, once per model call (turn_end and
//     agent_end repeat the message and are not counted again);
//   - agent_end: EventResult with the text of the run's last assistant message, or with
//     IsError when that message failed (pi itself exits 0 then);
//   - message_update error, auto_retry_start, and compaction_end with an error: EventError,
//     since pi may retry and go on.
//
// The prompt pi echoes as a user message, and tool results, yield nothing.
func (piCLI) parse(line []byte, dst []Event) []Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !piWanted(line) {
		return dst
	}
	var l piLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch l.Type {
	case "session":
		if l.ID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.ID})
		}
	case "message_update":
		switch ev := &l.AssistantMessageEvent; ev.Type {
		case "text_delta":
			if ev.Delta != "" {
				dst = append(dst, Event{Kind: EventText, Text: ev.Delta})
			}
		case "error":
			var m piMessage
			_ = json.Unmarshal(ev.Error, &m)
			dst = append(dst, Event{Kind: EventError, Text: piErrorText(&m)})
		}
	case "tool_execution_start":
		if l.ToolName != "" {
			dst = append(dst, Event{Kind: EventToolCall, Tool: l.ToolName, Args: toolArgs(l.ToolName, l.Args)})
		}
	case "message_end":
		if m, ok := piAssistant(l.Message); ok && len(m.Usage) > 0 && m.Usage[0] == '{' {
			var u piUsage
			_ = json.Unmarshal(m.Usage, &u) // a mistyped count stays zero
			dst = append(dst, Event{Kind: EventUsage, Usage: Usage{
				InputTokens: u.Input, OutputTokens: u.Output, // pi's input excludes cached tokens
				CacheReadTokens: u.CacheRead, CacheCreationTokens: u.CacheWrite, CostUSD: u.Cost.Total,
			}})
		}
	case "agent_end":
		dst = appendPiResult(dst, l.Messages)
	case "auto_retry_start":
		msg := strings.TrimSpace(l.ErrorMessage)
		if msg == "" {
			msg = "request failed"
		}
		dst = append(dst, Event{Kind: EventError, Text: fmt.Sprintf("%s (retry %d of %d)", msg, l.Attempt, l.MaxAttempts)})
	case "compaction_end":
		if msg := strings.TrimSpace(l.ErrorMessage); msg != "" {
			dst = append(dst, Event{Kind: EventError, Text: msg})
		}
	}
	return dst
}

// piWanted reports whether line may produce events, by its type (and its assistant event's): a
// scan, not a decode, so the lines of no use (thinking and tool-call deltas, tool output, turn
// ends), each of which may be large, cost next to nothing.
func piWanted(line []byte) bool {
	switch lineType(line) {
	case "session", "message_end", "tool_execution_start", "agent_end", "auto_retry_start", "compaction_end":
		return true
	case "message_update":
		ev, _ := objectField(line, "assistantMessageEvent")
		t := stringField(ev, "type")
		return t == "text_delta" || t == "error"
	}
	return false
}

// appendPiResult reports the run's outcome from the last assistant message of agent_end. Pi
// may retry a failed request after this (auto_retry_start follows), in which case a later
// agent_end reports again.
func appendPiResult(dst []Event, messages []rawJSON) []Event {
	for i := len(messages) - 1; i >= 0; i-- {
		m, ok := piAssistant(messages[i])
		if !ok {
			continue
		}
		if m.StopReason == "error" || m.StopReason == "aborted" {
			return append(dst, Event{Kind: EventResult, Text: piErrorText(&m), IsError: true})
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var texts []string
		for _, b := range blocks {
			if b.Type == "text" && b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		if len(texts) > 0 {
			dst = append(dst, Event{Kind: EventResult, Text: strings.Join(texts, "\n")})
		}
		return dst
	}
	return dst
}

// piAssistant decodes raw when it is an assistant message. The role is checked first with a
// scan, so user and tool-result messages (file contents, command output) are never decoded.
func piAssistant(raw []byte) (piMessage, bool) {
	if stringField(raw, "role") != "assistant" {
		return piMessage{}, false
	}
	var m piMessage
	if !decodeLine(raw, &m) {
		return piMessage{}, false
	}
	return m, true
}

func piErrorText(m *piMessage) string {
	if msg := strings.TrimSpace(m.ErrorMessage); msg != "" {
		return msg
	}
	if m.StopReason == "aborted" {
		return "pi request aborted"
	}
	return "pi request failed without a message"
}
