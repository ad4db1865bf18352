package githubapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const permissionPath = "/repos/o/r/collaborators/alice/permission"

// answer is one canned response of a scripted endpoint.
type answer struct {
	status  int
	headers map[string]string
	body    string
}

var okPermission = answer{status: http.StatusOK, body: `{"permission":"write"}`}

// script serves answers in order, repeating the last one.
func script(t *testing.T, answers ...answer) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1))-1, len(answers)-1)
		a := answers[i]
		for k, v := range a.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		if _, err := io.WriteString(w, a.body); err != nil {
			t.Errorf("write response: %v", err)
		}
	}
}

func resetIn(d time.Duration) string { return strconv.FormatInt(testNow().Add(d).Unix(), 10) }

func TestRetry_waits_then_succeeds(t *testing.T) {
	tests := []struct {
		name      string
		answers   []answer
		wantWaits []time.Duration
	}{
		{
			name:      "too_many_requests_with_retry_after",
			answers:   []answer{{status: 429, headers: map[string]string{"Retry-After": "7"}}, okPermission},
			wantWaits: []time.Duration{7 * time.Second},
		},
		{
			name: "primary_limit_403_until_reset",
			answers: []answer{{status: 403, body: `{"message":"API rate limit exceeded"}`,
				headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(30 * time.Second)}}, okPermission},
			wantWaits: []time.Duration{31 * time.Second},
		},
		{
			name:      "secondary_limit_403_with_retry_after",
			answers:   []answer{{status: 403, headers: map[string]string{"Retry-After": "20"}, body: `{"message":"You have exceeded a secondary rate limit."}`}, okPermission},
			wantWaits: []time.Duration{20 * time.Second},
		},
		{
			name: "secondary_limit_403_without_headers_waits_a_minute",
			answers: []answer{{status: 403, body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",` +
				`"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}, okPermission},
			wantWaits: []time.Duration{time.Minute},
		},
		{
			name:      "too_many_requests_without_hint_waits_a_minute",
			answers:   []answer{{status: 429}, {status: 429}, okPermission},
			wantWaits: []time.Duration{time.Minute, time.Minute},
		},
		{
			name:      "bad_gateway_then_unavailable",
			answers:   []answer{{status: 502}, {status: 503}, okPermission},
			wantWaits: []time.Duration{time.Second, 2 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, rec := setup(t)
			mux.HandleFunc(permissionPath, script(t, tt.answers...))
			got, err := client.Permission(t.Context(), "o", "r", "alice")
			if err != nil {
				t.Fatalf("Permission: %v", err)
			}
			if want := "write"; got != want {
				t.Errorf("Permission = %q, want %q", got, want)
			}
			if got, want := rec.slept(), tt.wantWaits; !slices.Equal(got, want) {
				t.Errorf("waits = %v, want %v", got, want)
			}
			if got, want := rec.count("GET "+permissionPath), len(tt.wantWaits)+1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}

func TestRetry_gives_up_with_a_clear_error(t *testing.T) {
	tests := []struct {
		name      string
		answer    answer
		wantErr   string
		wantWaits []time.Duration
	}{
		{
			name:   "after_max_retries",
			answer: answer{status: 429, headers: map[string]string{"Retry-After": "5"}},
			wantErr: "githubapi: get permission of alice in o/r: GitHub API rate limit exceeded for GET /api/v3" + permissionPath +
				"; retried 2 times; resets at 2024-05-01T12:00:05Z",
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second},
		},
		{
			name: "reset_beyond_max_wait_fails_at_once",
			answer: answer{status: 403, body: `{"message":"API rate limit exceeded"}`,
				headers: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetIn(time.Hour)}},
			wantErr: "githubapi: get permission of alice in o/r: GitHub API rate limit exceeded for GET /api/v3" + permissionPath +
				"; retried 0 times; resets at 2024-05-01T13:00:00Z",
		},
		{
			name:      "unavailable_after_max_retries",
			answer:    answer{status: 503},
			wantErr:   "githubapi: get permission of alice in o/r: GitHub API unavailable for GET /api/v3" + permissionPath + ": 503 Service Unavailable; retried 2 times",
			wantWaits: []time.Duration{time.Second, 2 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, rec := setupWith(t, Options{MaxRetries: 2})
			mux.HandleFunc(permissionPath, script(t, tt.answer))
			_, err := client.Permission(t.Context(), "o", "r", "alice")
			if err == nil {
				t.Fatal("Permission succeeded, want an error")
			}
			if got := err.Error(); got != tt.wantErr {
				t.Errorf("error = %q\nwant    %q", got, tt.wantErr)
			}
			var retry *RetryError
			if !errors.As(err, &retry) {
				t.Errorf("error %v does not wrap *RetryError", err)
			}
			if got, want := asError(t, err).Status, tt.answer.status; got != want {
				t.Errorf("Status = %d, want %d", got, want)
			}
			if got, want := rec.slept(), tt.wantWaits; !slices.Equal(got, want) {
				t.Errorf("waits = %v, want %v", got, want)
			}
			if got, want := rec.count("GET "+permissionPath), len(tt.wantWaits)+1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}

func TestRetry_never_for_client_errors(t *testing.T) {
	for _, status := range []int{401, 403, 404, 422, 500} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			client, mux, rec := setup(t)
			mux.HandleFunc("/repos/o/r/issues/5/labels", script(t, answer{status: status, body: `{"message":"no"}`}))
			err := client.AddLabels(t.Context(), "o", "r", 5, "agent:in-progress")
			if err == nil {
				t.Fatal("AddLabels succeeded, want an error")
			}
			if got, want := asError(t, err).Status, status; got != want {
				t.Errorf("Status = %d, want %d", got, want)
			}
			if got, want := rec.count("POST /repos/o/r/issues/5/labels"), 1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
			if got := rec.slept(); len(got) != 0 {
				t.Errorf("waits = %v, want none", got)
			}
		})
	}
}

func TestRetry_post_resends_body_on_rate_limit_but_not_on_gateway_error(t *testing.T) {
	t.Run("rate_limit", func(t *testing.T) {
		client, mux, rec := setup(t)
		mux.HandleFunc("/repos/o/r/issues/5/labels", script(t,
			answer{status: 429, headers: map[string]string{"Retry-After": "1"}},
			answer{status: 200, body: `[{"name":"a"},{"name":"b"}]`}))
		if err := client.AddLabels(t.Context(), "o", "r", 5, "a", "b"); err != nil {
			t.Fatalf("AddLabels: %v", err)
		}
		const key = "POST /repos/o/r/issues/5/labels"
		if got, want := rec.count(key), 2; got != want {
			t.Fatalf("requests = %d, want %d", got, want)
		}
		if first, second := rec.body(key, 0), rec.body(key, 1); first != second || !strings.Contains(second, `["a","b"]`) {
			t.Errorf("bodies = %q then %q, want the same labels twice", first, second)
		}
	})
	t.Run("gateway_error", func(t *testing.T) {
		// The first POST may have taken effect behind the gateway.
		client, mux, rec := setup(t)
		mux.HandleFunc("/repos/o/r/issues/5/comments", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "GET" {
				writeJSON(t, w, http.StatusOK, []any{})
				return
			}
			w.WriteHeader(http.StatusBadGateway)
		})
		_, _, err := client.UpsertComment(t.Context(), "o", "r", 5, "m", "hello")
		if got, want := fmt.Sprint(err), "githubapi: create comment on o/r#5: 502 Bad Gateway"; got != want {
			t.Errorf("error = %q, want %q", got, want)
		}
		if got, want := rec.count("POST /repos/o/r/issues/5/comments"), 1; got != want {
			t.Errorf("POSTs = %d, want %d", got, want)
		}
	})
}

func TestRetry_stops_when_sleep_is_cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client, mux, rec := setupWith(t, Options{Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel() // the job was cancelled while waiting
		return ctx.Err()
	}})
	mux.HandleFunc(permissionPath, script(t, answer{status: 429, headers: map[string]string{"Retry-After": "30"}}))
	_, err := client.Permission(ctx, "o", "r", "alice")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if got, want := rec.count("GET "+permissionPath), 1; got != want {
		t.Errorf("requests = %d, want %d", got, want)
	}
}

func TestRetry_spent_limit_from_earlier_answer_is_a_clear_error(t *testing.T) {
	// go-github remembers a successful answer that spent the last request and refuses the
	// next one itself, without a request; that refusal must read like ours.
	client, mux, rec := setup(t)
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	mux.HandleFunc(permissionPath, script(t, answer{status: 200, body: `{"permission":"write"}`, headers: map[string]string{
		"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset.Unix(), 10),
	}}))
	if _, err := client.Permission(t.Context(), "o", "r", "alice"); err != nil {
		t.Fatalf("first Permission: %v", err)
	}
	_, err := client.Permission(t.Context(), "o", "r", "alice")
	want := "githubapi: get permission of alice in o/r: GitHub API rate limit exceeded for GET /api/v3" + permissionPath +
		"; retried 0 times; resets at " + reset.UTC().Format(time.RFC3339)
	if got := fmt.Sprint(err); got != want {
		t.Errorf("error = %q\nwant    %q", got, want)
	}
	if got, want := rec.count("GET "+permissionPath), 1; got != want {
		t.Errorf("requests = %d, want %d", got, want)
	}
}

// TestRetry_never_waits_past_the_deadline: a wait GitHub asks for that would outlast the
// request's context is not started; the error comes at once, saying when to come back, and is
// known as a rate limit.
func TestRetry_never_waits_past_the_deadline(t *testing.T) {
	client, mux, rec := setup(t)
	mux.HandleFunc(permissionPath, script(t, answer{status: 403, headers: map[string]string{"Retry-After": "60"},
		body: `{"message":"You have exceeded a secondary rate limit."}`}))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := client.Permission(ctx, "o", "r", "alice")
	reset, limited := RateLimited(err)
	if err == nil || !limited || !reset.Equal(testNow().Add(time.Minute)) || !strings.Contains(err.Error(), "retried 0 times") {
		t.Errorf("err = %v (rate limited %v until %v); want a rate limit until a minute from now, without waiting", err, limited, reset)
	}
	if got := rec.slept(); len(got) != 0 {
		t.Errorf("waited %v past the deadline", got)
	}
}
