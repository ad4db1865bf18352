package push_test

import (
	"slices"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/push"
)

// TestOrigin: origin's URL is pushed to with the token only when it is on the server, and
// never with the credentials it holds.
func TestOrigin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	g := git.New(f.dir, f.env)
	if got := push.Origin(t.Context(), g, f.srv.URL); got != f.url {
		t.Errorf("Origin = %q, want %q", got, f.url)
	}
	f.git(f.dir, "remote", "set-url", "origin", "https://x-access-token:secret@github.com/o/r.git")
	if got := push.Origin(t.Context(), g, "https://github.com"); got != "https://github.com/o/r.git" {
		t.Errorf("Origin = %q, want the URL without its credentials", got)
	}
	if got := push.Origin(t.Context(), g, f.srv.URL); got != "" {
		t.Errorf("Origin = %q for an origin on another server, want none", got)
	}
	f.git(f.dir, "remote", "remove", "origin")
	if got := push.Origin(t.Context(), g, f.srv.URL); got != "" {
		t.Errorf("Origin = %q without an origin", got)
	}
}

func TestPersistedHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.persistedHeader = true
	g := git.New(f.dir, f.env)
	if got, err := push.PersistedHeaders(t.Context(), g); err != nil || got != nil {
		t.Errorf("PersistedHeaders = %q, %v; want none", got, err)
	}
	f.git(f.dir, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eA==")
	if got, err := push.PersistedHeaders(t.Context(), g); err != nil || !slices.Equal(got, []string{"http.https://github.com/.extraheader"}) {
		t.Errorf("PersistedHeaders = %q, %v", got, err)
	}
	if _, err := push.PersistedHeaders(t.Context(), git.New(t.TempDir()+"/none", f.env)); err == nil {
		t.Error("PersistedHeaders outside a repository succeeded")
	}
}
