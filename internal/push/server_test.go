package push_test

import (
	"encoding/base64"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// gitServer is a real smart-HTTP git remote: git http-backend run through net/http/cgi behind
// an httptest.Server. Like GitHub it wants exactly one "Authorization: Basic
// base64(x-access-token:<token>)" header: Token may read and push, ReadOnlyToken may only read
// (a push gets 403, as a token without contents: write does), anything else gets 401, and two
// Authorization headers get 400.
type gitServer struct {
	URL  string // http://127.0.0.1:<port>
	Root string // GIT_PROJECT_ROOT, holding the bare repositories

	token, readOnlyToken string
	env                  []string // for the test's own git commands on the bare repositories
	backend              http.Handler

	mu       sync.Mutex
	requests []gitRequest
}

// gitRequest is one request the server received.
type gitRequest struct {
	Method, Path, Service string
	Authorization         []string
	UserAgent             string
	Status                int // the server's answer when it refused the request, else 0
}

// newGitServer starts a server for token (and readOnlyToken, when not "") that lives as long as
// the test. It skips the test when git or git http-backend is missing, and fails it instead
// under CI=true.
func newGitServer(t *testing.T, token, readOnlyToken string) *gitServer {
	t.Helper()
	testkit.RequireBinary(t, "git")
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	execPath, err := git.New(home, env).Run(t.Context(), "--exec-path")
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git http-backend not found (CI=true, so not skipping): %v", err)
		}
		t.Skipf("skipping: git http-backend not found: %v", err)
	}
	root := t.TempDir()
	s := &gitServer{
		Root:          root,
		token:         token,
		readOnlyToken: readOnlyToken,
		env:           env,
		backend: &cgi.Handler{
			Path: backend,
			Env: []string{
				"GIT_PROJECT_ROOT=" + root,
				"GIT_HTTP_EXPORT_ALL=1",
				"HOME=" + home,
				"GIT_CONFIG_NOSYSTEM=1",
			},
		},
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// NewRepo creates the bare repository <name>.git, with pushes over HTTP enabled, and returns
// its URL and directory.
func (s *gitServer) NewRepo(t *testing.T, name string) (url, dir string) {
	t.Helper()
	dir = filepath.Join(s.Root, name+".git")
	g := git.New(s.Root, s.env)
	if _, err := g.Run(t.Context(), "init", "-q", "--bare", "-b", "main", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.At(dir).Run(t.Context(), "config", "http.receivepack", "true"); err != nil {
		t.Fatal(err)
	}
	return s.URL + "/" + name + ".git", dir
}

// Requests returns the requests received so far.
func (s *gitServer) Requests() []gitRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]gitRequest(nil), s.requests...)
}

func (s *gitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := gitRequest{
		Method:        r.Method,
		Path:          r.URL.Path,
		Service:       r.URL.Query().Get("service"),
		Authorization: r.Header.Values("Authorization"),
		UserAgent:     r.UserAgent(),
	}
	req.Status = s.refusal(r, req)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	switch req.Status {
	case 0:
		s.backend.ServeHTTP(w, r)
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Invalid username or token.", req.Status)
	default:
		http.Error(w, http.StatusText(req.Status), req.Status)
	}
}

// refusal returns the status that refuses r, or 0 when it may go through.
func (s *gitServer) refusal(r *http.Request, req gitRequest) int {
	if len(req.Authorization) > 1 {
		return http.StatusBadRequest // GitHub: Duplicate header: "Authorization"
	}
	if len(req.Authorization) == 0 {
		return http.StatusUnauthorized
	}
	scheme, payload, _ := strings.Cut(req.Authorization[0], " ")
	raw, err := base64.StdEncoding.DecodeString(payload)
	user, pass, _ := strings.Cut(string(raw), ":")
	if !strings.EqualFold(scheme, "basic") || err != nil || user != "x-access-token" {
		return http.StatusUnauthorized
	}
	push := req.Service == "git-receive-pack" || strings.HasSuffix(r.URL.Path, "/git-receive-pack")
	switch {
	case pass == s.token:
		return 0
	case pass == s.readOnlyToken && s.readOnlyToken != "" && push:
		return http.StatusForbidden
	case pass == s.readOnlyToken && s.readOnlyToken != "":
		return 0
	}
	return http.StatusUnauthorized
}
