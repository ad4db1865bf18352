package push

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// scratch is a bare repository of our own that borrows the objects of a repository through
// git's alternates. The git commands that carry the token run there, against an explicit URL:
// the repository's own .git/config, which the agent could write (a proxy, TLS settings, an
// include, a rewritten remote, a hook path), takes no part in them.
type scratch struct {
	git git.Repo
	dir string
}

// newScratch makes a scratch repository borrowing the objects of src. Remove it when done.
func newScratch(ctx context.Context, src git.Repo, env []string, config []string) (*scratch, error) {
	common, err := src.CommonDir(ctx)
	if err != nil {
		return nil, fmt.Errorf("push: find the repository of %s: %w", src.Dir, err)
	}
	dir, err := os.MkdirTemp("", "sandcastle-push-")
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	s := &scratch{git: git.New(dir, env).WithConfig(config...), dir: dir}
	if _, err := s.git.Run(ctx, "init", "--quiet", "--bare", "--template=", dir); err != nil {
		s.remove()
		return nil, fmt.Errorf("push: make a scratch repository: %w", err)
	}
	alternates := filepath.Join(dir, "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alternates), 0o755); err != nil {
		s.remove()
		return nil, fmt.Errorf("push: %w", err)
	}
	if err := os.WriteFile(alternates, []byte(filepath.Join(common, "objects")+"\n"), 0o644); err != nil {
		s.remove()
		return nil, fmt.Errorf("push: %w", err)
	}
	if err := copyShallow(common, dir); err != nil {
		s.remove()
		return nil, err
	}
	return s, nil
}

// copyShallow gives the scratch repository the shallow boundary of the repository whose git
// directory is common. A shallow clone (actions/checkout's default depth 1) lacks the parents of
// its boundary commits, and .git/shallow is how git knows not to look for them: without it a
// push or fetch that walks history from a boundary fails with "Failed to traverse parents of
// commit". Only commit ids are copied, so the file cannot carry anything else into the scratch
// repository.
func copyShallow(common, dir string) error {
	data, err := os.ReadFile(filepath.Join(common, "shallow"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // a complete history
	case err != nil:
		return fmt.Errorf("push: read the shallow boundary of %s: %w", common, err)
	}
	var ids strings.Builder
	for line := range strings.Lines(string(data)) {
		if id := strings.TrimSpace(line); isCommitID(id) {
			ids.WriteString(id + "\n")
		}
	}
	if ids.Len() == 0 {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "shallow"), []byte(ids.String()), 0o644); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	return nil
}

func (s *scratch) remove() { os.RemoveAll(s.dir) }

// Fetch brings o.Branch from the remote into the repository at o.Dir as the remote-tracking
// branch refs/remotes/<o.Remote>/<o.Branch>, authenticating with o.Token the way Push does:
// from a scratch repository, straight to o.URL, so the repository's configuration never sees
// the token. The objects then come into the repository by a local fetch, which needs no token.
// o.Token is required. found is false, with no error, when the remote has no such branch; any
// other failure (network, token, server) is an error, so that a caller never takes a branch it
// could not read for one that does not exist.
func Fetch(ctx context.Context, o Options) (found bool, err error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return false, err
	}
	ref := "refs/heads/" + o.Branch
	sha, err := o.fetch(ctx, ref, "refs/remotes/"+o.Remote+"/"+o.Branch, o.Branch)
	return sha != "", err
}

// FetchPull brings the head of pull request number, refs/pull/<number>/head on the remote
// (where GitHub keeps the head of a pull request from a fork too), into the repository at o.Dir
// under the same name, and returns its commit. It authenticates as Fetch does; o.Branch and
// o.Mode are not used. A pull request the remote does not have is an error. Fetching runs
// nothing of what the head holds: git only stores its objects (see package git).
func FetchPull(ctx context.Context, o Options, number int) (string, error) {
	o = o.withDefaults()
	if err := o.validateRemote(); err != nil {
		return "", err
	}
	what := fmt.Sprintf("pull request #%d", number)
	ref := fmt.Sprintf("refs/pull/%d/head", number)
	sha, err := o.fetch(ctx, ref, ref, what)
	if err == nil && sha == "" {
		err = fmt.Errorf("fetch %s from %s: it has no %s", what, o.Remote, ref)
	}
	return sha, err
}

// fetch brings ref from the remote into the repository as local, and returns its commit; ""
// with no error when the remote has no such ref. what names it in messages.
func (o Options) fetch(ctx context.Context, ref, local, what string) (string, error) {
	creds, err := newCredentials(o.ServerURL, o.Token)
	if err != nil {
		return "", err
	}
	if creds.token == "" {
		return "", fmt.Errorf("fetch %s from %s: no token to authenticate with", what, o.Remote)
	}
	if !creds.serves(o.URL) {
		return "", fmt.Errorf("fetch %s refused: its URL %s is not on %s, the only server the token is for", what, redactURL(o.URL), creds.server)
	}
	src := git.New(o.Dir, o.Env).WithConfig(o.GitConfig...)
	s, err := newScratch(ctx, src, creds.environ(o.Env), o.scratchConfig(creds))
	if err != nil {
		return "", err
	}
	defer s.remove()
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	p := pusher{git: s.git, remote: o.URL, name: o.Remote, creds: creds}
	sha, err := p.lookup(ctx, ref, what)
	if err != nil || sha == "" {
		return "", err
	}
	if _, err := s.git.Run(ctx, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--end-of-options", o.URL, "+"+ref+":"+ref); err != nil {
		return "", fmt.Errorf("fetch %s from %s: %w", what, o.Remote, creds.redactErr(err))
	}
	if _, err := src.Run(ctx, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--end-of-options", s.dir, "+"+ref+":"+local); err != nil {
		return "", fmt.Errorf("fetch %s from %s: %w", what, o.Remote, err)
	}
	// What was fetched, which someone's push may have moved on since the remote was asked.
	if sha, err = src.Resolve(ctx, local); err != nil {
		return "", fmt.Errorf("fetch %s from %s: %w", what, o.Remote, err)
	}
	return sha, nil
}
