package agent

import (
	"bytes"
	"encoding/json"
	"strings"
)

// codex is the OpenAI Codex CLI (`codex exec`), run with its JSON Lines event stream. It has no
// permission modes: codex runs with approvals and its own sandbox bypassed, since the sandbox
// Sandcastle runs it in is the boundary (codex's sandbox needs kernel features a container often
// lacks).
func codex() Provider {
	return Provider{cli: codexCLI{}, Spec: Spec{
		Name:    "codex",
		Label:   "Codex",
		Secret:  "CODEX_API_KEY",
		Program: "codex",
		// gpt-5.5 is in the model catalog of the pinned codex (0.171): for a model it does not
		// know, codex prints a warning on every run.
		DefaultModel: "gpt-5.5",
		// The values of model_reasoning_effort, weakest first: the levels of codex's model
		// catalog (low to ultra) and the OpenAI API's lower ones (none, minimal). codex passes
		// the value to the model unchecked, and which levels a model takes depends on the model.
		Efforts: []string{"none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"},
		// The credentials codex reads, and the proxy variables a runner behind a proxy needs to
		// reach the API. OPENAI_API_KEY is passed on for the custom model providers of a codex
		// config, which usually name it as their key; OPENAI_BASE_URL is not listed because
		// codex ignores it (its config's openai_base_url sets the endpoint).
		EnvNames: []string{"CODEX_API_KEY", "OPENAI_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"},
		// The API key `codex exec` logs in with. It does not log in with OPENAI_API_KEY (codex
		// 0.171 sends no key when only that is set), so a job that holds only that must pass it
		// on as CODEX_API_KEY.
		Credentials: []string{"CODEX_API_KEY"},
		// codex keeps each session in ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
		// whatever the working directory, and takes `exec resume` and `exec fork`.
		Sessions: &Sessions{
			Root:    ".codex/sessions",
			Pattern: func(id string) string { return "rollout-*-" + id + ".jsonl" },
			Fork:    true,
		},
	}}
}

type codexCLI struct{}

// command builds
//
//	codex exec [resume ID | fork ID] --json --dangerously-bypass-approvals-and-sandbox
//	  --skip-git-repo-check -m MODEL [-c model_reasoning_effort="E"] -
//
// with the prompt on stdin ("-" says so explicitly). --skip-git-repo-check because a git
// worktree's .git file may point outside what the sandbox mounts, and the repository is
// Sandcastle's business, not codex's.
func (codexCLI) command(r Request, model string) (Command, error) {
	argv := []string{"exec"}
	switch {
	case r.ForkSession:
		argv = append(argv, "fork", r.ResumeSession)
	case r.ResumeSession != "":
		argv = append(argv, "resume", r.ResumeSession)
	}
	argv = append(argv, "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", model)
	if r.Effort != "" {
		// -c takes TOML; the effort is one of a fixed list of bare words, so quoting it is safe.
		argv = append(argv, "-c", `model_reasoning_effort="`+r.Effort+`"`)
	}
	argv = append(argv, "-")
	return Command{Argv: argv, Stdin: r.Prompt}, nil
}

// codexLine holds the fields of one `codex exec --json` line that produce events.
type codexLine struct {
	Type     string    `json:"type"`
	ThreadID string    `json:"thread_id"` // thread.started
	Item     codexItem `json:"item"`      // item.*
	Message  string    `json:"message"`   // error
	Error    rawJSON   `json:"error"`     // turn.failed: {"message": …}, or a bare string
	Usage    rawJSON   `json:"usage"`     // turn.completed
}

type codexItem struct {
	Type string `json:"type"`
	// agent_message
	Text    string `json:"text"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	// command_execution
	Command string `json:"command"`
	// file_change
	Changes []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	// web_search
	Query string `json:"query"`
	// mcp_tool_call
	Server    string  `json:"server"`
	Tool      string  `json:"tool"`
	Arguments rawJSON `json:"arguments"`
	// error (a warning: the turn goes on)
	Message string `json:"message"`
}

type codexUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
}

// parse maps one `codex exec --json` line to events:
//
//   - thread.started: EventSession;
//   - item.completed agent_message: EventText (codex marks no final answer, so no EventResult);
//   - item.started command_execution and mcp_tool_call, item.completed file_change and
//     web_search (those only complete, or only then carry their query): EventToolCall;
//   - item.completed error, and top-level error (the "Reconnecting... 1/5" retries among
//     them): EventError, since the turn goes on or ends in turn.failed;
//   - turn.failed: EventResult with IsError;
//   - turn.completed: EventUsage, cached input moved out of InputTokens.
//
// Reasoning, todo lists, command output and anything else yield nothing.
func (codexCLI) parse(line []byte, dst []Event) []Event {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !codexWanted(line) {
		return dst
	}
	var l codexLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch l.Type {
	case "thread.started":
		if l.ThreadID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.ThreadID})
		}
	case "item.started":
		switch it := &l.Item; it.Type {
		case "command_execution":
			dst = append(dst, Event{Kind: EventToolCall, Tool: "bash", Args: oneLine(unwrapShell(it.Command))})
		case "mcp_tool_call":
			if it.Tool != "" {
				tool := it.Tool
				if it.Server != "" {
					tool = it.Server + "." + tool // as codex itself shows MCP calls
				}
				dst = append(dst, Event{Kind: EventToolCall, Tool: tool, Args: toolArgs(tool, it.Arguments)})
			}
		}
	case "item.completed":
		dst = appendCodexItem(dst, &l.Item)
	case "error":
		if msg := strings.TrimSpace(l.Message); msg != "" {
			dst = append(dst, Event{Kind: EventError, Text: msg})
		}
	case "turn.failed":
		msg := errorText(l.Error)
		if msg == "" {
			msg = "codex turn failed without a message"
		}
		dst = append(dst, Event{Kind: EventResult, Text: msg, IsError: true})
	case "turn.completed":
		if len(l.Usage) > 0 && l.Usage[0] == '{' {
			var u codexUsage
			_ = json.Unmarshal(l.Usage, &u) // a mistyped count stays zero
			dst = append(dst, Event{Kind: EventUsage, Usage: Usage{
				// OpenAI counts cached (and cache-written) tokens inside input_tokens.
				InputTokens:         max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteInputTokens),
				OutputTokens:        u.OutputTokens,
				CacheReadTokens:     u.CachedInputTokens,
				CacheCreationTokens: u.CacheWriteInputTokens,
			}})
		}
	}
	return dst
}

func appendCodexItem(dst []Event, it *codexItem) []Event {
	switch it.Type {
	case "agent_message":
		text := it.Text
		if text == "" {
			var parts []string
			for _, c := range it.Content {
				if c.Text != "" && (c.Type == "text" || c.Type == "output_text") {
					parts = append(parts, c.Text)
				}
			}
			text = strings.Join(parts, "\n")
		}
		if text != "" {
			dst = append(dst, Event{Kind: EventText, Text: text})
		}
	case "file_change":
		changes := make([]string, 0, len(it.Changes))
		for _, c := range it.Changes {
			changes = append(changes, strings.TrimSpace(c.Kind+" "+c.Path))
		}
		dst = append(dst, Event{Kind: EventToolCall, Tool: "file_change", Args: oneLine(strings.Join(changes, ", "))})
	case "web_search":
		dst = append(dst, Event{Kind: EventToolCall, Tool: "web_search", Args: oneLine(it.Query)})
	case "error":
		if msg := strings.TrimSpace(it.Message); msg != "" {
			dst = append(dst, Event{Kind: EventError, Text: msg})
		}
	}
	return dst
}

// codexWanted reports whether line may produce events, by its type and its item's type: a scan,
// not a decode. Most of a codex stream by volume is command output (item.completed
// command_execution, up to megabytes), which this skips without allocating.
func codexWanted(line []byte) bool {
	switch lineType(line) {
	case "thread.started", "turn.completed", "turn.failed", "error":
		return true
	case "item.started":
		item, _ := objectField(line, "item")
		t := stringField(item, "type")
		return t == "command_execution" || t == "mcp_tool_call"
	case "item.completed":
		item, _ := objectField(line, "item")
		switch stringField(item, "type") {
		case "agent_message", "file_change", "web_search", "error":
			return true
		}
	}
	return false
}

// errorText returns the message of a JSON error value: a string, or an object's "message"
// (or, failing that, its "data"."message"). It returns "" for anything else.
func errorText(raw []byte) string {
	if s, ok := jsonString(raw); ok {
		return strings.TrimSpace(s)
	}
	if v, ok := objectField(raw, "message"); ok {
		if s, ok := jsonString(v); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	if data, ok := objectField(raw, "data"); ok {
		return errorText(data)
	}
	return ""
}

// unwrapShell returns the script of `bash -lc '<script>'`, the wrapper codex runs every
// command in, when the script is one plainly quoted word; else cmd as it is, so the display never
// reads differently from what ran.
func unwrapShell(cmd string) string {
	for _, shell := range [...]string{"bash -lc ", "/bin/bash -lc ", "/usr/bin/bash -lc "} {
		if rest, ok := strings.CutPrefix(cmd, shell); ok {
			if script, ok := shellWord(rest); ok {
				return script
			}
			break
		}
	}
	return cmd
}

// shellWord unquotes s when it is a single shell word: in single quotes (a quote inside being
// written as close, escaped quote, reopen), or in double quotes holding nothing the shell would
// expand or unescape.
func shellWord(s string) (string, bool) {
	if len(s) < 2 || s[0] != s[len(s)-1] {
		return "", false
	}
	body := s[1 : len(s)-1]
	switch s[0] {
	case '\'':
		parts := strings.Split(body, `'\''`)
		for _, p := range parts {
			if strings.Contains(p, "'") {
				return "", false
			}
		}
		return strings.Join(parts, "'"), true
	case '"':
		if !strings.ContainsAny(body, "\"\\$`") {
			return body, true
		}
	}
	return "", false
}
