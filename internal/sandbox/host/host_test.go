package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/sandboxtest"
)

// liveness bounds how long a test waits for something that must happen, so that a broken
// implementation fails instead of hanging. It is never what a test asserts.
const liveness = 30 * time.Second

// newSandbox returns a host sandbox in a fresh directory with our PATH and env, closed when the
// test ends.
func newSandbox(t *testing.T, env ...string) *Sandbox {
	t.Helper()
	s := New(t.TempDir(), append([]string{"PATH=" + os.Getenv("PATH")}, env...))
	// Short waits keep the tests fast; no assertion depends on them.
	s.KillGrace = 50 * time.Millisecond
	s.DrainWindow = 50 * time.Millisecond
	t.Cleanup(func() {
		if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// TestContract runs the contract every sandbox keeps.
func TestContract(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T, o sandboxtest.Options) sandbox.Sandbox {
		var env []string
		for k, v := range o.Env {
			env = append(env, k+"="+v)
		}
		s := newSandbox(t, env...)
		s.DrainWindow = o.DrainWindow
		return s
	})
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	t.Cleanup(cancel)
	return ctx
}

// TestExecEnvironment checks what the host adds to the contract: a process sees exactly the
// sandbox's environment, never ours, and its program is looked up in the sandbox's PATH.
func TestExecEnvironment(t *testing.T) {
	t.Setenv("SANDCASTLE_HOST_ONLY", "leaked")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "greet"), []byte("#!/bin/sh\necho \"hi $FOO\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(t.TempDir(), []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FOO=base"})
	t.Cleanup(func() { s.Close(context.WithoutCancel(t.Context())) })
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{name: "exactly_the_sandbox_env", argv: []string{"sh", "-c", `echo "$FOO ${SANDCASTLE_HOST_ONLY-unset}"`}, want: "base unset\n"},
		{name: "program_found_in_sandbox_path", argv: []string{"greet"}, want: "hi base\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Exec(bounded(t), sandbox.Exec{Argv: tt.argv})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if got := res.Stdout; got != tt.want {
				t.Errorf("Stdout = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExecMissingProgramIsErrNotFound(t *testing.T) {
	_, err := newSandbox(t).Exec(t.Context(), sandbox.Exec{Argv: []string{"sandcastle-no-such-program"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Exec of a missing program error = %v, want one wrapping exec.ErrNotFound", err)
	}
}

// TestCloseLeavesNothingRunning checks from outside the sandbox, which is the host, that Close
// stops the processes of the Execs it stops.
func TestCloseLeavesNothingRunning(t *testing.T) {
	s := newSandbox(t)
	ctx := bounded(t)
	pids := make(chan int, 1)
	done := make(chan error, 1)
	go func() {
		_, err := s.Exec(ctx, sandbox.Exec{Argv: []string{"sh", "-c", `trap "" TERM; sleep 300 & echo $!; wait; wait`}, OnLine: func(l []byte) {
			n, _ := strconv.Atoi(string(l))
			pids <- n
		}})
		done <- err
	}()
	var pid int
	select {
	case pid = <-pids:
	case <-ctx.Done():
		t.Fatal("process did not start")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Exec error = %v, want one wrapping sandbox.ErrClosed", err)
	}
	requireGone(t, pid)
}

// alive reports whether pid is a running process; a zombie is not running.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := bytes.Cut(stat, []byte(") "))
	return len(rest) > 0 && rest[0] != 'Z' && rest[0] != 'X'
}

// requireGone fails unless pid stops running within the liveness bound.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no pid to check (%d)", pid) // kill(0) or kill(-1) would reach far more than one process
	}
	for deadline := time.Now().Add(liveness); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d is still running", pid)
		}
	}
}
