package app

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/hostfs"
	"github.com/sandcastle-action/sandcastle/internal/relay"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
)

// reserve is the part of GitHub's rate limit the relay leaves to the run's own writes.
const reserve = 100

// startRelay starts the read-only GitHub relay for the Docker sandbox of the checkout top, when
// the run has one to offer: the inputs ask for it, and there is a token and a repository. It
// returns the relay, the sandbox's environment with what gh and curl need, and the bind of its
// directory; a nil relay and env itself when there is none.
func (x sandboxes) startRelay(top string, env map[string]string, log *report.Log) (*githubRelay, map[string]string, []docker.Mount, error) {
	owner, name, _ := strings.Cut(x.gh.repository, "/")
	if !x.cfg.GitHub.Relay || x.gh.token == "" || name == "" {
		return nil, env, nil, nil
	}
	r, err := relay.New(relay.Options{ // relay.New defaults an empty APIURL to GitHub's
		Policy: relay.Policy{Owner: owner, Name: name}, APIURL: x.gh.apiURL, GraphQLURL: x.gh.graphQLURL, Token: x.gh.token,
		MaxRequests: x.cfg.GitHub.RelayMaxRequests, Reserve: reserve,
		Refused: func(msg string) { log.Warning("%s", msg) },
	})
	if err != nil {
		return nil, env, nil, err
	}
	// Beside the run logs: a directory git ignores (see workspace), on the mount the daemon binds
	// the workspace from, also inside a container Action.
	// The agent can reach .sandcastle/ in the checkout (branch-strategy head), so the relay
	// works in its directory through a descriptor of logs/, opened without following a link.
	rel := filepath.Join(".sandcastle", "logs")
	logs, err := hostfs.Dir(top, rel, 0o755)
	if err != nil {
		return nil, env, nil, fmt.Errorf("relay: %w", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	dir := "github-relay-" + hex.EncodeToString(b)
	uid, gid := x.docker().User()
	if err := r.Listen(hostfs.Path(logs, dir), uid, gid); err != nil {
		logs.Close()
		return nil, env, nil, err
	}
	host := "github.com"
	if u, err := url.Parse(x.gh.server); err == nil && u.Host != "" {
		host = u.Host
	}
	with := maps.Clone(env)
	maps.Copy(with, relay.Env(host, owner, name))
	log.Status("GitHub relay: the sandbox reads %s/%s through %s (read-only; the token stays here)", owner, name, relay.Target)
	return &githubRelay{Relay: r, logs: logs}, with, []docker.Mount{{Source: filepath.Join(top, rel, dir), Target: relay.Target, ReadOnly: true}}, nil
}

// githubRelay is the relay with the directory its own lies in, which it reaches through that
// directory's descriptor until it is closed.
type githubRelay struct {
	*relay.Relay
	logs *os.File
}

func (r *githubRelay) Close() error {
	return errors.Join(r.Relay.Close(), r.logs.Close())
}
