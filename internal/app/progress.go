package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// editTimeout bounds one edit of the progress comment while the run goes, retries included.
const editTimeout = 30 * time.Second

// finalEditTimeout bounds the edit that says how the run ended: long enough to wait out a
// secondary rate limit, for which GitHub asks at least a minute, and try again.
const finalEditTimeout = 2 * time.Minute

// progressInterval is the least time between two edits of the progress comment while the
// agent works. A run edits it at most 60 times an hour: a small share of the 1,000 requests an
// hour the job's token has for the repository, and well under GitHub's secondary limit on
// requests that create content.
const progressInterval = time.Minute

// maxProgressBackoff caps the wait after edits GitHub refused for a rate limit.
const maxProgressBackoff = 16 * time.Minute

// progress keeps the comment on the triggering issue or pull request up to date. The loop
// reports through update, which never blocks; one goroutine edits the comment with the latest
// state, only when what it shows changed, at most every progressInterval, and less often while
// GitHub refuses it for a rate limit.
type progress struct {
	h     *hub
	red   *report.Redactor
	warn  func(string)
	after func(time.Duration) <-chan time.Time // time.After; tests step it
	id    int64                                // the comment; 0 when none could be made
	url   string

	mu    sync.Mutex // guards state, which update writes from the loop
	state report.Progress
	wake  chan struct{}

	shown   string             // the body the comment has; only the editing goroutine touches it
	limited int                // edits refused in a row for a rate limit; the editing goroutine's
	warned  bool               // only the editing goroutine, then finish, touch it
	stop    context.CancelFunc // ends the editing goroutine, and any edit in flight
	done    chan struct{}
}

// startProgress posts the comment (or finds it from an earlier run of the same job) and starts
// editing it as the run goes. It returns nil when the run keeps no comment.
func startProgress(ctx context.Context, h *hub, red *report.Redactor, warn func(string)) *progress {
	return startProgressWith(ctx, h, red, warn, time.After)
}

// startProgressWith is startProgress with the timer the editing goroutine waits on.
func startProgressWith(ctx context.Context, h *hub, red *report.Redactor, warn func(string), after func(time.Duration) <-chan time.Time) *progress {
	if !h.comments() {
		return nil
	}
	p := &progress{h: h, red: red, warn: warn, after: after, wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.state = report.Progress{RunURL: h.runURL}
	p.shown = p.body(p.state.Comment())
	c, _, err := h.api.UpsertComment(ctx, h.owner, h.repo, h.issue, h.marker, p.shown)
	if err != nil {
		warn("progress comment: " + err.Error())
		return nil
	}
	p.id, p.url = c.ID, c.URL
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	p.stop = stop
	go p.loop(loopCtx)
	return p
}

// edit writes body to the comment, warning about the first failure only: a comment that
// cannot be edited once will likely fail again.
func (p *progress) edit(ctx context.Context, body string) error {
	_, err := p.h.api.EditComment(ctx, p.h.owner, p.h.repo, p.id, p.h.marker, body)
	if err == nil {
		p.shown = body
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	if !p.warned {
		p.warned = true
		p.warn("progress comment: " + err.Error())
	}
	return err
}

// commentURL is the comment's address, "" when the run keeps none.
func (p *progress) commentURL() string {
	if p == nil {
		return ""
	}
	return p.url
}

func (p *progress) body(markdown string) string { return p.red.Redact(markdown) }

// update records where the run stands; a tool call without one keeps the last one shown.
func (p *progress) update(r run.Progress) {
	p.mu.Lock()
	p.state.Iteration, p.state.MaxIterations, p.state.Commits = r.Iteration, r.MaxIterations, r.Commits
	if r.LastTool != "" {
		p.state.LastTool = r.LastTool
	}
	p.mu.Unlock()
	p.signal()
}

// signal wakes the editing goroutine, at once or after its wait.
func (p *progress) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *progress) loop(ctx context.Context) {
	defer close(p.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		p.mu.Lock()
		body := p.body(p.state.Comment())
		p.mu.Unlock()
		wait := progressInterval
		if body != p.shown {
			wait = p.editBounded(ctx, body)
		}
		select {
		case <-ctx.Done():
			return
		case <-p.after(wait):
		}
	}
}

// editBounded makes one edit while the run goes and returns how long to wait before the
// next: the interval, or after a rate limit as long as GitHub said and at least twice as long
// as the last time, the state being shown then.
func (p *progress) editBounded(ctx context.Context, body string) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, editTimeout)
	defer cancel()
	err := p.edit(ctx, body)
	reset, limited := githubapi.RateLimited(err)
	if !limited {
		p.limited = 0
		return progressInterval
	}
	p.limited++
	p.signal() // what the comment should show is still unwritten
	wait := min(progressInterval<<p.limited, maxProgressBackoff)
	if !reset.IsZero() {
		wait = max(wait, time.Until(reset))
	}
	return wait
}

// finish stops the updates, cancelling an edit in flight so the run's end never waits for it,
// and writes the final state with time enough to wait out a rate limit.
func (p *progress) finish(ctx context.Context, final report.Outcome) {
	if p == nil {
		return
	}
	p.stop()
	<-p.done
	final.RunURL = p.h.runURL
	p.warned = false // the final state matters: say so if it cannot be written
	ctx, cancel := afterRun(ctx, finalEditTimeout)
	defer cancel()
	_ = p.edit(ctx, p.body(final.Comment()))
}
