package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// editTimeout bounds one edit of the progress comment, retries included.
const editTimeout = 30 * time.Second

// progressInterval is the least time between two edits of the progress comment while the
// agent works, so a chatty agent costs a few API calls a minute, not one per tool call.
const progressInterval = 15 * time.Second

// progress keeps the comment on the triggering issue or pull request up to date. The loop
// reports through update, which never blocks; one goroutine edits the comment with the latest
// state at most every progressInterval.
type progress struct {
	h    *hub
	red  *report.Redactor
	warn func(string)
	id   int64 // the comment; 0 when none could be made
	url  string

	mu      sync.Mutex // guards state and changed, which update writes from the loop
	state   report.Comment
	changed bool
	wake    chan struct{}

	warned bool               // only the editing goroutine, then finish, touch it
	stop   context.CancelFunc // ends the editing goroutine, and any edit in flight
	done   chan struct{}
}

// startProgress posts the comment (or finds it from an earlier run of the same job) and starts
// editing it as the run goes. It returns nil when the run keeps no comment.
func startProgress(ctx context.Context, h *hub, red *report.Redactor, warn func(string)) *progress {
	if !h.comments() {
		return nil
	}
	p := &progress{h: h, red: red, warn: warn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.state = report.Comment{Phase: report.PhaseWorking, RunURL: h.runURL}
	c, _, err := h.api.UpsertComment(ctx, h.owner, h.repo, h.issue, h.marker, p.body(p.state))
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

// edit writes c to the comment, warning about the first failure only: a comment that cannot
// be edited once will likely fail every 15 s.
func (p *progress) edit(ctx context.Context, c report.Comment) {
	ctx, cancel := context.WithTimeout(ctx, editTimeout)
	defer cancel()
	_, err := p.h.api.EditComment(ctx, p.h.owner, p.h.repo, p.id, p.h.marker, p.body(c))
	if err == nil || ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	if !p.warned {
		p.warned = true
		p.warn("progress comment: " + err.Error())
	}
}

// commentURL is the comment's address, "" when the run keeps none.
func (p *progress) commentURL() string {
	if p == nil {
		return ""
	}
	return p.url
}

func (p *progress) body(c report.Comment) string { return p.red.Redact(report.CommentBody(c)) }

// update records where the run stands; a tool call without one keeps the last one shown.
func (p *progress) update(r run.Progress) {
	p.mu.Lock()
	p.state.Iteration, p.state.MaxIterations, p.state.Commits = r.Iteration, r.MaxIterations, r.Commits
	if r.LastTool != "" {
		p.state.LastTool = r.LastTool
	}
	p.changed = true
	p.mu.Unlock()
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
		state, changed := p.state, p.changed
		p.changed = false
		p.mu.Unlock()
		if changed {
			p.edit(ctx, state)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(progressInterval):
		}
	}
}

// finish stops the updates and writes the final state.
func (p *progress) finish(ctx context.Context, final report.Comment) {
	if p == nil {
		return
	}
	p.stop()
	<-p.done
	final.RunURL = p.h.runURL
	p.warned = false // the final state matters: say so if it cannot be written
	p.edit(ctx, final)
}
