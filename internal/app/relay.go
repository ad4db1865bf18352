package app

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/relay"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
)

// reserve is the part of GitHub's rate limit the relay leaves to the run's own writes.
const reserve = 100

// maxRequests bounds the GitHub API requests the relay forwards for one run. It is fixed rather
// than an input: GitHub's own rate limit, of which reserve is kept, is the bound that matters.
const maxRequests = 500

// startRelay starts the read-only GitHub relay for the Docker sandbox of the checkout top, when
// the run has one to offer: the inputs ask for it, and there is a token and a repository. It
// returns the relay, the sandbox's environment with what gh and curl need, and the bind of its
// directory; a nil relay and env itself when there is none.
func (s *setup) startRelay(top string, env map[string]string, log *report.Log) (*relay.Relay, map[string]string, []docker.Mount, error) {
	owner, name, _ := strings.Cut(s.gh.repository, "/")
	if !s.cfg.GitHub.Relay || s.gh.token == "" || name == "" {
		return nil, env, nil, nil
	}
	r, err := relay.New(relay.Options{ // relay.New defaults an empty APIURL to GitHub's
		Policy: relay.Policy{Owner: owner, Name: name}, APIURL: s.gh.apiURL, GraphQLURL: s.gh.graphQLURL, Token: s.gh.token,
		MaxRequests: maxRequests, Reserve: reserve,
		Refused: func(msg string) { log.Warning("%s", msg) },
	})
	if err != nil {
		return nil, env, nil, err
	}
	// Beside the run logs: a directory git ignores (see workspace), on the mount the daemon binds
	// the workspace from, also inside a container Action.
	logs := filepath.Join(top, ".sandcastle", "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, env, nil, fmt.Errorf("relay: %w", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	dir := filepath.Join(logs, "github-relay-"+hex.EncodeToString(b))
	uid, gid := s.docker().User()
	if err := r.Listen(dir, uid, gid); err != nil {
		return nil, env, nil, err
	}
	host := "github.com"
	if u, err := url.Parse(s.gh.server); err == nil && u.Host != "" {
		host = u.Host
	}
	with := maps.Clone(env)
	maps.Copy(with, relay.Env(host, owner, name))
	log.Status("GitHub relay: the sandbox reads %s/%s through %s (read-only; the token stays here)", owner, name, relay.Target)
	return r, with, []docker.Mount{{Source: dir, Target: relay.Target, ReadOnly: true}}, nil
}
