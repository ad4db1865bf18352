package githubapi

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryTransport retries what GitHub refuses only for a while: rate limits (429, and 403
// with an exhausted or secondary limit) and gateway errors (502, 503, 504). Every other
// answer, 401/404/422 included, passes through untouched on the first try.
type retryTransport struct {
	next       http.RoundTripper
	maxRetries int
	maxWait    time.Duration
	sleep      func(context.Context, time.Duration) error
	now        func() time.Time
	log        *slog.Logger
}

func newRetryTransport(next http.RoundTripper, o Options) *retryTransport {
	t := &retryTransport{next: next, maxRetries: o.MaxRetries, maxWait: o.MaxWait, sleep: o.Sleep, now: o.Now, log: o.Logger}
	switch {
	case t.maxRetries == 0:
		t.maxRetries = defaultMaxRetries
	case t.maxRetries < 0:
		t.maxRetries = 0
	}
	if t.maxWait <= 0 {
		t.maxWait = defaultMaxWait
	}
	if t.sleep == nil {
		t.sleep = sleepContext
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	return t
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A body that cannot be read again cannot be resent.
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for retries := 0; ; retries++ {
		attempt := req
		if retries > 0 {
			var err error
			if attempt, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.next.RoundTrip(attempt)
		if err != nil {
			return nil, err
		}
		refused, ok := t.classify(req.Method, resp, retries)
		if !ok {
			return resp, nil
		}
		// Retried or given up, a refused response is never returned: free its connection.
		drain(resp.Body)
		// A wait that would outlast the request's deadline is no wait at all: fail now, saying
		// when GitHub will answer again.
		dl, bounded := req.Context().Deadline()
		if !rewindable || retries >= t.maxRetries || refused.wait > t.maxWait || bounded && refused.wait > time.Until(dl) {
			return nil, &RetryError{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode,
				RateLimited: refused.rateLimited, Retries: retries, Reset: refused.reset}
		}
		t.log.InfoContext(req.Context(), "waiting for the GitHub API",
			"request", req.Method+" "+req.URL.Path, "status", resp.StatusCode,
			"wait", refused.wait, "retry", retries+1, "of", t.maxRetries)
		if err := t.sleep(req.Context(), refused.wait); err != nil {
			return nil, err
		}
	}
}

// refusal is a temporary refusal and how long to wait before trying again.
type refusal struct {
	rateLimited bool
	wait        time.Duration
	reset       time.Time // when GitHub said to come back; zero if it did not
}

// classify decides whether resp is a temporary refusal worth retrying.
func (t *retryTransport) classify(method string, resp *http.Response, retries int) (refusal, bool) {
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return t.hinted(resp, retries), true
	case http.StatusForbidden:
		if resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != "" {
			return t.hinted(resp, retries), true
		}
		if secondaryLimit(resp) {
			// GitHub asks for at least a minute when a secondary limit names no time.
			return refusal{rateLimited: true, wait: time.Minute}, true
		}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// A POST may have taken effect behind the gateway; resending could duplicate a
		// comment or a pull request.
		if method != http.MethodPost {
			return refusal{wait: t.backoff(retries)}, true
		}
	}
	return refusal{}, false
}

// hinted reads the wait GitHub asked for: Retry-After first, then X-RateLimit-Reset, else a
// minute for a 429 and an exponential backoff otherwise.
func (t *retryTransport) hinted(resp *http.Response, retries int) refusal {
	now := t.now()
	if v := resp.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			d := time.Duration(secs) * time.Second
			return refusal{rateLimited: true, wait: d, reset: now.Add(d)}
		}
		if at, err := http.ParseTime(v); err == nil {
			return refusal{rateLimited: true, wait: max(at.Sub(now), 0), reset: at}
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if secs, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			reset := time.Unix(secs, 0)
			// The reset has second granularity: a request in that very second can still be
			// refused, so wait one more.
			return refusal{rateLimited: true, wait: max(reset.Sub(now), 0) + time.Second, reset: reset}
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		// GitHub asks for at least a minute when a limit names no time.
		return refusal{rateLimited: true, wait: max(time.Minute, t.backoff(retries))}
	}
	return refusal{rateLimited: true, wait: t.backoff(retries)}
}

// backoff is 1 s, 2 s, 4 s, ... capped at maxWait.
func (t *retryTransport) backoff(retries int) time.Duration {
	d := time.Second << min(retries, 16)
	return min(d, t.maxWait)
}

// secondaryLimit peeks at a 403 body for GitHub's secondary rate limit message, leaving the
// body readable for go-github.
func secondaryLimit(resp *http.Response) bool {
	peek, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	s := strings.ToLower(string(peek))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "secondary-rate-limits")
}

// rewind returns a copy of req with a fresh body for one more attempt.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	return r, nil
}

// sleepContext waits for d or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
