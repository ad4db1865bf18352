package githubapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// Error is a failed GitHub API operation.
type Error struct {
	// Op is what was attempted, with its object: "create pull request in o/r".
	Op string
	// Status is the HTTP status of GitHub's last answer; 0 when none arrived.
	Status int
	// Err is the underlying error.
	Err error

	msg  string // GitHub's answer, condensed
	hint string // what the user can do about it
}

func (e *Error) Error() string {
	s := "githubapi: " + e.Op + ": " + e.msg
	if e.hint != "" {
		s += "; " + e.hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// RetryError is a request GitHub still refused after the allowed retries, for a rate limit
// or a gateway error.
type RetryError struct {
	Method, Path string
	Status       int
	RateLimited  bool
	Retries      int
	// Reset is when GitHub said the request may be retried; zero when it did not say.
	Reset time.Time
}

func (e *RetryError) Error() string {
	var s string
	if e.RateLimited {
		s = fmt.Sprintf("GitHub API rate limit exceeded for %s %s; retried %d times", e.Method, e.Path, e.Retries)
	} else {
		s = fmt.Sprintf("GitHub API unavailable for %s %s: %d %s; retried %d times", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Retries)
	}
	if !e.Reset.IsZero() {
		s += "; resets at " + e.Reset.UTC().Format(time.RFC3339)
	}
	return s
}

// RateLimited reports whether err is GitHub refusing for a rate limit, and when it said the
// request may be made again (zero when it did not say: GitHub then asks for at least a minute).
func RateLimited(err error) (reset time.Time, ok bool) {
	var (
		retry   *RetryError
		limited *github.RateLimitError
		abuse   *github.AbuseRateLimitError
	)
	switch {
	case errors.As(err, &retry):
		return retry.Reset, retry.RateLimited
	case errors.As(err, &limited):
		return limited.Rate.Reset.Time, true
	case errors.As(err, &abuse):
		if abuse.RetryAfter != nil {
			return time.Now().Add(*abuse.RetryAfter), true
		}
		return time.Time{}, true
	}
	return time.Time{}, false
}

// wrap names op in err and condenses GitHub's answer to one line. It never formats request
// headers, so the token cannot reach the message.
func wrap(op string, err error) *Error {
	e := &Error{Op: op, Err: err, msg: err.Error()}
	var (
		retry   *RetryError
		limited *github.RateLimitError
		abuse   *github.AbuseRateLimitError
		resp    *github.ErrorResponse
	)
	switch {
	case errors.As(err, &retry):
		// Drop http.Client's "Get <url>:" prefix; the retry error names the request.
		e.Status, e.msg = retry.Status, retry.Error()
	case errors.As(err, &limited):
		// go-github refuses without a request once an earlier answer spent the limit.
		e.Status = http.StatusForbidden
		method, path := requestLine(limited.Response)
		e.msg = (&RetryError{Method: method, Path: path, Status: e.Status, RateLimited: true,
			Reset: limited.Rate.Reset.Time}).Error()
	case errors.As(err, &abuse):
		e.Status = http.StatusForbidden
		method, path := requestLine(abuse.Response)
		r := &RetryError{Method: method, Path: path, Status: e.Status, RateLimited: true}
		if abuse.RetryAfter != nil {
			r.Reset = time.Now().Add(*abuse.RetryAfter)
		}
		e.msg = r.Error()
	case errors.As(err, &resp) && resp.Response != nil:
		e.Status, e.msg = resp.Response.StatusCode, describe(resp)
	}
	return e
}

// requestLine names the request behind resp, or "?" when go-github did not keep it.
func requestLine(resp *http.Response) (method, path string) {
	if resp == nil || resp.Request == nil || resp.Request.URL == nil {
		return "?", "?"
	}
	return resp.Request.Method, resp.Request.URL.Path
}

// describe renders GitHub's error body as "422 Validation Failed: No commits between a and b".
func describe(r *github.ErrorResponse) string {
	msg := r.Message
	if msg == "" {
		msg = http.StatusText(r.Response.StatusCode)
	}
	s := fmt.Sprintf("%d %s", r.Response.StatusCode, msg)
	var details []string
	for _, d := range r.Errors {
		switch {
		case d.Message != "":
			details = append(details, d.Message)
		case d.Code != "":
			details = append(details, strings.TrimSpace(d.Resource+" "+d.Field+" "+d.Code))
		}
	}
	if len(details) > 0 {
		s += ": " + strings.Join(details, "; ")
	}
	return s
}

// statusOf returns the HTTP status of GitHub's error answer, or 0.
func statusOf(err error) int {
	var resp *github.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil {
		return resp.Response.StatusCode
	}
	return 0
}

// mentions reports whether GitHub's error answer contains text, ignoring case.
func mentions(err error, text string) bool {
	var resp *github.ErrorResponse
	if !errors.As(err, &resp) {
		return false
	}
	return strings.Contains(strings.ToLower(describe(resp)), strings.ToLower(text))
}
