package sandbox

import (
	"context"
	"errors"
	"fmt"
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

// Exec is what every Sandbox.Exec does around running e: it refuses an empty argv, returns
// context.Cause(ctx) without running anything when ctx has already ended and ErrClosed once Shut
// has begun, and otherwise calls run, counted in until it returns, with a channel that is
// closed when Shut begins (the process should then stop). Every error names the sandbox and the
// program: `NAME: exec "argv[0]": ...`. The Result is run's, returned with its error too.
func (g *Gate) Exec(ctx context.Context, name string, e Exec, run func(closing <-chan struct{}) (Result, error)) (Result, error) {
	if len(e.Argv) == 0 {
		return Result{}, fmt.Errorf("%s: exec: empty argv", name)
	}
	res, err := g.exec(ctx, run)
	if err != nil {
		err = fmt.Errorf("%s: exec %q: %w", name, e.Argv[0], err)
	}
	return res, err
}

func (g *Gate) exec(ctx context.Context, run func(closing <-chan struct{}) (Result, error)) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, context.Cause(ctx)
	}
	if err := g.enter(); err != nil {
		return Result{}, err
	}
	defer g.running.Done()
	return run(g.closingChan())
}

// enter counts an Exec in, or returns ErrClosed once Shut has begun. Counting under mu keeps
// every Add before Shut's Wait.
func (g *Gate) enter() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	g.running.Add(1)
	return nil
}

// closingChan is closed when Shut begins.
func (g *Gate) closingChan() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing == nil {
		g.closing = make(chan struct{})
	}
	return g.closing
}

// Shut refuses new Execs, closes the channel running ones were given and waits for them until
// ctx ends. It reports whether they all returned. It may be called more than once.
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
