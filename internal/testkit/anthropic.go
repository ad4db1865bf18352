package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"sync"
	"testing"
)

// Token counts every scripted reply reports, so a test can predict the usage in the CLI's result
// line: n main replies report n times these.
const (
	InputTokensPerReply         = 100
	OutputTokensPerReply        = 20
	CacheReadTokensPerReply     = 1000
	CacheCreationTokensPerReply = 10
)

// FakeAPIKey is the API key Env hands the CLI; the stand-in accepts any key.
const FakeAPIKey = "sk-ant-testkit-not-a-real-key"

// Anthropic is a scripted stand-in for the Anthropic Messages API on 127.0.0.1. Each main
// request (one that offers tools, i.e. a turn of the agent's conversation) is answered by the next
// Step of the script; everything else the CLI asks is answered without consuming a step.
type Anthropic struct {
	t     testing.TB
	srv   *httptest.Server
	steps []Step
	done  chan struct{} // closed at cleanup so hanging handlers return and the server can close

	mu       sync.Mutex
	requests []Request
	changed  chan struct{} // closed and replaced each time requests grows
}

// NewAnthropic starts the stand-in with its script. It stops when the test ends; by then every
// step must have been used, unless the test has already failed.
func NewAnthropic(t testing.TB, steps ...Step) *Anthropic {
	t.Helper()
	a := &Anthropic{
		t:       t,
		steps:   steps,
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.close)
	return a
}

// URL is the server's base URL, the value for ANTHROPIC_BASE_URL.
func (a *Anthropic) URL() string { return a.srv.URL }

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
func (a *Anthropic) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// WaitRequests blocks until at least n main requests have arrived (the nth may still be being
// answered, or hanging), or ctx ends.
func (a *Anthropic) WaitRequests(ctx context.Context, n int) error {
	for {
		a.mu.Lock()
		got, changed := len(a.requests), a.changed
		a.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d main requests (got %d): %w", n, got, ctx.Err())
		case <-changed:
		}
	}
}

func (a *Anthropic) close() {
	close(a.done)
	a.srv.Close()
	if a.t.Failed() {
		return
	}
	if got := len(a.Requests()); got < len(a.steps) {
		a.t.Errorf("anthropic: script not finished: %d main requests for %d steps", got, len(a.steps))
	}
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		a.messages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, []byte(fmt.Sprintf(`{"input_tokens":%d}`, InputTokensPerReply)))
	case r.URL.Path == "/api/hello":
		// The CLI's connectivity probe (HEAD), sent unless non-essential traffic is disabled.
		w.WriteHeader(http.StatusOK)
	default:
		a.t.Logf("anthropic: unhandled %s %s", r.Method, r.URL)
		writeJSON(w, http.StatusNotFound, errorBody(http.StatusNotFound, "testkit: no handler for "+r.URL.Path))
	}
}

func (a *Anthropic) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.t.Errorf("anthropic: read %s: %v", r.URL, err)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		a.t.Errorf("anthropic: decode %s: %v", r.URL, err)
		writeJSON(w, http.StatusBadRequest, errorBody(http.StatusBadRequest, "testkit: "+err.Error()))
		return
	}
	req.Body = body

	if len(req.Tools) == 0 {
		// Titles, topics and other helper calls: answer, but keep them out of the script.
		a.t.Logf("anthropic: side request (model %s, no tools), answered %q", req.Model, "ok")
		a.answer(w, r, req, "msg_testkit_side", reply{blocks: []block{{kind: "text", text: "ok"}}, stopReason: "end_turn"})
		return
	}

	n := a.record(req)
	if n >= len(a.steps) {
		a.t.Errorf("anthropic: script exhausted: main request %d, script has %d steps", n+1, len(a.steps))
		a.answer(w, r, req, fmt.Sprintf("msg_testkit_%02d", n), reply{blocks: []block{{kind: "text", text: "script exhausted"}}, stopReason: "end_turn"})
		return
	}
	step := a.steps[n]
	a.t.Logf("anthropic: main request %d: step %s", n+1, step.kind)
	switch step.kind {
	case stepError:
		writeJSON(w, step.status, errorBody(step.status, step.body))
	case stepHang:
		a.hold(r)
	default:
		rep, err := step.reply(n)
		if err != nil {
			a.t.Errorf("anthropic: %v", err)
			return
		}
		a.answer(w, r, req, fmt.Sprintf("msg_testkit_%02d", n), rep)
	}
}

// record appends req and returns its index, which is the index of the step that answers it.
func (a *Anthropic) record(req Request) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, req)
	close(a.changed)
	a.changed = make(chan struct{})
	return len(a.requests) - 1
}

// hold keeps a response open until the client goes away or the test ends.
func (a *Anthropic) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-a.done:
	}
}

// answer writes rep as an event stream or, when the request did not ask for streaming (the
// CLI's fallback after some errors), as one JSON message.
func (a *Anthropic) answer(w http.ResponseWriter, r *http.Request, req Request, id string, rep reply) {
	if !req.Stream {
		if rep.hang {
			a.hold(r)
			return
		}
		b, err := marshal(message(id, req.Model, rep, true))
		if err != nil {
			a.t.Errorf("anthropic: encode message: %v", err)
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	s := sse{w: w, rc: http.NewResponseController(w)}
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
		a.t.Logf("anthropic: stream %s: %v", id, s.err)
		return
	}
	if rep.hang {
		a.hold(r)
		return
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": rep.stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": OutputTokensPerReply}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
	if s.err != nil {
		a.t.Logf("anthropic: stream %s: %v", id, s.err)
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

// sse writes server-sent events, flushing each so the CLI sees them at once; the first error
// sticks and later events are dropped.
type sse struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

func (s *sse) event(name string, data any) {
	if s.err != nil {
		return
	}
	b, err := marshal(data)
	if err != nil {
		s.err = fmt.Errorf("encode %s event: %w", name, err)
		return
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		s.err = fmt.Errorf("write %s event: %w", name, err)
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.err = fmt.Errorf("flush %s event: %w", name, err)
	}
}

// marshal is json.Marshal without HTML escaping, so text reads as the API sends it
// ("<promise>", not "\u003cpromise\u003e").
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body) // the client may be gone; nothing to do about it
}
