package agent

import "strings"

// copilot is GitHub's Copilot CLI (`copilot`, npm @github/copilot), run in prompt mode with its
// JSON Lines output. It has no permission modes: the run allows every tool, path and URL
// (--allow-all), since the sandbox is the boundary. Its sessions cannot be carried: copilot keeps
// a session as a directory (~/.copilot/session-state/<id>/, with checkpoints and file snapshots
// beside the event log) indexed by a SQLite store shared by all sessions, not as one file that
// could be carried out of one sandbox and into another.
func copilot() Provider {
	return Provider{cli: copilotCLI{}, Spec: Spec{
		Name:    "copilot",
		Label:   "GitHub Copilot CLI",
		Secret:  "COPILOT_GITHUB_TOKEN",
		Program: "copilot",
		// The model Sandcastle's own scaffolding defaults to.
		DefaultModel: "claude-sonnet-4.5",
		// The values of copilot's --reasoning-effort flag, weakest first. Which of them a model
		// offers depends on the model; copilot reports a level the model lacks and runs without
		// it.
		Efforts: []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"},
		// The token copilot logs in with, the settings of a custom model provider (BYOK), the
		// GitHub host of an enterprise account, and the proxy variables. GH_TOKEN and
		// GITHUB_TOKEN, which copilot would also read, are left out on purpose: in a workflow
		// they hold the job's token (or an issue tracker's), which cannot make Copilot requests,
		// must not reach the agent, and would be tried in place of a missing
		// COPILOT_GITHUB_TOKEN.
		EnvNames: []string{
			"COPILOT_GITHUB_TOKEN",
			"COPILOT_GH_HOST",
			"COPILOT_PROVIDER_BASE_URL",
			"COPILOT_PROVIDER_TYPE",
			"COPILOT_PROVIDER_API_KEY",
			"COPILOT_PROVIDER_BEARER_TOKEN",
			"COPILOT_PROVIDER_WIRE_API",
			"COPILOT_PROVIDER_MODEL_ID",
			"COPILOT_PROVIDER_WIRE_MODEL",
			"COPILOT_PROVIDER_AZURE_API_VERSION",
			"COPILOT_PROVIDER_HEADERS",
			"COPILOT_OFFLINE",
			"HTTPS_PROXY",
			"HTTP_PROXY",
			"NO_PROXY",
		},
		// A token with the Copilot Requests permission or, for a custom model provider, its
		// endpoint: with COPILOT_PROVIDER_BASE_URL set copilot needs no GitHub login (the
		// provider's own key, if it takes one, is COPILOT_PROVIDER_API_KEY).
		Credentials: []string{"COPILOT_GITHUB_TOKEN", "COPILOT_PROVIDER_BASE_URL"},
	}}
}

type copilotCLI struct{}

// command builds
//
//	copilot --output-format json --model MODEL --allow-all --no-ask-user [--reasoning-effort E]
//
// with the prompt on stdin: copilot runs in prompt mode when its input is not a terminal and
// reads the prompt from it. Keeping the prompt out of argv means no size limit, and nothing to
// misparse (as the value of -p, a prompt starting with '-' is rejected).
//
// --allow-all (tools, paths and URLs) rather than --allow-all-tools alone: a headless run has no
// one to approve a path outside the repository or a URL, and would fail those calls instead.
// --no-ask-user removes the tool with which the agent would ask a question nobody can answer.
// --reasoning-effort is the flag's own name (--effort, its alias, is newer). Auto-update is
// turned off (COPILOT_AUTO_UPDATE, which older versions simply ignore), so the run uses the
// version installed in the sandbox image rather than downloading another one first.
func (copilotCLI) command(r Request, model string) (Command, error) {
	argv := []string{"--output-format", "json", "--model", model, "--allow-all", "--no-ask-user"}
	if r.Effort != "" {
		argv = append(argv, "--reasoning-effort", r.Effort)
	}
	return Command{Argv: argv, Stdin: r.Prompt, Env: map[string]string{"COPILOT_AUTO_UPDATE": "false"}}, nil
}

// copilotLine holds the fields of one `copilot --output-format json` line that produce events.
// Session events are {"type","data":{…},"id","timestamp","parentId","agentId"?}; the terminal
// line is {"type":"result","sessionId","exitCode","usage",…} without a data wrapper.
type copilotLine struct {
	Type    string `json:"type"`
	AgentID string `json:"agentId"` // set on a subagent's events
	Data    struct {
		SessionID        string  `json:"sessionId"`        // session.start
		Content          string  `json:"content"`          // assistant.message
		OutputTokens     int64   `json:"outputTokens"`     // assistant.message (not read from assistant.usage)
		ParentToolCallID string  `json:"parentToolCallId"` // set on a subagent's messages
		ToolName         string  `json:"toolName"`         // tool.execution_start
		Arguments        rawJSON `json:"arguments"`
		Message          string  `json:"message"`   // session.error, session.warning, session.info
		ErrorType        string  `json:"errorType"` // session.error
		InfoType         string  `json:"infoType"`  // session.info
		InputTokens      int64   `json:"inputTokens"`
		CacheReadTokens  int64   `json:"cacheReadTokens"`
		CacheWriteTokens int64   `json:"cacheWriteTokens"`
	} `json:"data"`

	// result
	SessionID string  `json:"sessionId"`
	ExitCode  int     `json:"exitCode"`
	Outcome   string  `json:"outcome"`
	Blocker   rawJSON `json:"blocker"`
}

// parse maps one `copilot --output-format json` line to events:
//
//   - session.start and the terminal result: EventSession (1.0.102 writes the id only in
//     result);
//   - assistant.message: EventText with the whole message (deltas are left out, or the text
//     would count twice; so is a subagent's message, its report to the main agent), and
//     EventUsage with its output tokens;
//   - assistant.usage, when a version writes it: EventUsage with the call's input and cache
//     tokens (its output is already counted from assistant.message);
//   - tool.execution_start: EventToolCall for every tool, report_intent included;
//   - session.error, session.warning and the model_retry notice: EventError, since copilot
//     may retry or switch model and go on; a run that ends in the error exits non-zero, and
//     the error is the failure detail;
//   - result with a blocked outcome: EventResult with IsError.
//
// copilot marks no final answer (result carries no text), so no other EventResult is emitted:
// for a failed run the exit status already says so, and a result here would replace the
// session.error message as the failure detail. The prompt copilot echoes as user.message,
// reasoning and tool output yield nothing.
func (copilotCLI) parse(line []byte, dst []Event) []Event {
	switch lineType(line) {
	case "session.start", "assistant.message", "assistant.usage", "tool.execution_start",
		"session.error", "session.warning", "session.info", "result":
	default:
		return dst
	}
	var l copilotLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch d := &l.Data; l.Type {
	case "session.start":
		if d.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: d.SessionID})
		}
	case "assistant.message":
		subagent := l.AgentID != "" || d.ParentToolCallID != ""
		if strings.TrimSpace(d.Content) != "" && !subagent {
			dst = append(dst, Event{Kind: EventText, Text: d.Content})
		}
		if d.OutputTokens > 0 {
			dst = append(dst, Event{Kind: EventUsage, Usage: Usage{OutputTokens: d.OutputTokens}})
		}
	case "assistant.usage":
		// copilot counts cached tokens inside inputTokens.
		dst = append(dst, Event{Kind: EventUsage, Usage: Usage{
			InputTokens:         max(0, d.InputTokens-d.CacheReadTokens-d.CacheWriteTokens),
			CacheReadTokens:     d.CacheReadTokens,
			CacheCreationTokens: d.CacheWriteTokens,
		}})
	case "tool.execution_start":
		if d.ToolName != "" {
			dst = append(dst, Event{Kind: EventToolCall, Tool: d.ToolName, Args: toolArgs(d.ToolName, d.Arguments)})
		}
	case "session.error", "session.warning":
		msg := strings.TrimSpace(d.Message)
		if msg == "" {
			msg = "copilot " + strings.TrimPrefix(l.Type, "session.") + " without a message"
			if d.ErrorType != "" {
				msg += " (" + d.ErrorType + ")"
			}
		}
		dst = append(dst, Event{Kind: EventError, Text: msg})
	case "session.info":
		if msg := strings.TrimSpace(d.Message); d.InfoType == "model_retry" && msg != "" {
			dst = append(dst, Event{Kind: EventError, Text: msg})
		}
	case "result":
		if l.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.SessionID})
		}
		if l.ExitCode != 0 && l.Outcome == "blocked" {
			dst = append(dst, Event{Kind: EventResult, Text: copilotBlockedText(l.Blocker), IsError: true})
		}
	}
	return dst
}

// copilotBlockedText describes the blocker of a run that stopped because it needed someone's
// intervention: {"kind":…,"reason":…,"resumable":…,"permissionRecovery":…}.
func copilotBlockedText(blocker []byte) string {
	var parts []string
	for _, key := range [...]string{"kind", "reason"} {
		if s := strings.TrimSpace(stringField(blocker, key)); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "copilot stopped: the task is blocked"
	}
	return "copilot stopped: the task is blocked (" + strings.Join(parts, ": ") + ")"
}
