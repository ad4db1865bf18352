package githubapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// apiPrefix is where GitHub Enterprise Server serves its REST API; the fake serves only
// there, so every test also proves the GHES base URL.
const apiPrefix = "/api/v3"

// testToken must reach the fake as a bearer token and never appear in an error.
const testToken = "ghs_TESTtoken0123456789abcdef"

// testNow is the injected clock; rate-limit resets are set relative to it.
func testNow() time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC) }

// recorder counts the requests the fake receives, keeps their bodies and the waits the
// client asked for.
type recorder struct {
	mu     sync.Mutex
	calls  map[string]int      // "METHOD /path" below the prefix
	bodies map[string][]string // same key, in arrival order
	waits  []time.Duration
}

func (rec *recorder) count(key string) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.calls[key]
}

func (rec *recorder) total() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, c := range rec.calls {
		n += c
	}
	return n
}

func (rec *recorder) body(key string, i int) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if i >= len(rec.bodies[key]) {
		return ""
	}
	return rec.bodies[key][i]
}

func (rec *recorder) slept() []time.Duration {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.waits)
}

// handler records each request, checks its Authorization header and hands it to next.
func (rec *recorder) handler(t *testing.T, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got, want := r.Header.Get("Authorization"), "Bearer "+testToken; got != want {
			t.Errorf("%s %s: Authorization = %q, want %q", r.Method, r.URL.Path, got, want)
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		key := r.Method + " " + r.URL.Path
		rec.mu.Lock()
		rec.calls[key]++
		rec.bodies[key] = append(rec.bodies[key], string(body))
		rec.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// setup starts a fake GitHub API under apiPrefix, in go-github's own test style, and a
// Client pointed at it. Register handlers on mux with paths below the prefix.
func setup(t *testing.T) (client *Client, mux *http.ServeMux, rec *recorder) {
	t.Helper()
	return setupWith(t, Options{})
}

// setupWith is setup with options; empty fields get test defaults (token, the fake's URL,
// a recording Sleep, the fixed clock).
func setupWith(t *testing.T, o Options) (client *Client, mux *http.ServeMux, rec *recorder) {
	t.Helper()
	rec = &recorder{calls: map[string]int{}, bodies: map[string][]string{}}
	mux = http.NewServeMux()
	// Without a catch-all, a request to a path no test registered gets the mux's plain 404,
	// which the client reads as "not there" and some methods accept as success.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("no handler for %s %s", r.Method, r.URL.Path)
		http.Error(w, "no handler", http.StatusNotImplemented)
	})
	api := http.NewServeMux()
	api.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, rec.handler(t, mux)))
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside %s: %s %s", apiPrefix, r.Method, r.URL.Path)
		http.Error(w, "outside the API prefix", http.StatusBadRequest)
	})
	server := httptest.NewServer(api)
	t.Cleanup(server.Close)

	if o.Token == "" {
		o.Token = testToken
	}
	if o.APIURL == "" {
		o.APIURL = server.URL + apiPrefix
	}
	if o.Sleep == nil {
		o.Sleep = func(_ context.Context, d time.Duration) error {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.waits = append(rec.waits, d)
			return nil
		}
	}
	if o.Now == nil {
		o.Now = testNow
	}
	client, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return client, mux, rec
}

func testMethod(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if got := r.Method; got != want {
		t.Errorf("request method = %s, want %s", got, want)
	}
}

func testFormValues(t *testing.T, r *http.Request, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := r.URL.Query().Get(k); got != v {
			t.Errorf("query %s = %q, want %q", k, got, v)
		}
	}
}

// decodeBody decodes the JSON request body into v.
func decodeBody(t *testing.T, r *http.Request, v any) {
	t.Helper()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		t.Errorf("decode %s %s body: %v", r.Method, r.URL.Path, err)
	}
}

func writeJSON(t *testing.T, w http.ResponseWriter, status int, v any) {
	t.Helper()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		t.Errorf("encode response: %v", err)
	}
}

// paginate serves items[page] of a listing and a Link header to the next page, as GitHub
// does; pages are numbered from 1.
func paginate[T any](t *testing.T, w http.ResponseWriter, r *http.Request, items []T, pageSize int) {
	t.Helper()
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		fmt.Sscan(p, &page)
	}
	start := min((page-1)*pageSize, len(items))
	end := min(start+pageSize, len(items))
	if end < len(items) {
		next := url.URL{Scheme: "http", Host: r.Host, Path: apiPrefix + r.URL.Path, RawQuery: fmt.Sprintf("page=%d", page+1)}
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
	}
	writeJSON(t, w, http.StatusOK, items[start:end])
}

// asError returns err as *Error, failing the test when it is not one.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v, want *githubapi.Error", err, err)
	}
	return e
}
