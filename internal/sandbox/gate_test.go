package sandbox

import (
	"context"
	"errors"
	"testing"
)

func TestGateExec(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cause := errors.New("run over")
	ended, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	shut := new(Gate)
	shut.Shut(t.Context())
	tests := []struct {
		name    string
		gate    *Gate
		ctx     context.Context
		argv    []string
		runErr  error
		wantRun bool   // run was called
		wantErr string // "" = no error
		wantIs  error  // what the error wraps
	}{
		{name: "runs", gate: new(Gate), ctx: t.Context(), argv: []string{"true"}, wantRun: true},
		{name: "wraps_run_error", gate: new(Gate), ctx: t.Context(), argv: []string{"git", "x"}, runErr: boom, wantRun: true, wantErr: `box 1: exec "git": boom`, wantIs: boom},
		{name: "empty_argv", gate: new(Gate), ctx: t.Context(), wantErr: "box 1: exec: empty argv"},
		{name: "context_ended", gate: new(Gate), ctx: ended, argv: []string{"true"}, wantErr: `box 1: exec "true": run over`, wantIs: cause},
		{name: "shut", gate: shut, ctx: t.Context(), argv: []string{"true"}, wantErr: `box 1: exec "true": sandbox closed`, wantIs: ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			res, err := tt.gate.Exec(tt.ctx, "box 1", Exec{Argv: tt.argv}, func(<-chan struct{}) (Result, error) {
				ran = true
				return Result{ExitCode: 3}, tt.runErr
			})
			if ran != tt.wantRun {
				t.Errorf("run called = %v, want %v", ran, tt.wantRun)
			}
			if tt.wantRun && res.ExitCode != 3 {
				t.Errorf("Result = %+v, want run's, with its error too", res)
			}
			if got := errText(err); got != tt.wantErr {
				t.Errorf("error = %q, want %q", got, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestGateShut checks that Shut signals a running Exec, waits for it to return, and refuses
// later ones.
func TestGateShut(t *testing.T) {
	t.Parallel()
	var g Gate
	entered := make(chan (<-chan struct{}))
	leave := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := g.Exec(t.Context(), "box", Exec{Argv: []string{"sleep"}}, func(closing <-chan struct{}) (Result, error) {
			entered <- closing
			<-leave
			return Result{}, nil
		})
		done <- err
	}()
	closing := <-entered
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if g.Shut(ended) {
		t.Error("Shut reported every Exec returned while one is still running")
	}
	select {
	case <-closing:
	default:
		t.Error("the running Exec's closing channel is still open after Shut")
	}
	if _, err := g.Exec(t.Context(), "box", Exec{Argv: []string{"true"}}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Exec after Shut = %v, want ErrClosed", err)
	}
	close(leave)
	if err := <-done; err != nil {
		t.Errorf("running Exec = %v", err)
	}
	if !g.Shut(t.Context()) {
		t.Error("second Shut did not see the last Exec leave")
	}
}
