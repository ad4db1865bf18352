package push

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// Origin is origin's push URL in the repository of g, without any credentials it holds, when
// it is on the server at serverURL: the URL to push to with a token, read before the agent
// could rewrite .git/config. "" when origin is elsewhere, or there is none, and then no token
// goes to git.
func Origin(ctx context.Context, g git.Repo, serverURL string) string {
	out, err := g.Run(ctx, "remote", "get-url", "--push", "origin")
	if err != nil {
		return "" // no origin, or none git can read: nothing to push to with the token
	}
	u, err := url.Parse(strings.TrimSpace(out))
	if err != nil {
		return ""
	}
	u.User = nil
	if !OnServer(serverURL, u.String()) {
		return ""
	}
	return u.String()
}

// PersistedHeaders are the http.*.extraheader keys the repository of g keeps in its own
// config, as actions/checkout leaves a token there unless told otherwise: where the agent,
// which works in that repository, could read it.
func PersistedHeaders(ctx context.Context, g git.Repo) ([]string, error) {
	out, err := g.Run(ctx, "config", "--local", "--includes", "--name-only", "--get-regexp", `^http\..*\.extraheader$`)
	switch {
	case git.ExitCode(err) == 1:
		return nil, nil // none set
	case err != nil:
		return nil, fmt.Errorf("looking for a token kept in .git/config: %w", err)
	}
	return strings.Fields(out), nil
}
