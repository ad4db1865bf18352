package testkit

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// GitServer is a real smart-HTTP git remote: git http-backend run through net/http/cgi behind
// an httptest.Server. Like GitHub it wants exactly one "Authorization: Basic
// base64(x-access-token:<token>)" header: the token may read and push, the read-only token may
// only read (a push gets 403, as a token without contents: write does), anything else gets 401,
// and two Authorization headers get 400.
type GitServer struct {
	URL  string // http://127.0.0.1:<port>
	Root string // GIT_PROJECT_ROOT, holding the bare repositories

	token, readOnlyToken string
	env                  []string // for the server's own git commands on the bare repositories
	backend              http.Handler

	mu       sync.Mutex
	requests []GitRequest
}

// GitRequest is one request a GitServer received.
type GitRequest struct {
	Method, Path, Service string
	Authorization         []string
	UserAgent             string
	Status                int // the server's answer when it refused the request, else 0
}

// AuthHeader is the header, for git's http.extraheader, that carries token as GitHub's git
// remote takes it and the GitServer checks it.
func AuthHeader(token string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
}

// NewGitServer starts a server for token (and readOnlyToken, when not "") that lives as long
// as the test. It skips the test when git or git http-backend is missing, and fails it instead
// under CI=true.
func NewGitServer(t testing.TB, token, readOnlyToken string) *GitServer {
	t.Helper()
	RequireBinary(t, "git")
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	execPath, err := git.New(home, env).Run(t.Context(), "--exec-path")
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		SkipOrFail(t, fmt.Sprintf("git http-backend not found (%v)", err), InstallHint("git"))
		return nil
	}
	root := t.TempDir()
	s := &GitServer{
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
// its URL and directory. name may hold slashes ("owner/repo"), so that the URL is the one a
// GitHub server URL and a repository name make.
func (s *GitServer) NewRepo(t testing.TB, name string) (url, dir string) {
	t.Helper()
	dir = filepath.Join(s.Root, filepath.FromSlash(name)+".git")
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
func (s *GitServer) Requests() []GitRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]GitRequest(nil), s.requests...)
}

func (s *GitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := GitRequest{
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
func (s *GitServer) refusal(r *http.Request, req GitRequest) int {
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
