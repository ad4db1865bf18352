package githubapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNew_api_url_selects_host_and_prefix(t *testing.T) {
	tests := []struct {
		name, apiURL, want string
	}{
		{"empty_is_github_com", "", "https://api.github.com/repos/o/r/collaborators/alice/permission"},
		{"public_with_slash", "https://api.github.com/", "https://api.github.com/repos/o/r/collaborators/alice/permission"},
		{"ghes", "https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/repos/o/r/collaborators/alice/permission"},
		{"ghes_slash", "https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/repos/o/r/collaborators/alice/permission"},
		{"ghes_host_only", "https://ghe.example.com", "https://ghe.example.com/api/v3/repos/o/r/collaborators/alice/permission"},
		{"ghe_com_data_residency", "https://api.acme.ghe.com", "https://api.acme.ghe.com/repos/o/r/collaborators/alice/permission"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, auth string
			probe := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				got, auth = r.URL.String(), r.Header.Get("Authorization")
				return &http.Response{
					StatusCode: http.StatusOK,
					Header:     http.Header{"Content-Type": {"application/json"}},
					Body:       io.NopCloser(strings.NewReader(`{"permission":"write"}`)),
					Request:    r,
				}, nil
			})
			given := &http.Client{Transport: probe}
			c, err := New(Options{Token: testToken, APIURL: tt.apiURL, HTTPClient: given})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if _, err := c.Permission(t.Context(), "o", "r", "alice"); err != nil {
				t.Fatalf("Permission: %v", err)
			}
			if got != tt.want {
				t.Errorf("request URL = %q, want %q", got, tt.want)
			}
			if got, want := auth, "Bearer "+testToken; got != want {
				t.Errorf("Authorization = %q, want %q", got, want)
			}
			if _, ok := given.Transport.(roundTripFunc); !ok {
				t.Errorf("New modified the caller's http.Client: Transport is %T", given.Transport)
			}
		})
	}
}

func TestNew_rejects_bad_api_url(t *testing.T) {
	tests := []struct {
		name, apiURL string
	}{
		{"no_scheme", "ghe.example.com/api/v3"},
		{"other_scheme", "ftp://ghe.example.com/api/v3"},
		{"credentials", "https://x-access-token:s3cr3t@ghe.example.com/api/v3"},
		{"unparsable_with_credentials", "https://x:s3cr3t@ghe example.com/api/v3"},
		{"query", "https://ghe.example.com/api/v3?x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{Token: testToken, APIURL: tt.apiURL})
			if err == nil {
				t.Fatalf("New(%q) succeeded, want an error", tt.apiURL)
			}
			if !strings.Contains(err.Error(), "GITHUB_API_URL") {
				t.Errorf("error %q does not name GITHUB_API_URL", err)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q leaks the credentials in the URL", err)
			}
		})
	}
}

func TestNew_requires_token(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("New without a token: error = %v, want one about the token", err)
	}
}

func TestToken_never_in_errors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
	}{
		{"bad_credentials", http.StatusUnauthorized, nil, `{"message":"Bad credentials"}`},
		{"forbidden", http.StatusForbidden, nil, `{"message":"Resource not accessible by integration"}`},
		{"validation", http.StatusUnprocessableEntity, nil, `{"message":"Validation Failed","errors":[{"message":"bad"}]}`},
		{"rate_limited", http.StatusTooManyRequests, map[string]string{"Retry-After": "1"}, `{}`},
		{"unavailable", http.StatusServiceUnavailable, nil, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, _ := setupWith(t, Options{MaxRetries: 1})
			mux.HandleFunc("/repos/o/r/issues/5/comments", func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, _, err := client.UpsertComment(t.Context(), "o", "r", 5, "m", "hello")
			if err == nil {
				t.Fatal("UpsertComment succeeded, want an error")
			}
			for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				if strings.Contains(text, testToken) {
					t.Errorf("error leaks the token: %s", text)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		server := httptest.NewServer(http.NotFoundHandler())
		server.Close()
		client, err := New(Options{Token: testToken, APIURL: server.URL + apiPrefix, MaxRetries: -1})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		_, err = client.Permission(t.Context(), "o", "r", "alice")
		if err == nil {
			t.Fatal("Permission against a closed server succeeded")
		}
		if strings.Contains(err.Error(), testToken) {
			t.Errorf("error leaks the token: %v", err)
		}
	})
}

func TestDefault_sleep_honours_context(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := sleepContext(ctx, 24*time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleepContext(cancelled, 24h) = %v, want context.Canceled", err)
	}
	if err := sleepContext(t.Context(), 0); err != nil {
		t.Errorf("sleepContext(0) = %v, want nil", err)
	}
}
