package githubapi

import (
	"context"
	"errors"
	"sync"
	"time"
)

// editTimeout bounds one edit of a live comment while the run goes, retries included.
const editTimeout = 30 * time.Second

// finalEditTimeout bounds the edit that says how the run ended: long enough to wait out a
// secondary rate limit, for which GitHub asks at least a minute, and try again.
const finalEditTimeout = 2 * time.Minute

// liveInterval is the least time between two edits of a live comment while the run goes. A
// run edits it at most 60 times an hour: a small share of the 1,000 requests an hour the job's
// token has for the repository, and well under GitHub's secondary limit on requests that create
// content.
const liveInterval = time.Minute

// maxLiveBackoff caps the wait after edits GitHub refused for a rate limit.
const maxLiveBackoff = 16 * time.Minute

// LiveComment is a comment on the issue or pull request a run reports on (a reply in the review
// thread, for a run a review comment started), kept up to date as the run goes: Show never blocks; one goroutine edits the comment with the latest body, only
// when it changed, at most every minute, and less often while GitHub refuses it for a rate
// limit. Bodies pass the client's gate, as every text it posts does.
type LiveComment struct {
	r     *Repo
	warn  func(string)
	after func(time.Duration) <-chan time.Time // time.After; tests step it
	id    int64                                // the comment, once Start made it
	url   string

	mu   sync.Mutex // guards want, which Show writes
	want string     // the body the comment should have
	wake chan struct{}

	shown   string             // the body the comment has; only the editing goroutine touches it
	limited int                // edits refused in a row for a rate limit; the editing goroutine's
	warned  bool               // only the editing goroutine, then Finish, touch it
	stop    context.CancelFunc // ends the editing goroutine, and any edit in flight
	done    chan struct{}
}

// LiveComment returns the run's progress comment, not yet posted. warn hears the first failure
// to edit it, and a failure to write how the run ended.
func (r *Repo) LiveComment(warn func(string)) *LiveComment {
	return &LiveComment{r: r, warn: warn, after: time.After, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Start posts the comment with body, or edits the one an earlier run of the same job made, and
// starts editing it as the run goes.
func (l *LiveComment) Start(ctx context.Context, body string) error {
	c, err := l.r.upsert(ctx, l.r.Marker, body)
	if err != nil {
		return err
	}
	l.id, l.url, l.shown, l.want = c.ID, c.URL, body, body
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	l.stop = stop
	go l.loop(loopCtx)
	return nil
}

// URL is the comment's address, "" before Start.
func (l *LiveComment) URL() string { return l.url }

// Show asks for body to be shown; it never blocks.
func (l *LiveComment) Show(body string) {
	l.mu.Lock()
	l.want = body
	l.mu.Unlock()
	l.signal()
}

// signal wakes the editing goroutine, at once or after its wait.
func (l *LiveComment) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// edit writes body to the comment, warning about the first failure only: a comment that
// cannot be edited once will likely fail again.
func (l *LiveComment) edit(ctx context.Context, body string) error {
	_, err := l.r.edit(ctx, l.id, l.r.Marker, body)
	if err == nil {
		l.shown = body
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	if !l.warned {
		l.warned = true
		l.warn("progress comment: " + err.Error())
	}
	return err
}

func (l *LiveComment) loop(ctx context.Context) {
	defer close(l.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		l.mu.Lock()
		body := l.want
		l.mu.Unlock()
		wait := liveInterval
		if body != l.shown {
			wait = l.editBounded(ctx, body)
		}
		select {
		case <-ctx.Done():
			return
		case <-l.after(wait):
		}
	}
}

// editBounded makes one edit while the run goes and returns how long to wait before the
// next: the interval, or after a rate limit as long as GitHub said and at least twice as long
// as the last time, the body being shown then.
func (l *LiveComment) editBounded(ctx context.Context, body string) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, editTimeout)
	defer cancel()
	err := l.edit(ctx, body)
	reset, limited := RateLimited(err)
	if !limited {
		l.limited = 0
		return liveInterval
	}
	l.limited++
	l.signal() // what the comment should show is still unwritten
	wait := min(liveInterval<<l.limited, maxLiveBackoff)
	if !reset.IsZero() {
		wait = max(wait, time.Until(reset))
	}
	return wait
}

// Finish stops the edits, cancelling one in flight so the run's end never waits for it, and
// writes body, how the run ended, with time enough to wait out a rate limit, even when ctx
// is cancelled.
func (l *LiveComment) Finish(ctx context.Context, body string) {
	if l.stop == nil {
		return // never started
	}
	l.stop()
	<-l.done
	l.warned = false // the final state matters: say so if it cannot be written
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalEditTimeout)
	defer cancel()
	_ = l.edit(ctx, body)
}
