package agent

import (
	"cmp"
	"encoding/json"
	"strings"
)

// cursor is the Cursor Agent CLI (`agent`, installed by cursor.com/install), run in print mode
// with its stream-json output. It has no effort setting (a model's variants are separate model
// names) and no permission modes (the run approves every action with --force, since the sandbox
// is the boundary). Its sessions cannot be carried: Cursor keeps each chat in a SQLite store
// under ~/.cursor/chats, keyed by a hash of the workspace, not in a transcript file that could
// be carried out of one sandbox and into another.
func cursor() Provider {
	return Provider{cli: cursorCLI{}, Spec: Spec{
		Name:    "cursor",
		Label:   "Cursor",
		Secret:  "CURSOR_API_KEY",
		Program: "agent",
		// The model Sandcastle's own scaffolding defaults to.
		DefaultModel: "composer-2",
		// The API key the CLI logs in with and the proxy variables a runner behind a proxy needs
		// to reach Cursor.
		EnvNames: []string{"CURSOR_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"},
		// The API key a headless run logs in with (a browser login cannot happen in a
		// container).
		Credentials: []string{"CURSOR_API_KEY"},
		// The prompt is a command-line argument. Only recent versions of the CLI read a piped
		// prompt, so stdin cannot be relied on.
		MaxPromptBytes: argMax,
	}}
}

type cursorCLI struct{}

// command builds
//
//	agent --print --output-format stream-json --model MODEL --force -- PROMPT
//
// The prompt is the last argument, after "--" so that a prompt starting with '-' is not taken
// for an option (the CLI rejects it as an unknown option otherwise). No
// --stream-partial-output: each assistant message arrives whole, once.
func (cursorCLI) command(r Request, model string) (Command, error) {
	return Command{Argv: []string{"--print", "--output-format", "stream-json", "--model", model, "--force", "--", r.Prompt}}, nil
}

// cursorLine holds the fields of the stream-json lines that produce events, tool_call lines
// aside (Parse reads those without decoding them).
type cursorLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`

	Message struct { // assistant
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`

	// result
	Result  any     `json:"result"`
	IsError bool    `json:"is_error"`
	Usage   rawJSON `json:"usage"`
}

type cursorUsage struct {
	InputTokens      int64 `json:"inputTokens"` // cached tokens are not in it: cacheReadTokens can exceed it
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
}

// parse maps one stream-json line to events:
//
//   - system/init: EventSession;
//   - assistant: EventText per text block (the CLI writes each message between tool calls
//     whole; thinking lines are left out);
//   - tool_call started: EventToolCall for every kind of call (see cursorToolCall);
//   - connection reconnecting: EventError, since the CLI retries and goes on;
//   - result: EventResult (all the run's assistant text, concatenated), IsError when the CLI
//     says so, then EventUsage when the line carries token counts.
//
// The prompt the CLI echoes as a user line yields nothing.
func (cursorCLI) parse(line []byte, dst []Event) []Event {
	switch lineType(line) {
	case "tool_call":
		// Only the call's announcement matters, and the completion, carrying file contents or
		// command output, is the bulk of a stream: look at the two fields, decode nothing else.
		if stringField(line, "subtype") == "started" {
			raw, _ := objectField(line, "tool_call")
			if tool, args, ok := cursorToolCall(raw); ok {
				dst = append(dst, Event{Kind: EventToolCall, Tool: tool, Args: args})
			}
		}
		return dst
	case "system", "assistant", "connection", "result":
	default:
		return dst
	}
	var l cursorLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch l.Type {
	case "system":
		if l.Subtype == "init" && l.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.SessionID})
		}
	case "assistant":
		for _, b := range l.Message.Content {
			if b.Type == "text" && b.Text != "" {
				dst = append(dst, Event{Kind: EventText, Text: b.Text})
			}
		}
	case "connection":
		if l.Subtype == "reconnecting" {
			dst = append(dst, Event{Kind: EventError, Text: "connection to Cursor lost; reconnecting"})
		}
	case "result":
		dst = appendCursorResult(dst, &l)
	}
	return dst
}

func appendCursorResult(dst []Event, l *cursorLine) []Event {
	isError := l.IsError || strings.HasPrefix(l.Subtype, "error")
	result, hasResult := l.Result.(string)
	if isError && result == "" {
		result, hasResult = "cursor "+cmp.Or(l.Subtype, "error")+" without a message", true
	}
	if hasResult {
		dst = append(dst, Event{Kind: EventResult, Text: result, IsError: isError})
	}
	var u cursorUsage
	if decodeObject(l.Usage, &u) {
		dst = append(dst, Event{Kind: EventUsage, Usage: Usage{
			InputTokens:         u.InputTokens,
			OutputTokens:        u.OutputTokens,
			CacheReadTokens:     u.CacheReadTokens,
			CacheCreationTokens: u.CacheWriteTokens,
		}})
	}
	return dst
}

// cursorToolCall names a started call and its display argument. The call's kind is the key of
// tool_call that ends in "ToolCall" (the other keys are metadata such as toolCallId), so a kind
// this code has never seen still shows, under its own name. The common kinds get the names
// Claude-style tools have, so the log reads alike whatever the agent. A generic
// {"function":{"name","arguments"}} call carries its arguments as a JSON string.
func cursorToolCall(raw []byte) (tool, args string, ok bool) {
	var calls map[string]rawJSON
	if json.Unmarshal(raw, &calls) != nil {
		return "", "", false
	}
	kind := ""
	for k := range calls {
		// The smallest matching key, so that a (never seen) second kind cannot make the
		// result depend on map order.
		if (strings.HasSuffix(k, "ToolCall") || k == "function") && (kind == "" || k < kind) {
			kind = k
		}
	}
	if kind == "" {
		return "", "", false
	}
	call := calls[kind]
	switch kind {
	case "function":
		name := stringField(call, "name")
		if name == "" {
			return "", "", false
		}
		arguments := stringField(call, "arguments")
		if !json.Valid([]byte(arguments)) {
			return name, oneLine(arguments), true
		}
		return name, toolArgs(name, rawJSON(arguments)), true
	case "mcpToolCall":
		// {"args":{"name":"<server>-<tool>","args":{…},"toolName":…,"providerIdentifier":…}}
		callArgs, _ := objectField(call, "args")
		name := stringField(callArgs, "name")
		if name == "" {
			name = "mcp"
		}
		inner, _ := objectField(callArgs, "args")
		return name, toolArgs(name, inner), true
	}
	tool = cursorToolName(kind)
	callArgs, _ := objectField(call, "args")
	return tool, toolArgs(tool, callArgs), true
}

// cursorToolName is the display name of a tool_call kind: the Claude-style name of a common
// kind, else the kind without its "ToolCall" suffix.
func cursorToolName(kind string) string {
	switch kind {
	case "shellToolCall":
		return "Bash"
	case "readToolCall":
		return "Read"
	case "writeToolCall":
		return "Write"
	case "editToolCall":
		return "Edit"
	case "deleteToolCall":
		return "Delete"
	case "grepToolCall":
		return "Grep"
	case "globToolCall":
		return "Glob"
	case "lsToolCall":
		return "LS"
	}
	return strings.TrimSuffix(kind, "ToolCall")
}
