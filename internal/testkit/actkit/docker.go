package actkit

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// Images that scripts/provision-docker.sh provides without Docker Hub.
const (
	// BaseImage is Debian bookworm with git and CA certificates, made with debootstrap.
	BaseImage = "debian:bookworm-slim"
	// ClaudeImage is BaseImage with the native claude binary at /usr/local/bin/claude and an
	// agent user whose home is /home/agent.
	ClaudeImage = "sandcastle-test:claude"
	// AgentsImage is ClaudeImage plus codex, opencode and copilot (their native binaries) and
	// pi with node.
	AgentsImage = "sandcastle-test:agents"
)

const (
	defaultDockerHost = "unix:///var/run/docker.sock"
	provisionHint     = "run scripts/provision-docker.sh"
	// pingTimeout bounds a probe of an engine that accepts connections but never answers.
	pingTimeout = 5 * time.Second
)

// RequireDocker checks that a Docker engine answers at DOCKER_HOST, or at the default unix
// socket. When none does the test is skipped with provisioning instructions, except under
// CI=true, where it fails: CI must never pass by silently skipping the Docker tier.
func RequireDocker(t testing.TB) {
	t.Helper()
	if _, err := engineGet(t.Context(), os.Getenv("DOCKER_HOST"), "/_ping"); err != nil {
		testkit.SkipOrFail(t, err.Error(), provisionHint)
	}
}

// RequireImage checks that the engine has the image name (like ClaudeImage), with the same
// skip-or-fail rule as RequireDocker. It never pulls: the images are built locally.
func RequireImage(t testing.TB, name string) {
	t.Helper()
	status, err := engineGet(t.Context(), os.Getenv("DOCKER_HOST"), imagePath(name))
	switch {
	case err != nil:
		testkit.SkipOrFail(t, err.Error(), provisionHint)
	case status == http.StatusNotFound:
		testkit.SkipOrFail(t, fmt.Sprintf("Docker image %q not found", name), provisionHint)
	case status != http.StatusOK:
		testkit.SkipOrFail(t, fmt.Sprintf("inspect Docker image %q: HTTP %d", name, status), provisionHint)
	}
}

// imagePath is the inspect path of an image (see imageName).
func imagePath(name string) string { return "/images/" + imageName(name) + "/json" }

// engineGet sends GET path to the engine at host (a DOCKER_HOST value; empty means the default
// socket) and returns the status. A _ping answered with anything but 200 is an error, since an
// engine that cannot ping cannot run tests either.
func engineGet(ctx context.Context, host, path string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	resp, err := engineRequest(ctx, host, path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if path == "/_ping" && resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("docker engine at %s: GET /_ping: HTTP %d: %s", host, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return resp.StatusCode, nil
}

// engineRequest sends GET path to the engine at host (a DOCKER_HOST value; empty means the
// default socket).
func engineRequest(ctx context.Context, host, path string) (*http.Response, error) {
	if host == "" {
		host = defaultDockerHost
	}
	client, base, err := engineClient(host)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("docker engine at %s: GET %s: %w", host, path, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker engine at %s not reachable: %w", host, err)
	}
	return resp, nil
}

// engineClient returns an HTTP client and base URL for a DOCKER_HOST value. Only the plain
// transports are spoken: unix sockets and unencrypted tcp.
func engineClient(host string) (*http.Client, string, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, "", fmt.Errorf("parse DOCKER_HOST %q: %w", host, err)
	}
	switch u.Scheme {
	case "unix":
		socket := u.Path
		dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}
		// The host part of the URL is ignored by the dialer; "docker" only makes it valid.
		// No keep-alive: each probe has its own client, whose idle connection would outlive it.
		return &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}, "http://docker", nil
	case "tcp", "http":
		return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, "http://" + u.Host, nil
	default:
		return nil, "", fmt.Errorf("DOCKER_HOST %q: scheme %q not supported by testkit (unix or tcp)", host, u.Scheme)
	}
}
