package testkit_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

const (
	gitToken         = "ghs_GitServerToken0123456789ab"
	gitReadOnlyToken = "ghs_GitServerReadOnly012345678"
)

// TestGitServer_checks_the_token: each credential may do what a GitHub token with that scope
// may, and the server records why it refused the rest.
func TestGitServer_checks_the_token(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers []string // http.extraheader values
		push    bool
		status  int // the refusal recorded, 0 for none
	}{
		{"token_reads", []string{testkit.AuthHeader(gitToken)}, false, 0},
		{"token_pushes", []string{testkit.AuthHeader(gitToken)}, true, 0},
		{"read_only_token_reads", []string{testkit.AuthHeader(gitReadOnlyToken)}, false, 0},
		{"read_only_token_cannot_push", []string{testkit.AuthHeader(gitReadOnlyToken)}, true, http.StatusForbidden},
		{"wrong_token", []string{testkit.AuthHeader("ghs_wrong")}, false, http.StatusUnauthorized},
		{"no_token", nil, false, http.StatusUnauthorized},
		{"bearer_scheme", []string{"Authorization: Bearer " + gitToken}, false, http.StatusUnauthorized},
		{"two_headers", []string{testkit.AuthHeader(gitToken), testkit.AuthHeader(gitToken)}, false, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := testkit.NewGitServer(t, gitToken, gitReadOnlyToken)
			url, bare := srv.NewRepo(t, "owner/repo")
			if got, want := url, srv.URL+"/owner/repo.git"; got != want {
				t.Errorf("url = %q, want %q", got, want)
			}
			home := t.TempDir()
			base := git.New(t.TempDir(), []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}).
				WithConfig("user.name=Test", "user.email=test@example.com")
			run := func(g git.Repo, args ...string) error {
				_, err := g.Run(t.Context(), args...)
				return err
			}
			// Seed by path, so the remote has something to read and the push has a branch.
			if err := run(base, "init", "-q", "-b", "main"); err != nil {
				t.Fatal(err)
			}
			if err := run(base, "commit", "-q", "--allow-empty", "-m", "initial"); err != nil {
				t.Fatal(err)
			}
			if err := run(base, "push", "-q", bare, "main"); err != nil {
				t.Fatal(err)
			}

			g := base
			for _, h := range tt.headers {
				g = g.WithConfig("http.extraheader=" + h)
			}
			var err error
			if tt.push {
				err = run(g, "push", "-q", url, "main:pushed")
			} else {
				err = run(g, "ls-remote", url)
			}
			if got, want := err == nil, tt.status == 0; got != want {
				t.Errorf("git succeeded = %v, want %v (err: %v)", got, want, err)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no requests recorded")
			}
			last := reqs[len(reqs)-1]
			if got, want := last.Status, tt.status; got != want {
				t.Errorf("last request %s %s: status %d, want %d", last.Method, last.Path, got, want)
			}
			if got, want := len(last.Authorization), len(tt.headers); got != want {
				t.Errorf("Authorization headers recorded = %d, want %d", got, want)
			}
			_, err = os.Stat(filepath.Join(bare, "refs", "heads", "pushed"))
			if got, want := err == nil, tt.push && tt.status == 0; got != want {
				t.Errorf("branch pushed = %v, want %v", got, want)
			}
		})
	}
}
