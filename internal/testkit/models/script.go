package models

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// sideRequest stands for the step index of a request that consumes no step.
const sideRequest = -1

// api is the part of a stand-in that speaks one wire protocol; the script does the rest.
type api interface {
	// name prefixes the stand-in's log lines and test failures.
	name() string
	// route answers one HTTP request, handing main requests (and side requests, which look
	// like them) to sc.main and unknown ones to sc.notFound.
	route(sc *script, w http.ResponseWriter, r *http.Request)
	// decode parses a request body. A request that offers no tools is a side request.
	decode(body []byte) (Request, error)
	// errorBody is the API's error JSON for status and a plain message.
	errorBody(status int, message string) []byte
	// answer writes the reply of a Text, Bash or TextThenHang step to a main request whose
	// step index is n, or to a side request (n is sideRequest).
	answer(sc *script, w http.ResponseWriter, r *http.Request, req Request, n int, step Step)
}

// script is what the stand-ins share: the HTTP server, the steps, the record of main requests
// and the cleanup that checks the script was used up.
type script struct {
	t     testing.TB
	api   api
	srv   *httptest.Server
	steps []Step
	done  chan struct{} // closed at cleanup so hanging handlers return and the server can close

	mu       sync.Mutex
	requests []Request
	changed  chan struct{} // closed and replaced each time requests grows
}

// startScript starts a server that speaks api and answers main requests with steps. It stops
// when the test ends; by then every step must have been used, unless the test already failed.
func startScript(t testing.TB, api api, steps []Step) *script {
	sc := &script{
		t:       t,
		api:     api,
		steps:   steps,
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	sc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { api.route(sc, w, r) }))
	t.Cleanup(sc.close)
	return sc
}

func (sc *script) close() {
	close(sc.done)
	sc.srv.Close()
	if sc.t.Failed() || sc.t.Skipped() { // a skipped test may stop before it asks anything
		return
	}
	if got := len(sc.recorded()); got < len(sc.steps) {
		sc.t.Errorf("%s: script not finished: %d main requests for %d steps", sc.api.name(), got, len(sc.steps))
	}
}

func (sc *script) recorded() []Request {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return append([]Request(nil), sc.requests...)
}

func (sc *script) waitRequests(ctx context.Context, n int) error {
	for {
		sc.mu.Lock()
		got, changed := len(sc.requests), sc.changed
		sc.mu.Unlock()
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

// main answers a request that may consume a step: it does if it offers tools.
func (sc *script) main(w http.ResponseWriter, r *http.Request) {
	name := sc.api.name()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		sc.t.Errorf("%s: read %s: %v", name, r.URL, err)
		return
	}
	req, err := sc.api.decode(body)
	if enc := r.Header.Get("Content-Encoding"); err != nil && enc != "" && enc != "identity" {
		// codex can compress request bodies (zstd) for OpenAI's own endpoints.
		err = fmt.Errorf("body is %s-encoded, the stand-in reads plain JSON: %w", enc, err)
	}
	if err != nil {
		sc.t.Errorf("%s: decode %s: %v", name, r.URL, err)
		writeJSON(w, http.StatusBadRequest, sc.api.errorBody(http.StatusBadRequest, "testkit: "+err.Error()))
		return
	}
	req.Body = body

	if len(req.Tools) == 0 {
		// Titles, topics and other helper calls: answer, but keep them out of the script.
		sc.t.Logf("%s: side request (model %s, no tools), answered %q", name, req.Model, "ok")
		sc.api.answer(sc, w, r, req, sideRequest, Text("ok"))
		return
	}

	n := sc.record(req)
	if n >= len(sc.steps) {
		sc.t.Errorf("%s: script exhausted: main request %d, script has %d steps", name, n+1, len(sc.steps))
		sc.api.answer(sc, w, r, req, n, Text("script exhausted"))
		return
	}
	step := sc.steps[n]
	sc.t.Logf("%s: main request %d: step %s", name, n+1, step.kind)
	switch step.kind {
	case stepError:
		writeJSON(w, step.status, sc.errorJSON(step.status, step.body))
	case stepHang:
		sc.hold(r)
	default:
		sc.api.answer(sc, w, r, req, n, step)
	}
}

// notFound logs a request no handler expects and answers it 404.
func (sc *script) notFound(w http.ResponseWriter, r *http.Request) {
	sc.t.Logf("%s: unhandled %s %s", sc.api.name(), r.Method, r.URL)
	writeJSON(w, http.StatusNotFound, sc.api.errorBody(http.StatusNotFound, "testkit: no handler for "+r.URL.Path))
}

// errorJSON is the body of an Error step: message itself when it already is a JSON object,
// else the API's error JSON around it.
func (sc *script) errorJSON(status int, message string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(message), &obj) == nil {
		return []byte(message)
	}
	return sc.api.errorBody(status, message)
}

// record appends req and returns its index, which is the index of the step that answers it.
func (sc *script) record(req Request) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.requests = append(sc.requests, req)
	close(sc.changed)
	sc.changed = make(chan struct{})
	return len(sc.requests) - 1
}

// hold keeps a response open until the client goes away or the test ends.
func (sc *script) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-sc.done:
	}
}

// replyID is the id of a scripted object: prefix_testkit_NN for step NN, prefix_testkit_side
// for a side request, so that ids are stable across runs.
func replyID(prefix string, n int) string {
	if n == sideRequest {
		return prefix + "_testkit_side"
	}
	return fmt.Sprintf("%s_testkit_%02d", prefix, n)
}

// sse writes server-sent events, flushing each so the CLI sees them at once; the first error
// sticks and later events are dropped.
type sse struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

// startSSE sends the headers of an event stream.
func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	return &sse{w: w, rc: http.NewResponseController(w)}
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
