package docker

import (
	"context"
	"fmt"

	"github.com/moby/moby/client"
)

// Engine is a connection to a Docker daemon. It is safe for concurrent use.
type Engine struct {
	api *client.Client
}

// New connects to the daemon named by the environment (DOCKER_HOST, DOCKER_TLS_VERIFY,
// DOCKER_CERT_PATH, DOCKER_API_VERSION; the local socket otherwise) and agrees on an API version
// with it. It fails when the daemon does not answer.
func New(ctx context.Context) (*Engine, error) {
	api, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker: configure client: %w", err)
	}
	if _, err := api.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		api.Close()
		return nil, fmt.Errorf("docker: cannot reach the Docker daemon at %s: is it running, and is the socket mounted? %w",
			api.DaemonHost(), err)
	}
	return &Engine{api: api}, nil
}

// Close releases the connection. Sandboxes started from e must be closed first.
func (e *Engine) Close() error {
	return e.api.Close()
}
