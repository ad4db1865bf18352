package push

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// credentials carry the token to git for one server, and keep it out of everything else.
type credentials struct {
	token  string
	basic  string   // base64("x-access-token:" + token), what the header carries
	server *url.URL // scheme://host[/path]/, always ending in "/"
}

func newCredentials(serverURL, token string) (credentials, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Contains(serverURL, "=") {
		return credentials{}, fmt.Errorf("push: server URL %q is not an http(s) URL of a GitHub server", serverURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/"
	u.RawPath = ""
	c := credentials{token: token, server: u}
	if token != "" {
		c.basic = base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	}
	return c, nil
}

// OnServer reports whether git would reach rawURL on the server at serverURL, the only place
// a token is ever sent.
func OnServer(serverURL, rawURL string) bool {
	c, err := newCredentials(serverURL, "")
	return err == nil && c.serves(rawURL)
}

// config returns the key=value pairs for this push's git commands, which package git hands over
// through GIT_CONFIG_COUNT, numbered after any the environment already has.
func (c credentials) config() []string {
	// Hooks would run with the token in their environment, and the agent can write them.
	kv := []string{"core.hooksPath=" + os.DevNull}
	if c.token == "" {
		return kv
	}
	key := "http." + c.server.String() + ".extraheader"
	return append(kv,
		// An empty value first drops any header configured for the server before ours: GitHub
		// refuses a request with two Authorization headers. The one actions/checkout persists is
		// in .git/config, which the scratch repository never reads, but the global and system
		// config, GIT_CONFIG_* in Env and Options.GitConfig still apply there.
		key+"=",
		key+"=AUTHORIZATION: basic "+c.basic,
		// The token is the only credential: no helper is asked (or told to erase what it stored
		// when the token is refused), and no askpass program is run.
		"credential.helper=",
		"core.askPass=",
	)
}

// environ returns the base environment for git: env (nil: this process's) without askpass
// programs when a token is used, for the same reason as config.
func (c credentials) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	if c.token == "" {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_ASKPASS" && k != "SSH_ASKPASS" {
			out = append(out, kv)
		}
	}
	return out
}

// serves reports whether git would send the header to rawURL: it is an http(s) URL on the
// server, under its path.
func (c credentials) serves(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, c.server.Scheme) {
		return false
	}
	if !strings.EqualFold(hostPort(u), hostPort(c.server)) {
		return false
	}
	return strings.HasPrefix(strings.TrimSuffix(u.Path, "/")+"/", c.server.Path)
}

// hostPort returns u's host with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	switch {
	case port != "":
	case strings.EqualFold(u.Scheme, "https"):
		port = "443"
	case strings.EqualFold(u.Scheme, "http"):
		port = "80"
	}
	return u.Hostname() + ":" + port
}

// redact removes the token, in both its plain and its encoded form, from s.
func (c credentials) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.NewReplacer(c.basic, "***", c.token, "***").Replace(s)
}

// redactErr returns err, straight from git.Repo.Run, with the token removed from what git
// printed. Only a *git.Error carries git's output; the argv that it and Run's other errors
// name never holds the token, which reaches git through the environment only.
func (c credentials) redactErr(err error) error {
	ge, ok := err.(*git.Error)
	if c.token == "" || !ok {
		return err
	}
	clean := *ge
	clean.Stderr = c.redact(ge.Stderr)
	clean.Stdout = c.redact(ge.Stdout)
	return &clean
}

// hasPassword reports whether a URL has a password in it, which git would put in argv.
func hasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// redactURL hides any password in a URL, for messages.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}
