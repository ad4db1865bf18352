package models

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
	"testing"
)

// Token counts every scripted reply reports, so a test can predict the usage the CLI prints: n
// main replies report n times these. The OpenAI stand-in reports the same amounts in that API's
// terms (see NewOpenAI).
const (
	InputTokensPerReply         = 100
	OutputTokensPerReply        = 20
	CacheReadTokensPerReply     = 1000
	CacheCreationTokensPerReply = 10
)

// FakeAPIKey is the API key Env hands the CLI, for either stand-in; neither checks it. It is long
// and unique because some CLIs redact their key's value from everything they print.
const FakeAPIKey = "sk-ant-testkit-not-a-real-key"

// Anthropic is a scripted stand-in for the Anthropic Messages API on 127.0.0.1. Each main
// request (one that offers tools, i.e. a turn of the agent's conversation) is answered by the
// next Step of the script; everything else the CLI asks is answered without consuming a step.
type Anthropic struct {
	sc *script
}

// NewAnthropic starts the stand-in with its script. It stops when the test ends; by then every
// step must have been used, unless the test has already failed or skipped.
func NewAnthropic(t testing.TB, steps ...Step) *Anthropic {
	t.Helper()
	return &Anthropic{sc: startScript(t, anthropicAPI{}, steps)}
}

// URL is the server's base URL, the value for ANTHROPIC_BASE_URL.
func (a *Anthropic) URL() string { return a.sc.srv.URL }

// Env returns the variables that point claude at the stand-in and keep it hermetic and quiet
// offline, for a CLI whose home directory is home (a POSIX path, which may be inside a
// container). Add them to a minimal environment (PATH and little else): credentials or
// CLAUDE_CONFIG_DIR inherited from a developer's shell would otherwise take part.
func (a *Anthropic) Env(home string) map[string]string {
	return map[string]string{
		"HOME": home,
		// claude keeps per-run state and its messaging socket under $TMPDIR (default /tmp,
		// shared by every run of the same user); it creates the directory when missing.
		"TMPDIR":             path.Join(home, "tmp"),
		"ANTHROPIC_API_KEY":  FakeAPIKey,
		"ANTHROPIC_BASE_URL": a.URL(),
		// Stops the connectivity probe (HEAD /api/hello), telemetry to api.anthropic.com,
		// error reporting and update checks.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		// Without it 401, 408, 429 and 5xx are retried ten times with backoff (minutes), each
		// retry consuming a step; a scripted server has no transient failures to ride out.
		"CLAUDE_CODE_MAX_RETRIES": "0",
		// claude refuses --dangerously-skip-permissions as root unless it is told it is sandboxed.
		"IS_SANDBOX": "1",
	}
}

// Requests returns the main requests received so far, in order.
func (a *Anthropic) Requests() []Request { return a.sc.recorded() }

// WaitRequests blocks until at least n main requests have arrived (the nth may still be being
// answered, or hanging), or ctx ends.
func (a *Anthropic) WaitRequests(ctx context.Context, n int) error { return a.sc.waitRequests(ctx, n) }

// anthropicAPI speaks the Messages API.
type anthropicAPI struct{}

func (anthropicAPI) name() string { return "anthropic" }

func (anthropicAPI) route(sc *script, w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		sc.main(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, []byte(fmt.Sprintf(`{"input_tokens":%d}`, InputTokensPerReply)))
	case r.URL.Path == "/api/hello":
		// The CLI's connectivity probe (HEAD), sent unless non-essential traffic is disabled.
		w.WriteHeader(http.StatusOK)
	default:
		sc.notFound(w, r)
	}
}

func (anthropicAPI) decode(body []byte) (Request, error) {
	var req Request
	err := json.Unmarshal(body, &req)
	return req, err
}

// errorBody is the API's error JSON: {"type":"error","error":{"type":..., "message":...}}.
func (anthropicAPI) errorBody(status int, message string) []byte {
	type apiError struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	b, _ := marshal(struct { // cannot fail: strings only
		Type  string   `json:"type"`
		Error apiError `json:"error"`
	}{"error", apiError{anthropicErrorType(status), message}})
	return b
}

// answer writes the step's reply as an event stream or, when the request did not ask for
// streaming (the CLI's fallback after some errors), as one JSON message.
func (anthropicAPI) answer(sc *script, w http.ResponseWriter, r *http.Request, req Request, n int, step Step) {
	rep, err := anthropicReply(step, n, req.Tools)
	if err != nil {
		sc.t.Errorf("anthropic: %v", err)
		return
	}
	id := replyID("msg", n)
	if !req.Stream {
		if rep.hang {
			sc.hold(r)
			return
		}
		b, err := marshal(message(id, req.Model, rep, true))
		if err != nil {
			sc.t.Errorf("anthropic: encode message: %v", err)
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	s := startSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": message(id, req.Model, reply{}, false)})
	s.event("ping", map[string]any{"type": "ping"})
	for i, b := range rep.blocks {
		switch b.kind {
		case "text":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.text}})
		case "tool_use":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.input)}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	if s.err != nil {
		sc.t.Logf("anthropic: stream %s: %v", id, s.err)
		return
	}
	if rep.hang {
		sc.hold(r)
		return
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": rep.stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": OutputTokensPerReply}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	if s.err != nil {
		sc.t.Logf("anthropic: stream %s: %v", id, s.err)
	}
}

// message is the API's message object: complete (non-streaming reply) or as message_start
// carries it, empty, with no stop reason and the input side of the usage.
func message(id, model string, rep reply, complete bool) map[string]any {
	content := []any{}
	var stopReason any
	outputTokens := 1 // what the API reports before any output
	if complete {
		for _, b := range rep.blocks {
			switch b.kind {
			case "text":
				content = append(content, map[string]any{"type": "text", "text": b.text})
			case "tool_use":
				content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
			}
		}
		stopReason = rep.stopReason
		outputTokens = OutputTokensPerReply
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                InputTokensPerReply,
			"cache_creation_input_tokens": CacheCreationTokensPerReply,
			"cache_read_input_tokens":     CacheReadTokensPerReply,
			"output_tokens":               outputTokens,
		},
	}
}

// block is one content block of a scripted reply.
type block struct {
	kind  string // "text" or "tool_use"
	text  string
	id    string
	name  string
	input json.RawMessage
}

// reply is what a step answers, ready to be written as a stream or as one JSON message.
type reply struct {
	blocks     []block
	stopReason string
	hang       bool // after the blocks, hold the response open instead of finishing it
}

// anthropicReply builds the answer of a text or tool step; n numbers the step (from 0) for
// stable ids. A Bash step calls the shell tool the request offers, whatever its spelling (Bash
// for claude; bash for pi, opencode and copilot, which take the same command field).
func anthropicReply(s Step, n int, tools []Tool) (reply, error) {
	switch s.kind {
	case stepText:
		return reply{blocks: []block{{kind: "text", text: s.text}}, stopReason: "end_turn"}, nil
	case stepTextThenHang:
		return reply{blocks: []block{{kind: "text", text: s.text}}, hang: true}, nil
	case stepBash:
		input, err := json.Marshal(bashInput{Command: s.command, Description: "Run scripted step " + fmt.Sprint(n)})
		if err != nil {
			return reply{}, fmt.Errorf("encode bash input: %w", err)
		}
		id := replyID("toolu", n)
		return reply{blocks: []block{{kind: "tool_use", id: id, name: shellToolName(tools), input: input}}, stopReason: "tool_use"}, nil
	default:
		return reply{}, fmt.Errorf("step %d: %v has no reply body", n, s.kind)
	}
}

// shellToolName is the name of the offered tool called bash in any case, else Bash.
func shellToolName(tools []Tool) string {
	for _, t := range tools {
		if strings.EqualFold(t.Name, "bash") {
			return t.Name
		}
	}
	return "Bash"
}

type bashInput struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// anthropicErrorType is the API's error type for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}
