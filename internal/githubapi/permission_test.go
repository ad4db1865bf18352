package githubapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPermission(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"maintain_from_role_name", 200, `{"permission":"write","role_name":"maintain"}`, "maintain"},
		{"triage_from_role_name", 200, `{"permission":"read","role_name":"triage"}`, "triage"},
		{"admin", 200, `{"permission":"admin","role_name":"admin"}`, "admin"},
		{"legacy_without_role_name", 200, `{"permission":"write"}`, "write"},
		{"custom_role_uses_base", 200, `{"permission":"write","role_name":"security-fixer"}`, "write"},
		{"none", 200, `{"permission":"none","role_name":""}`, "none"},
		{"unknown_is_none", 200, `{"permission":"owner"}`, "none"},
		{"not_a_collaborator", 404, `{"message":"Not Found"}`, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, rec := setup(t)
			mux.HandleFunc("/repos/o/r/collaborators/alice/permission", func(w http.ResponseWriter, r *http.Request) {
				testMethod(t, r, "GET")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			got, err := client.Permission(t.Context(), "o", "r", "alice")
			if err != nil {
				t.Fatalf("Permission: %v", err)
			}
			if got != tt.want {
				t.Errorf("Permission = %q, want %q", got, tt.want)
			}
			if got, want := rec.count("GET /repos/o/r/collaborators/alice/permission"), 1; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}

// TestPermission_forbidden_says_what_to_grant: a token GitHub refuses the look-up gets a hint
// naming the permissions to add: those GitHub names in X-Accepted-GitHub-Permissions, in the
// spelling of a workflow's permissions: block, else the ones a run needs and the fork case.
func TestPermission_forbidden_says_what_to_grant(t *testing.T) {
	tests := []struct {
		name     string
		accepted string
		want     []string
	}{
		{"no_header", "", []string{"read-only in a pull_request run from a fork", "contents: write, issues: write and pull-requests: write", "sets each one it leaves out to none"}},
		{"header", "contents=read; pull_requests=write,issues=read", []string{"GitHub says the look-up needs `contents: read`, or `pull-requests: write` and `issues: read`; grant it to github-token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mux, rec := setup(t)
			mux.HandleFunc("/repos/o/r/collaborators/alice/permission", func(w http.ResponseWriter, r *http.Request) {
				if tt.accepted != "" {
					w.Header().Set("X-Accepted-GitHub-Permissions", tt.accepted)
				}
				writeJSON(t, w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			})
			got, err := client.Permission(t.Context(), "o", "r", "alice")
			if err == nil {
				t.Fatalf("Permission = %q, want an error", got)
			}
			if got, want := asError(t, err).Status, http.StatusForbidden; got != want {
				t.Errorf("Status = %d, want %d", got, want)
			}
			for _, want := range append([]string{"githubapi: get permission of alice in o/r: 403 Resource not accessible by integration; "}, tt.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "Metadata") == (tt.accepted != "") {
				t.Errorf("error %q: the Metadata permission belongs in the hint only when GitHub names none", err)
			}
			if got, want := len(rec.slept()), 0; got != want {
				t.Errorf("waits = %d, want %d: a permission 403 is not a rate limit", got, want)
			}
		})
	}
}

func TestPermission_escapes_bot_login(t *testing.T) {
	client, mux, _ := setup(t)
	mux.HandleFunc("/repos/o/r/collaborators/{user}/permission", func(w http.ResponseWriter, r *http.Request) {
		if got, want := r.PathValue("user"), "dependabot[bot]"; got != want {
			t.Errorf("user = %q, want %q", got, want)
		}
		// The brackets decode to the same user either way; only the raw path shows they
		// were escaped.
		if got, want := r.URL.EscapedPath(), "/repos/o/r/collaborators/dependabot%5Bbot%5D/permission"; got != want {
			t.Errorf("escaped path = %q, want %q", got, want)
		}
		writeJSON(t, w, http.StatusOK, map[string]string{"permission": "read"})
	})
	if _, err := client.Permission(t.Context(), "o", "r", "dependabot[bot]"); err != nil {
		t.Fatalf("Permission: %v", err)
	}
}
