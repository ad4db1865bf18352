package sandbox

import (
	"context"
	"errors"
	"testing"
)

func TestGate(t *testing.T) {
	t.Parallel()
	var g Gate
	if err := g.Enter(); err != nil {
		t.Fatalf("Enter on an open gate: %v", err)
	}
	closing := g.Closing()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if g.Shut(ctx) {
		t.Error("Shut reported every Exec returned while one is still in")
	}
	select {
	case <-closing:
	default:
		t.Error("Closing not closed after Shut")
	}
	if err := g.Enter(); !errors.Is(err, ErrClosed) {
		t.Errorf("Enter after Shut = %v, want ErrClosed", err)
	}
	g.Leave()
	if !g.Shut(t.Context()) {
		t.Error("second Shut did not see the last Exec leave")
	}
}
