package actkit

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// absentHost is a socket no engine listens on.
const absentHost = "unix:///nonexistent/testkit/docker.sock"

// fakeEngine serves handler on a unix socket, as dockerd does, and returns its DOCKER_HOST.
func fakeEngine(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	// Not t.TempDir: a socket path must fit in 108 bytes, and test names make those long.
	dir, err := os.MkdirTemp("", "testkit-docker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("unix", filepath.Join(dir, "docker.sock"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return "unix://" + l.Addr().String()
}

// engineLog records the paths a fake engine was asked for.
type engineLog struct {
	mu    sync.Mutex
	paths []string
}

func (e *engineLog) record(r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.paths = append(e.paths, r.URL.Path)
}

func (e *engineLog) got() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.paths, " ")
}

// status answers every request with code, like an engine whose _ping or inspect says so.
func status(code int, log *engineLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		w.WriteHeader(code)
		w.Write([]byte("OK"))
	}
}

// outcome is what a Require* call did to its test.
type outcome struct {
	fatal, skip string
}

func outcomeOf(rec *testkit.RecordingTB) outcome {
	return outcome{fatal: strings.Join(rec.Fatals, "\n"), skip: strings.Join(rec.Skips, "\n")}
}

// check compares an outcome with the wanted one: "" means it must not happen, anything else is a
// substring the message must hold. Every message must also say how to get Docker.
func (o outcome) check(t *testing.T, wantFatal, wantSkip string) {
	t.Helper()
	for _, c := range []struct{ what, got, want, suffix string }{
		{"fatal", o.fatal, wantFatal, " (CI=true, so not skipping); run scripts/provision-docker.sh"},
		{"skip", o.skip, wantSkip, "; run scripts/provision-docker.sh"},
	} {
		if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want one containing %q (empty: none)", c.what, c.got, c.want)
		}
		if c.got != "" && !strings.HasSuffix(c.got, c.suffix) {
			t.Errorf("%s = %q, want it to end with %q", c.what, c.got, c.suffix)
		}
	}
}

func TestRequireDocker(t *testing.T) {
	// Not parallel: t.Setenv.
	answering := func(t *testing.T, log *engineLog) string { return fakeEngine(t, status(http.StatusOK, log)) }
	tcpAnswering := func(t *testing.T, log *engineLog) string {
		srv := httptest.NewServer(status(http.StatusOK, log))
		t.Cleanup(srv.Close)
		return "tcp://" + srv.Listener.Addr().String()
	}
	failing := func(t *testing.T, log *engineLog) string {
		return fakeEngine(t, status(http.StatusInternalServerError, log))
	}
	absent := func(*testing.T, *engineLog) string { return absentHost }
	fixed := func(host string) func(*testing.T, *engineLog) string {
		return func(*testing.T, *engineLog) string { return host }
	}
	tests := []struct {
		name      string
		engine    func(*testing.T, *engineLog) string
		ci        string
		wantPaths string
		wantFatal string
		wantSkip  string
	}{
		{"unix_answering", answering, "true", "/_ping", "", ""},
		{"tcp_answering", tcpAnswering, "true", "/_ping", "", ""},
		{"absent_locally_skips", absent, "", "", "", "skipping: docker engine at " + absentHost + " not reachable"},
		{"absent_in_ci_fails", absent, "true", "", "docker engine at " + absentHost + " not reachable", ""},
		{"ping_error_skips", failing, "", "/_ping", "", "HTTP 500"},
		{"ping_error_in_ci_fails", failing, "true", "/_ping", "HTTP 500", ""},
		{"unsupported_scheme_skips", fixed("ssh://me@host"), "", "", "", `scheme "ssh" not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log engineLog
			t.Setenv("DOCKER_HOST", tt.engine(t, &log))
			t.Setenv("CI", tt.ci)
			rec := testkit.NewRecordingTB(t)
			RequireDocker(rec)
			outcomeOf(rec).check(t, tt.wantFatal, tt.wantSkip)
			if got, want := log.got(), tt.wantPaths; got != want {
				t.Errorf("engine asked for %q, want %q", got, want)
			}
		})
	}
}

func TestRequireImage(t *testing.T) {
	// Not parallel: t.Setenv.
	tests := []struct {
		name      string
		image     string
		status    int
		ci        string
		wantPath  string
		wantFatal string
		wantSkip  string
	}{
		{"present", ClaudeImage, http.StatusOK, "true", "/images/sandcastle-test:claude/json", "", ""},
		{"registry_path_kept", "ghcr.io/o/img:v1", http.StatusOK, "true", "/images/ghcr.io/o/img:v1/json", "", ""},
		{"query_chars_escaped", "img?x#y", http.StatusOK, "true", "/images/img?x#y/json", "", ""},
		{"missing_locally_skips", BaseImage, http.StatusNotFound, "", "/images/debian:bookworm-slim/json", "", `image "debian:bookworm-slim" not found`},
		{"missing_in_ci_fails", BaseImage, http.StatusNotFound, "true", "/images/debian:bookworm-slim/json", `image "debian:bookworm-slim" not found`, ""},
		{"engine_error_skips", BaseImage, http.StatusInternalServerError, "", "/images/debian:bookworm-slim/json", "", "HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log engineLog
			t.Setenv("DOCKER_HOST", fakeEngine(t, status(tt.status, &log)))
			t.Setenv("CI", tt.ci)
			rec := testkit.NewRecordingTB(t)
			RequireImage(rec, tt.image)
			outcomeOf(rec).check(t, tt.wantFatal, tt.wantSkip)
			if got, want := log.got(), tt.wantPath; got != want {
				t.Errorf("engine asked for %q, want %q", got, want)
			}
		})
	}

	t.Run("engine_absent_in_ci_fails", func(t *testing.T) {
		t.Setenv("DOCKER_HOST", absentHost)
		t.Setenv("CI", "true")
		rec := testkit.NewRecordingTB(t)
		RequireImage(rec, ClaudeImage)
		outcomeOf(rec).check(t, "not reachable", "")
	})
}
