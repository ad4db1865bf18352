package agent

import "strings"

// openCode is sst's OpenCode CLI (`opencode run`, npm opencode-ai), run with its JSON event
// output. It has no permission modes: opencode's permission prompts are skipped outright, since
// the sandbox is the boundary; finer rules live in its config file, not on the command line. Its
// sessions cannot be carried: opencode keeps them in a SQLite database
// (~/.local/share/opencode/opencode.db) shared by every session, not in a file that could be
// carried out of one sandbox and into another. It needs no credentials: OpenCode's own free
// models, the default among them, answer without a key (opencode then sends "public"); a paid
// model's key passes in through EnvNames when it is set.
func openCode() Provider {
	return Provider{cli: openCodeCLI{}, Spec: Spec{
		Name:    "opencode",
		Label:   "OpenCode",
		Secret:  "ANTHROPIC_API_KEY",
		Program: "opencode",
		// Each step-finish part has cost.
		ReportsCost: true,
		// The model Sandcastle's own scaffolding defaults to, one of OpenCode's free models.
		DefaultModel: "opencode/big-pickle",
		// The model variants opencode's --variant selects, weakest first. Which of them a model
		// has depends on its provider; opencode ignores a variant the model lacks.
		Efforts: []string{"minimal", "low", "medium", "high", "xhigh", "max"},
		// The API keys of the providers opencode reads from the environment (its provider list
		// gives each provider's variable), the endpoints its SDKs take from it, inline
		// configuration (OPENCODE_CONFIG_CONTENT, which can declare a custom provider), and the
		// proxy variables. Cloud credentials (AWS_*, Google application-default ones) are left
		// out on purpose: handing them to the agent must be the user's explicit choice (the env
		// input).
		EnvNames: []string{
			"OPENCODE_API_KEY",
			"ANTHROPIC_API_KEY",
			"OPENAI_API_KEY",
			"GOOGLE_GENERATIVE_AI_API_KEY",
			"OPENROUTER_API_KEY",
			"XAI_API_KEY",
			"GROQ_API_KEY",
			"DEEPSEEK_API_KEY",
			"MISTRAL_API_KEY",
			"ANTHROPIC_BASE_URL",
			"OPENAI_BASE_URL",
			"OPENCODE_CONFIG_CONTENT",
			"HTTPS_PROXY",
			"HTTP_PROXY",
			"NO_PROXY",
		},
	}}
}

type openCodeCLI struct{}

// command builds
//
//	opencode run --format json --model MODEL [--variant V] --dangerously-skip-permissions
//
// with the prompt on stdin, which `opencode run` reads when it is not a terminal. The prompt is
// kept out of argv on purpose: no size limit, nothing a prompt starting with '-' could turn into
// a flag, and opencode passes it to the model verbatim (a positional message containing a space
// is wrapped in double quotes by opencode 1.18). --dangerously-skip-permissions answers
// opencode's permission requests with "allow once" instead of rejecting them, as a headless run
// otherwise does (1.18 also calls the flag --auto).
func (openCodeCLI) command(r Request, model string) (Command, error) {
	argv := []string{"run", "--format", "json", "--model", model}
	if r.Effort != "" {
		argv = append(argv, "--variant", r.Effort)
	}
	argv = append(argv, "--dangerously-skip-permissions")
	return Command{Argv: argv, Stdin: r.Prompt}, nil
}

// opencodeLine holds the fields of one `opencode run --format json` line that produce events.
// Every line is {"type","timestamp","sessionID",…} with a "part" (or, for errors, "error").
type opencodeLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      struct {
		Type  string `json:"type"`
		Text  string `json:"text"` // text
		Tool  string `json:"tool"` // tool
		State struct {
			Status string  `json:"status"`
			Input  rawJSON `json:"input"`
		} `json:"state"`
		Tokens rawJSON `json:"tokens"` // step-finish
		Cost   any     `json:"cost"`
	} `json:"part"`
	Error rawJSON `json:"error"`
}

type opencodeTokens struct {
	Total     int64 `json:"total"`
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// parse maps one `opencode run --format json` line to events:
//
//   - step_start: EventSession (the same id starts every step);
//   - text: EventText with the whole text part (opencode marks no final answer, so no
//     EventResult);
//   - tool_use: EventToolCall for every tool, written once the call has finished or failed;
//   - step_finish: EventUsage for the step, with cost;
//   - error: EventSession when it carries one (an error can come before any step), then
//     EventResult with IsError: opencode exits non-zero after reporting it.
//
// Reasoning parts (written only with --thinking) and anything else yield nothing. opencode
// writes only the parts of the session it runs, so a subagent's text never appears.
func (openCodeCLI) parse(line []byte, dst []Event) []Event {
	switch lineType(line) {
	case "step_start", "text", "tool_use", "step_finish", "error":
	default:
		return dst
	}
	var l opencodeLine
	if !decodeLine(line, &l) {
		return dst
	}
	switch p := &l.Part; l.Type {
	case "step_start":
		if l.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.SessionID})
		}
	case "text":
		if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
			dst = append(dst, Event{Kind: EventText, Text: p.Text})
		}
	case "tool_use":
		if p.Type == "tool" && p.Tool != "" && (p.State.Status == "completed" || p.State.Status == "error") {
			dst = append(dst, Event{Kind: EventToolCall, Tool: p.Tool, Args: toolArgs(p.Tool, p.State.Input)})
		}
	case "step_finish":
		var t opencodeTokens
		if decodeObject(p.Tokens, &t) {
			cost, _ := p.Cost.(float64)
			dst = append(dst, Event{Kind: EventUsage, Usage: opencodeUsage(&t, cost)})
		}
	case "error":
		if l.SessionID != "" {
			dst = append(dst, Event{Kind: EventSession, SessionID: l.SessionID})
		}
		dst = append(dst, Event{Kind: EventResult, Text: opencodeErrorText(l.Error), IsError: true})
	}
	return dst
}

// opencodeUsage maps a step's token counts. opencode already takes cached tokens out of input.
// Reasoning is output the model was billed for: current versions count it apart from output
// (total = input + output + reasoning + cache), while older ones counted it inside output
// (total = input + output + cache, as in the captured sample), which the total tells apart.
func opencodeUsage(t *opencodeTokens, cost float64) Usage {
	out := t.Output + t.Reasoning
	if t.Reasoning > 0 && t.Total == t.Input+t.Output+t.Cache.Read+t.Cache.Write {
		out = t.Output
	}
	return Usage{
		InputTokens:         t.Input,
		OutputTokens:        out,
		CacheReadTokens:     t.Cache.Read,
		CacheCreationTokens: t.Cache.Write,
		CostUSD:             cost,
	}
}

// opencodeErrorText describes an error line's error: {"name":"APIError","data":{"message":…}}
// in practice, so data.message first, then message, then the bare name.
func opencodeErrorText(raw []byte) string {
	if msg := errorText(raw); msg != "" {
		return msg
	}
	if name := strings.TrimSpace(stringField(raw, "name")); name != "" {
		return "opencode " + name
	}
	return "opencode error without a message"
}
