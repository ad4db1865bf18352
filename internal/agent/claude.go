package agent

import (
	"bytes"
	"encoding/json"
	"strings"
)

// claudeCode is the Anthropic Claude Code CLI (`claude`), run in print mode with its
// stream-json output.
func claudeCode() Provider {
	return Provider{cli: claudeCLI{}, Spec: Spec{
		Name:    "claude-code",
		Label:   "Claude Code",
		Secret:  "ANTHROPIC_API_KEY",
		Program: "claude",
		// The model Sandcastle's own scaffolding defaults to.
		DefaultModel: "claude-opus-4-8",
		// The values of claude's --effort flag, weakest first.
		Efforts: []string{"low", "medium", "high", "xhigh", "max"},
		// The values of claude's --permission-mode flag.
		PermissionModes: []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"},
		// Cloud-provider credentials (Bedrock's AWS_*, Vertex's Google ones) are left out on
		// purpose: a job often holds them for other work, and handing them to the agent must be
		// the user's explicit choice (the env input). The proxy variables are in because a
		// self-hosted runner behind a proxy cannot reach the API without them, and they grant
		// nothing.
		EnvNames: []string{
			"ANTHROPIC_API_KEY",
			"CLAUDE_CODE_OAUTH_TOKEN",
			"ANTHROPIC_AUTH_TOKEN",
			"ANTHROPIC_BASE_URL",
			"ANTHROPIC_CUSTOM_HEADERS",
			"HTTPS_PROXY",
			"HTTP_PROXY",
			"NO_PROXY",
		},
		// An API key, a subscription token from `claude setup-token`, or a gateway's bearer
		// token.
		Credentials: []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"},
		// Its result line has total_cost_usd.
		ReportsCost: true,
		// claude keeps each session in ~/.claude/projects/<dir>/<id>.jsonl, where dir is the
		// working directory with every character but ASCII letters and digits turned into '-',
		// and takes --resume and --fork-session.
		Sessions: &Sessions{
			Root:    ".claude/projects",
			Pattern: func(id string) string { return id + ".jsonl" },
			Dir: func(cwd string) string {
				return strings.Map(func(r rune) rune {
					if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
						return r
					}
					return '-'
				}, cwd)
			},
			Fork: true,
		},
	}}
}

type claudeCLI struct{}

// command builds
//
//	claude --print --verbose [--permission-mode M | --dangerously-skip-permissions]
//	  --output-format stream-json --model MODEL [--effort E] [--resume ID [--fork-session]]
//
// with the prompt on stdin. Skipping permission prompts also sets IS_SANDBOX=1, without which
// claude refuses --dangerously-skip-permissions when it runs as root (as it does inside a
// container Action).
func (claudeCLI) command(r Request, model string) (Command, error) {
	argv := []string{"--print", "--verbose"}
	var env map[string]string
	if r.PermissionMode != "" {
		// The two flags are mutually exclusive in claude; an explicit mode wins.
		argv = append(argv, "--permission-mode", r.PermissionMode)
	} else {
		argv = append(argv, "--dangerously-skip-permissions")
		env = map[string]string{"IS_SANDBOX": "1"}
	}
	argv = append(argv, "--output-format", "stream-json", "--model", model)
	if r.Effort != "" {
		argv = append(argv, "--effort", r.Effort)
	}
	if r.ResumeSession != "" {
		argv = append(argv, "--resume", r.ResumeSession)
		if r.ForkSession {
			argv = append(argv, "--fork-session")
		}
	}
	// The prompt comes on stdin, which keeps it out of argv (no E2BIG, not visible in ps). No
	// trailing "-p -" as the reference has: claude takes that "-" as prompt text and sends the
	// model "-\n" before the real prompt.
	return Command{Argv: argv, Stdin: r.Prompt, Env: env}, nil
}

// claudeLine holds the fields of one stream-json line that produce events; encoding/json skips
// the rest without allocating. Fields are matched by name, so key order does not matter (the
// real CLI puts "type" last on result lines).
type claudeLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`

	// assistant
	Message struct {
		Content []claudeBlock `json:"content"`
	} `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`

	// result. Fields whose presence matters are decoded loosely (any, raw) and checked by type
	// afterwards: encoding/json sets a pointer field even when the value has the wrong type.
	Result         any      `json:"result"`
	IsError        bool     `json:"is_error"`
	Errors         []string `json:"errors"`
	TerminalReason string   `json:"terminal_reason"`
	Usage          rawJSON  `json:"usage"`
	TotalCostUSD   any      `json:"total_cost_usd"`
}

type claudeBlock struct {
	Type  string  `json:"type"`
	Text  string  `json:"text"`
	Name  string  `json:"name"`
	Input rawJSON `json:"input"`
}

type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// The line types that can produce events, as JSON string tokens. Every other line (tool
// results, hooks, stream events) is skipped by a byte search, which is far cheaper than
// decoding a tool result that may be tens of KB. Searching for the quoted value rather than
// `"type":"…"` keeps the test independent of key order and whitespace; a false positive only
// costs a decode.
const (
	tokSystem    = `"system"`
	tokAssistant = `"assistant"`
	tokResult    = `"result"`
)

// parse maps one stream-json line to events:
//
//   - system/init: EventSession;
//   - assistant: per content block, EventText for text and EventToolCall for every tool_use
//     (thinking is ignored); text from a subagent (parent_tool_use_id set) is left out because
//     it is the subagent's report to Claude, not Claude's answer, and could carry a completion
//     signal it merely quoted, while its tool calls are still shown;
//   - result: EventResult (an error result without text gets a message from subtype and errors),
//     then EventUsage with the invocation's totals and cost.
//
// Anything else, including lines that are not JSON objects, yields nothing.
func (claudeCLI) parse(line []byte, dst []Event) []Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return dst
	}
	if !bytes.Contains(line, []byte(tokAssistant)) && !bytes.Contains(line, []byte(tokResult)) &&
		!bytes.Contains(line, []byte(tokSystem)) {
		return dst
	}
	var l claudeLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch l.Type {
	case "system":
		if l.Subtype == "init" && l.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.SessionID})
		}
	case "assistant":
		subagent := l.ParentToolUseID != nil && *l.ParentToolUseID != ""
		for _, b := range l.Message.Content {
			switch b.Type {
			case "text":
				if b.Text != "" && !subagent {
					dst = append(dst, Event{Kind: EventText, Text: b.Text})
				}
			case "tool_use":
				if b.Name != "" {
					dst = append(dst, Event{Kind: EventToolCall, Tool: b.Name, Args: toolArgs(b.Name, b.Input)})
				}
			}
		}
	case "result":
		dst = appendClaudeResult(dst, &l)
	}
	return dst
}

func appendClaudeResult(dst []Event, l *claudeLine) []Event {
	// An error subtype is a failure even if a CLI version forgets is_error.
	isError := l.IsError || strings.HasPrefix(l.Subtype, "error")
	result, hasResult := l.Result.(string)
	switch {
	case hasResult && (result != "" || !isError):
		dst = append(dst, Event{Kind: EventResult, Text: result, IsError: isError})
	case isError:
		dst = append(dst, Event{Kind: EventResult, Text: claudeErrorText(l), IsError: true})
	}
	var u claudeUsage
	hasUsage := len(l.Usage) > 0 && l.Usage[0] == '{'
	if hasUsage {
		_ = json.Unmarshal(l.Usage, &u) // a mistyped count stays zero
	}
	cost, hasCost := l.TotalCostUSD.(float64)
	if hasUsage || hasCost {
		dst = append(dst, Event{Kind: EventUsage, Usage: Usage{
			InputTokens:         u.InputTokens,
			OutputTokens:        u.OutputTokens,
			CacheReadTokens:     u.CacheReadInputTokens,
			CacheCreationTokens: u.CacheCreationInputTokens,
			CostUSD:             cost,
		}})
	}
	return dst
}

// claudeErrorText describes an error result that has no result text, e.g.
// {"subtype":"error_max_turns","errors":["Reached maximum number of turns (20)"]}, whose errors
// list is sometimes empty.
func claudeErrorText(l *claudeLine) string {
	var msgs []string
	for _, e := range l.Errors {
		if e = strings.TrimSpace(e); e != "" {
			msgs = append(msgs, e)
		}
	}
	what := l.Subtype
	if what == "" {
		what = "error"
	}
	switch {
	case len(msgs) > 0:
		return "claude-code " + what + ": " + strings.Join(msgs, "; ")
	case l.TerminalReason != "":
		return "claude-code " + what + " (terminal reason: " + l.TerminalReason + ")"
	default:
		return "claude-code " + what + " without a message"
	}
}
