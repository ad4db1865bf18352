package models

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path"
	"strconv"
	"strings"
	"testing"
)

// codexProviderName is the name of the model provider that CodexArgs and CodexConfig define.
const codexProviderName = "sandcastle_test"

// OpenAI is a scripted stand-in for the OpenAI Responses API on 127.0.0.1, for the Codex CLI
// and other clients of that API. Each main request (a POST to /v1/responses that offers tools,
// i.e. a turn of the agent's conversation) is answered by the next Step of the script; everything
// else is answered without consuming a step.
type OpenAI struct {
	sc *script
}

// NewOpenAI starts the stand-in with its script. It stops when the test ends; by then every step
// must have been used, unless the test has already failed or skipped.
//
// Replies are streamed as the API does: response.created, response.output_item.added, the item's
// deltas (response.content_part.added, response.output_text.delta and .done,
// response.content_part.done for text; response.function_call_arguments.delta and .done for a
// call), response.output_item.done, response.completed; or sent as one response object when the
// request did not ask to stream. codex needs only the last two, but SDK-based clients build the
// response from the others. Every response.completed reports the usage
//
//	input_tokens  = InputTokensPerReply + CacheReadTokensPerReply
//	input_tokens_details.cached_tokens = CacheReadTokensPerReply
//	output_tokens = OutputTokensPerReply, output_tokens_details.reasoning_tokens = 0
//
// since in this API input_tokens includes the cached part: a parser that subtracts cached_tokens
// gets InputTokensPerReply, as from the Anthropic stand-in. There is no cache write.
//
// A Bash step calls the shell tool the request offers: the function named exec_command (codex),
// else shell_command, shell or bash. Its arguments follow the tool's parameters: {"command": c}
// when they have a command ({"command": ["bash", "-lc", c]} when that is an array), else
// {"cmd": c}, as exec_command takes it. A request that offers none of these fails the test.
// codex's exec_command hands a command still running after its yield time (10 s by default)
// back as a live session that the model would have to poll: keep scripted commands short.
func NewOpenAI(t testing.TB, steps ...Step) *OpenAI {
	t.Helper()
	return &OpenAI{sc: startScript(t, openaiAPI{}, steps)}
}

// URL is the API's base URL, ending in /v1, as an OpenAI provider's base_url takes it.
func (o *OpenAI) URL() string { return o.sc.srv.URL + "/v1" }

// Requests returns the main requests received so far, in order.
func (o *OpenAI) Requests() []Request { return o.sc.recorded() }

// WaitRequests blocks until at least n main requests have arrived (the nth may still be being
// answered, or hanging), or ctx ends.
func (o *OpenAI) WaitRequests(ctx context.Context, n int) error { return o.sc.waitRequests(ctx, n) }

// Env returns the variables that point codex at its home and give it the key the provider of
// CodexArgs and CodexConfig names, for a CLI whose home directory is home (a POSIX path, which
// may be inside a container). codex refuses to start unless CODEX_HOME exists: create
// <home>/.codex before running it. Add these to a minimal environment: an OPENAI_API_KEY,
// CODEX_API_KEY or CODEX_HOME from a developer's shell would otherwise take part.
func (o *OpenAI) Env(home string) map[string]string {
	return map[string]string{
		"HOME": home,
		// Config, sessions (sessions/YYYY/MM/DD/rollout-*.jsonl) and sqlite state.
		"CODEX_HOME": path.Join(home, ".codex"),
		// The provider's env_key; codex sends it as a bearer token, which the stand-in ignores.
		"CODEX_API_KEY": FakeAPIKey,
	}
}

// CodexArgs returns the -c flags that make `codex exec` use the stand-in, as separate argv
// entries (no shell quoting):
//
//	-c model_provider="sandcastle_test"
//	-c model_providers.sandcastle_test={name="sandcastle_test",base_url="<URL>",env_key="CODEX_API_KEY",wire_api="responses",stream_max_retries=0,request_max_retries=0}
//
// The retries are off because a scripted server has no transient failures, and a retry would
// consume a step: every Error step then costs one request, and a stream that ends without
// response.completed fails the turn (codex prints an error event "stream disconnected before
// completion: ..." and turn.failed, and exits 1) instead of being reconnected five times,
// which would re-run the turn's tool calls.
func (o *OpenAI) CodexArgs() []string {
	return []string{
		"-c", "model_provider=" + strconv.Quote(codexProviderName),
		"-c", "model_providers." + codexProviderName + "={" + strings.Join(o.codexProvider("="), ",") + "}",
	}
}

// CodexConfig returns the settings of CodexArgs as a config.toml body, for a codex whose argv
// the test does not build: write it to $CODEX_HOME/config.toml.
func (o *OpenAI) CodexConfig() string {
	return "model_provider = " + strconv.Quote(codexProviderName) + "\n\n" +
		"[model_providers." + codexProviderName + "]\n" +
		strings.Join(o.codexProvider(" = "), "\n") + "\n"
}

// codexProvider is the provider table's key-value pairs joined by sep. The values are TOML:
// strconv.Quote gives valid TOML basic strings for these printable ASCII values.
func (o *OpenAI) codexProvider(sep string) []string {
	return []string{
		"name" + sep + strconv.Quote(codexProviderName),
		"base_url" + sep + strconv.Quote(o.URL()),
		"env_key" + sep + strconv.Quote("CODEX_API_KEY"),
		"wire_api" + sep + strconv.Quote("responses"),
		"stream_max_retries" + sep + "0",
		"request_max_retries" + sep + "0",
	}
}

// openaiAPI speaks the Responses API.
type openaiAPI struct{}

func (openaiAPI) name() string { return "openai" }

func (openaiAPI) route(sc *script, w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		sc.main(w, r)
	default:
		// Including codex's WebSocket upgrade (GET /v1/responses), which it tries first when
		// the provider supports WebSockets; on 404 it falls back to POST.
		sc.notFound(w, r)
	}
}

func (openaiAPI) decode(body []byte) (Request, error) { return decodeResponsesRequest(body) }

// errorBody is the API's error JSON: {"error":{"message":..., "type":..., "param":null, "code":...}}.
func (openaiAPI) errorBody(status int, message string) []byte {
	typ, code := openaiError(status)
	b, _ := marshal(map[string]any{"error": map[string]any{ // cannot fail: strings only
		"message": message, "type": typ, "param": nil, "code": code,
	}})
	return b
}

// openaiError is the API's error type and code for an HTTP status.
func openaiError(status int) (typ string, code any) {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case status == http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded"
	case status >= 500:
		return "server_error", nil
	default:
		return "invalid_request_error", nil
	}
}

// answer writes the step's one output item as an event stream or, when the request did not
// ask to stream, as one response object.
func (openaiAPI) answer(sc *script, w http.ResponseWriter, r *http.Request, req Request, n int, step Step) {
	item, err := responsesOutput(step, n, req.Body)
	if err != nil {
		sc.t.Errorf("openai: main request %d: %v", n+1, err)
		writeJSON(w, http.StatusBadRequest, sc.api.errorBody(http.StatusBadRequest, "testkit: "+err.Error()))
		return
	}
	hang := step.kind == stepTextThenHang
	id := replyID("resp", n)
	if !req.Stream {
		if hang {
			sc.hold(r)
			return
		}
		b, err := marshal(responseObject(id, req.Model, []any{item.json(true)}))
		if err != nil {
			sc.t.Errorf("openai: encode response: %v", err)
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	s := responsesStream{sse: startSSE(w)}
	s.event("response.created", map[string]any{"response": responseObject(id, req.Model, nil)})
	s.event("response.output_item.added", map[string]any{"output_index": 0, "item": item.json(false)})
	at := map[string]any{"item_id": item.id, "output_index": 0}
	if item.call {
		s.event("response.function_call_arguments.delta", with(at, "delta", item.arguments))
		s.event("response.function_call_arguments.done", with(at, "arguments", item.arguments))
	} else {
		at["content_index"] = 0
		s.event("response.content_part.added", with(at, "part", outputText("")))
		s.event("response.output_text.delta", with(at, "delta", item.text))
		s.event("response.output_text.done", with(at, "text", item.text))
		s.event("response.content_part.done", with(at, "part", outputText(item.text)))
	}
	s.event("response.output_item.done", map[string]any{"output_index": 0, "item": item.json(true)})
	if s.err != nil {
		sc.t.Logf("openai: stream %s: %v", id, s.err)
		return
	}
	if hang {
		sc.hold(r)
		return
	}
	s.event("response.completed", map[string]any{"response": responseObject(id, req.Model, []any{item.json(true)})})
	if s.err != nil {
		sc.t.Logf("openai: stream %s: %v", id, s.err)
	}
}

// responsesStream numbers the events of a response, as the API does.
type responsesStream struct {
	*sse
	seq int
}

// event sends fields as the data of an event of type typ, adding type and sequence_number.
func (s *responsesStream) event(typ string, fields map[string]any) {
	data := with(fields, "type", typ)
	data["sequence_number"] = s.seq
	s.sse.event(typ, data)
	s.seq++
}

// with returns a copy of m, which must not be nil, with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := maps.Clone(m)
	out[key] = v
	return out
}

// responseObject is the API's response object: in progress, as response.created carries it,
// when output is nil; else completed, with output and the usage.
func responseObject(id, model string, output []any) map[string]any {
	obj := map[string]any{
		"id": id, "object": "response", "created_at": 0, "model": model,
		"status": "in_progress", "output": []any{},
	}
	if output != nil {
		obj["status"] = "completed"
		obj["output"] = output
		obj["usage"] = map[string]any{
			"input_tokens":          InputTokensPerReply + CacheReadTokensPerReply,
			"input_tokens_details":  map[string]any{"cached_tokens": CacheReadTokensPerReply},
			"output_tokens":         OutputTokensPerReply,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          InputTokensPerReply + CacheReadTokensPerReply + OutputTokensPerReply,
		}
	}
	return obj
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

// outputItem is the one output item of a scripted reply: an assistant message or a function call.
type outputItem struct {
	id        string
	text      string // message
	call      bool
	name      string // function_call
	callID    string // function_call
	arguments string // function_call: JSON text
}

// json is the item as output_item.done carries it (done) or as output_item.added does.
func (it outputItem) json(done bool) map[string]any {
	status := "in_progress"
	if done {
		status = "completed"
	}
	if it.call {
		args := ""
		if done {
			args = it.arguments
		}
		return map[string]any{"type": "function_call", "id": it.id, "status": status,
			"name": it.name, "call_id": it.callID, "arguments": args}
	}
	content := []any{}
	if done {
		content = append(content, outputText(it.text))
	}
	return map[string]any{"type": "message", "id": it.id, "status": status, "role": "assistant", "content": content}
}

// responsesOutput builds the output item of a text or tool step; n numbers the step (from 0)
// for stable ids, body is the request, whose tools a Bash step calls.
func responsesOutput(s Step, n int, body []byte) (outputItem, error) {
	switch s.kind {
	case stepText, stepTextThenHang:
		return outputItem{id: replyID("msg", n), text: s.text}, nil
	case stepBash:
		name, args, err := shellCall(body, s.command)
		if err != nil {
			return outputItem{}, fmt.Errorf("bash step: %w", err)
		}
		return outputItem{id: replyID("fc", n), call: true, name: name, callID: replyID("call", n), arguments: args}, nil
	default:
		return outputItem{}, fmt.Errorf("step %d: %v has no reply body", n, s.kind)
	}
}

// shellCall picks the shell tool a request offers (see NewOpenAI) and returns its name and the
// arguments that run command.
func shellCall(body []byte, command string) (name, arguments string, err error) {
	var req struct {
		Tools []struct {
			Type       string `json:"type"`
			Name       string `json:"name"`
			Parameters struct {
				Properties map[string]struct {
					Type any `json:"type"` // a name or, in JSON Schema, a list of names
				} `json:"properties"`
			} `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", "", fmt.Errorf("decode tools: %w", err)
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	for _, want := range []string{"exec_command", "shell_command", "shell", "bash"} {
		for _, t := range req.Tools {
			if t.Type != "function" || t.Name != want {
				continue
			}
			var args any = map[string]any{"cmd": command}
			if p, ok := t.Parameters.Properties["command"]; ok {
				args = map[string]any{"command": command}
				if p.Type == "array" {
					args = map[string]any{"command": []string{"bash", "-lc", command}}
				}
			}
			b, err := marshal(args)
			return t.Name, string(b), err
		}
	}
	return "", "", fmt.Errorf("request offers no shell tool (exec_command, shell_command, shell or bash); tools: %q", names)
}
