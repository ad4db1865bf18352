package githubapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/sandcastle-action/sandcastle/internal/event"
)

// PublicAPIURL is the REST API of github.com, used when Options.APIURL is empty.
const PublicAPIURL = "https://api.github.com"

const (
	defaultMaxRetries = 3
	defaultMaxWait    = 60 * time.Second
)

// Options configures a Client.
type Options struct {
	// Token authenticates every request as "Authorization: Bearer <Token>". Required.
	Token string
	// APIURL is the value of GITHUB_API_URL: empty or PublicAPIURL for github.com,
	// https://HOST/api/v3 on GitHub Enterprise Server.
	APIURL string
	// HTTPClient is copied, never modified; nil means a plain http.Client. Its Timeout, if
	// any, also bounds the waits between retries, so prefer bounding calls with ctx.
	HTTPClient *http.Client
	// MaxRetries bounds the retries of one request: 0 means 3, a negative value none.
	MaxRetries int
	// MaxWait is the longest single wait for a rate limit to lift: 0 means 60 s. A limit
	// that lifts later fails at once with its reset time rather than stalling the job.
	MaxWait time.Duration
	// Sleep waits between retries; nil means a timer that gives up when ctx is done.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock for X-RateLimit-Reset; nil means time.Now.
	Now func() time.Time
	// Logger hears about each wait; nil discards.
	Logger *slog.Logger
	// Gate is what every text the client posts passes.
	Gate Gate
}

// Gate is the one way to GitHub for text: every body, title, comment and review the client
// writes has its secrets redacted, then its mentions and closing references made code
// (event.InertBut), inside the method that writes it, so no caller can forget it.
type Gate struct {
	// Redact replaces the run's secrets (report.Redactor's Redact); nil redacts nothing.
	Redact func(string) string
	// Closes is the issue whose closing reference ("Closes #N") stays live in a pull
	// request's title and body, where the run names the issue it fixes: the issue the run was
	// started for; 0 for none. In comments and reviews every closing reference is code.
	Closes int
}

// markers are the hidden markers a review's texts end with (review.Plan), which find them
// again: a blank line, then one marker a line. An agent's text before them may end with a
// marker of its own, but not on the line right after a blank line that the first of them takes.
var markers = regexp.MustCompile(`\n\n<!-- ` + Family + `[^<>\n]* -->(?:\n<!-- ` + Family + `[^<>\n]* -->)*$`)

// text is s as it may be posted anywhere but in a pull request. Every HTML comment goes, as
// Sanitize removes them: the marker that finds the text again is added after the gate.
func (g Gate) text(s string) string { return g.pass(s, 0) }

// pr is s as it may be a pull request's title or body, where the run's own closing reference
// stays live.
func (g Gate) pr(s string) string { return g.pass(s, g.Closes) }

// review is a review's body or comment as it may be posted: text, but the markers it ends with
// stay.
func (g Gate) review(s string) string {
	tags := markers.FindString(s)
	return g.text(s[:len(s)-len(tags)]) + tags
}

// pass redacts s and makes every mention and closing reference in it code but one to issue.
// It redacts once more after sanitizing, since removing what nobody sees (a zero-width space,
// an HTML comment) can join the pieces of a secret into the whole.
func (g Gate) pass(s string, issue int) string {
	if g.Redact != nil {
		s = g.Redact(event.Sanitize(g.Redact(s)))
	}
	return event.InertBut(s, issue)
}

// Client is a GitHub REST API client for one token and one API host.
type Client struct {
	gate  Gate
	gh    *github.Client
	sleep func(ctx context.Context, d time.Duration) error // Options.Sleep
}

// New returns a Client for o, checking the token and the API URL.
func New(o Options) (*Client, error) {
	if o.Token == "" {
		return nil, errors.New("githubapi: no token: a GitHub token is required")
	}
	hc := &http.Client{}
	if o.HTTPClient != nil {
		copied := *o.HTTPClient
		hc = &copied
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = newRetryTransport(next, o)

	gh := github.NewClient(hc).WithAuthToken(o.Token)
	u, err := enterpriseAPI(o.APIURL)
	if err != nil {
		return nil, err
	}
	if u != nil {
		// Uploads are never used; go-github only needs a well-formed URL on the same host.
		uploads := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
		if gh, err = gh.WithEnterpriseURLs(o.APIURL, uploads); err != nil {
			return nil, fmt.Errorf("githubapi: GITHUB_API_URL: %w", err)
		}
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = sleepContext
	}
	return &Client{gate: o.Gate, gh: gh, sleep: sleep}, nil
}

// enterpriseAPI parses apiURL when it names a GitHub Enterprise Server API; it returns nil
// for github.com's API and rejects values that are not an http(s) URL of a host.
func enterpriseAPI(apiURL string) (*url.URL, error) {
	if apiURL == "" || strings.TrimSuffix(apiURL, "/") == PublicAPIURL {
		return nil, nil
	}
	u, err := url.Parse(apiURL)
	if err != nil {
		// url.Error quotes the input, which may hold credentials: report only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("githubapi: GITHUB_API_URL is not a valid URL: %w", err)
	}
	if u.User != nil {
		return nil, errors.New("githubapi: GITHUB_API_URL must not contain credentials; pass the token separately")
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("githubapi: GITHUB_API_URL %q is not an API URL: want %s or https://HOST/api/v3 for GitHub Enterprise Server", apiURL, PublicAPIURL)
	}
	return u, nil
}

// do sends a request built by go-github's client, for endpoints whose go-github method is
// missing a field or does not escape its path.
func (c *Client) do(ctx context.Context, method, path string, body, v any) error {
	req, err := c.gh.NewRequest(method, path, body)
	if err != nil {
		return err
	}
	_, err = c.gh.Do(ctx, req, v)
	return err
}

// drain empties and closes a response body so its connection can be reused.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	_ = body.Close()
}
