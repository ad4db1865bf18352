package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/hostfs"
	"github.com/sandcastle-action/sandcastle/internal/relay"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
)

// reserve is the part of GitHub's rate limit the relay leaves to the run's own writes.
const reserve = 100

// maxRequests bounds the GitHub API requests the relay forwards for one run. It is fixed rather
// than an input: GitHub's own rate limit, of which reserve is kept, is the bound that matters.
const maxRequests = 500

// GitHub is the repository the sandbox reads through the read-only GitHub relay, and how the
// relay reaches it.
type GitHub struct {
	Owner, Name string
	// APIURL and GraphQLURL are GitHub's endpoints, "" for github.com's; ServerURL names the
	// host gh talks to.
	APIURL, GraphQLURL, ServerURL string
	Token                         string
}

// Running is the run's container, with the custody of the repository's git directory and the
// GitHub relay it reads through.
type Running struct {
	*Container
	Guard    *gitguard.Guard
	relay    *githubRelay // nil when none
	giveBack func() error
	log      *report.Log
}

// Launch lends the checkout top to the agent's user, takes the git directory of repo (the
// repository of the workspace dir) into custody, starts the relay to gh when it is set, then
// the container (Start). Once the custody ends, GiveBack hands the checkout back.
func (d Docker) Launch(ctx context.Context, dir, top string, repo git.Repo, env map[string]string, gh *GitHub, log *report.Log) (*Running, error) {
	giveBack, err := d.Lend(top)
	if err != nil {
		return nil, err
	}
	g, err := gitguard.Take(ctx, repo)
	if err != nil {
		return nil, errors.Join(err, giveBack())
	}
	var r *githubRelay
	if gh != nil {
		if r, env, err = d.startRelay(top, env, *gh, log); err != nil {
			_, cerr := g.Close(ctx)
			return nil, errors.Join(err, cerr, giveBack())
		}
		d.Extra = append(d.Extra, r.mount)
	}
	c, err := d.Start(ctx, dir, top, env, g, log)
	if err != nil {
		_, cerr := g.Close(ctx) // nothing ran that could change it
		if r != nil {
			r.Close()
		}
		return nil, errors.Join(err, cerr, giveBack())
	}
	return &Running{Container: c, Guard: g, relay: r, giveBack: giveBack, log: log}, nil
}

// GiveBack hands the checkout lent for the run back to its owner, once the custody has ended:
// the custody compares owners too.
func (r *Running) GiveBack() error { return r.giveBack() }

// Read says whether the sandbox was shown the repository's issue or pull request number through
// the relay; false for every number without one.
func (r *Running) Read(number int) bool { return r.relay != nil && r.relay.Read(number) }

// Close removes the container, then stops the relay, saying what it forwarded and refused.
func (r *Running) Close(ctx context.Context) error {
	err := r.Container.Close(ctx)
	if r.relay != nil {
		r.log.Status("GitHub relay: %d request(s) forwarded, %d refused", r.relay.Forwarded(), len(r.relay.Refused()))
		if rerr := r.relay.Close(); rerr != nil {
			r.log.Warning("stopping the GitHub relay: %v", rerr)
		}
	}
	return err
}

// startRelay starts the read-only GitHub relay to gh for the sandbox of the checkout top. It
// returns the relay, with the bind of its directory, and the sandbox's environment with what gh
// and curl need.
func (d Docker) startRelay(top string, env map[string]string, gh GitHub, log *report.Log) (*githubRelay, map[string]string, error) {
	r, err := relay.New(relay.Options{ // relay.New defaults an empty APIURL to GitHub's
		Policy: relay.Policy{Owner: gh.Owner, Name: gh.Name}, APIURL: gh.APIURL, GraphQLURL: gh.GraphQLURL, Token: gh.Token,
		MaxRequests: maxRequests, Reserve: reserve,
		Refused: func(msg string) { log.Warning("%s", msg) },
	})
	if err != nil {
		return nil, env, err
	}
	// Beside the run logs: a directory git ignores (see workspace), on the mount the daemon binds
	// the workspace from, also inside a container Action.
	// The agent can reach .sandcastle/ in the checkout (branch-strategy head), so the relay
	// works in its directory through a descriptor of logs/, opened without following a link.
	rel := filepath.Join(".sandcastle", "logs")
	logs, err := hostfs.Dir(top, rel, 0o755)
	if err != nil {
		return nil, env, fmt.Errorf("relay: %w", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	dir := "github-relay-" + hex.EncodeToString(b)
	uid, gid := d.User()
	if err := r.Listen(hostfs.Path(logs, dir), uid, gid); err != nil {
		logs.Close()
		return nil, env, err
	}
	host := "github.com"
	if u, err := url.Parse(gh.ServerURL); err == nil && u.Host != "" {
		host = u.Host
	}
	with := maps.Clone(env)
	maps.Copy(with, relay.Env(host, gh.Owner, gh.Name))
	log.Status("GitHub relay: the sandbox reads %s/%s through %s (read-only; the token stays here)", gh.Owner, gh.Name, relay.Target)
	return &githubRelay{Relay: r, logs: logs, mount: docker.Mount{Source: filepath.Join(top, rel, dir), Target: relay.Target, ReadOnly: true}}, with, nil
}

// githubRelay is the relay with the directory its own lies in, which it reaches through that
// directory's descriptor until it is closed, and the bind of its own into the sandbox.
type githubRelay struct {
	*relay.Relay
	logs  *os.File
	mount docker.Mount
}

func (r *githubRelay) Close() error {
	return errors.Join(r.Relay.Close(), r.logs.Close())
}
