package sandbox

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is the error of an Exec that Close stopped, or that was called after Close.
var ErrClosed = errors.New("sandbox closed")

// Gate lets a sandbox's Close stop new Execs and wait for the running ones. The zero value is
// ready to use.
type Gate struct {
	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	running sync.WaitGroup
}

// Enter counts an Exec in, or returns ErrClosed once Shut has begun. Counting under mu keeps
// every Add before Shut's Wait. Each successful Enter needs one Leave.
func (g *Gate) Enter() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	g.running.Add(1)
	return nil
}

// Leave counts an Exec out.
func (g *Gate) Leave() { g.running.Done() }

// Closing is closed when Shut begins: running Execs should stop.
func (g *Gate) Closing() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing == nil {
		g.closing = make(chan struct{})
	}
	return g.closing
}

// Shut refuses new Execs, signals Closing and waits for the running ones until ctx ends. It
// reports whether they all returned. It may be called more than once.
func (g *Gate) Shut(ctx context.Context) bool {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.closing == nil {
			g.closing = make(chan struct{})
		}
		close(g.closing)
	}
	g.mu.Unlock()

	done := make(chan struct{})
	go func() {
		g.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
