package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// liveness bounds how long a test waits for something that must happen, so that a broken
// implementation fails instead of hanging. It is never what a test asserts.
const liveness = 30 * time.Second

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

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	t.Cleanup(cancel)
	return ctx
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// collect returns an OnLine that records lines, and a function returning them.
func collect() (func([]byte), func() []string) {
	var mu sync.Mutex
	var lines []string
	return func(l []byte) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, string(l))
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(lines)
		}
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

// atoi reads a pid from a line. It may run in OnLine, off the test goroutine, so it reports with
// Errorf; requireGone refuses the 0 it then returns.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Errorf("want a pid, got line %q", s)
		return 0
	}
	return n
}

func TestExecStreamsLinesAsTheyArrive(t *testing.T) {
	s := newSandbox(t)
	fifo := filepath.Join(t.TempDir(), "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	onLine, lines := collect()
	first := make(chan struct{}, 1)
	type outcome struct {
		res sandbox.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// The script cannot print "two" before the test has seen "one": only then is the fifo opened.
		res, err := s.Exec(ctx, sandbox.Exec{
			Argv: sh(`echo one; read x < "$FIFO"; echo "two $x"`),
			Env:  map[string]string{"FIFO": fifo},
			OnLine: func(l []byte) {
				onLine(l)
				if string(l) == "one" {
					first <- struct{}{}
				}
			},
		})
		done <- outcome{res, err}
	}()
	select {
	case <-first:
	case <-ctx.Done():
		t.Fatal("first line not delivered while the process was still running")
	}
	if err := os.WriteFile(fifo, []byte("released\n"), 0); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("Exec: %v", o.err)
	}
	if got, want := lines(), []string{"one", "two released"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
	if got := o.res.Stdout; got != "" {
		t.Errorf("Stdout = %q, want empty when OnLine is set", got)
	}
}

func TestExecStdoutLines(t *testing.T) {
	long := func(n int) string {
		return fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; echo; echo after`, n)
	}
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{name: "partial_last_line", script: `printf 'a\n\nb'`, want: []string{"a", "", "b"}},
		{name: "no_output", script: `true`, want: nil},
		{name: "long_line_intact", script: long(1 << 20), want: []string{strings.Repeat("x", 1<<20), "after"}},
		{name: "very_long_line_cut", script: long(stream.MaxOutput + 1<<20), want: []string{strings.Repeat("x", stream.MaxOutput), "after"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			onLine, lines := collect()
			if _, err := s.Exec(bounded(t), sandbox.Exec{Argv: sh(tt.script), OnLine: onLine}); err != nil {
				t.Fatalf("Exec: %v", err)
			}
			got := lines()
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got[i]), got[i], len(tt.want[i]), tt.want[i])
				}
			}
		})
	}
}

func TestExecCollectsStdoutWithoutOnLine(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		wantLen int
		wantEnd string
	}{
		{name: "small", script: `printf 'a\nb'`, wantLen: 3, wantEnd: "a\nb"},
		{name: "capped", script: fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x`, stream.MaxOutput+1<<20), wantLen: stream.MaxOutput, wantEnd: "xxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: sh(tt.script)})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if got := len(res.Stdout); got != tt.wantLen {
				t.Errorf("len(Stdout) = %d, want %d", got, tt.wantLen)
			}
			if !strings.HasSuffix(res.Stdout, tt.wantEnd) {
				t.Errorf("Stdout ends %q, want suffix %q", res.Stdout[max(0, len(res.Stdout)-10):], tt.wantEnd)
			}
		})
	}
}

func TestExecStdin(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than a pipe holds, both ways
	tests := []struct {
		name  string
		argv  []string
		stdin string
		want  string
	}{
		{name: "delivered_and_closed", argv: []string{"cat"}, stdin: "hello\nworld", want: "hello\nworld"},
		{name: "larger_than_pipe_buffers", argv: []string{"cat"}, stdin: big, want: big},
		{name: "none_reads_eof", argv: []string{"cat"}, stdin: "", want: ""},
		{name: "unread_input_ignored", argv: sh(`echo done`), stdin: big, want: "done\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: tt.argv, Stdin: tt.stdin})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if res.Stdout != tt.want {
				t.Errorf("Stdout = %d bytes %.30q, want %d bytes %.30q", len(res.Stdout), res.Stdout, len(tt.want), tt.want)
			}
		})
	}
}

func TestExecEnvironment(t *testing.T) {
	t.Setenv("SANDCASTLE_HOST_ONLY", "leaked")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "greet"), []byte("#!/bin/sh\necho \"hi $FOO\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(t.TempDir(), []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FOO=base", "BAR=keep"})
	t.Cleanup(func() { s.Close(context.WithoutCancel(t.Context())) })

	tests := []struct {
		name string
		argv []string
		env  map[string]string
		want string
	}{
		{name: "exactly_the_sandbox_env", argv: sh(`echo "$FOO $BAR ${SANDCASTLE_HOST_ONLY-unset}"`), want: "base keep unset\n"},
		{name: "exec_env_overrides_and_adds", argv: sh(`echo "$FOO $BAR $NEW"`), env: map[string]string{"FOO": "over", "NEW": "added"}, want: "over keep added\n"},
		{name: "program_found_in_sandbox_path", argv: []string{"greet"}, want: "hi base\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Exec(bounded(t), sandbox.Exec{Argv: tt.argv, Env: tt.env})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if got := res.Stdout; got != tt.want {
				t.Errorf("Stdout = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExecDir(t *testing.T) {
	s := newSandbox(t)
	if err := os.Mkdir(filepath.Join(s.RepoDir(), "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	tests := []struct {
		name string
		dir  string
		want string
	}{
		{name: "default_is_repo_dir", dir: "", want: s.RepoDir()},
		{name: "relative_to_repo_dir", dir: "sub", want: filepath.Join(s.RepoDir(), "sub")},
		{name: "absolute", dir: other, want: other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Exec(bounded(t), sandbox.Exec{Argv: sh(`pwd -P`), Dir: tt.dir})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			want, err := filepath.EvalSymlinks(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(res.Stdout); got != want {
				t.Errorf("dir = %q, want %q", got, want)
			}
		})
	}
}

func TestExecRelativeProgramPathIsInDir(t *testing.T) {
	s := newSandbox(t)
	if err := os.WriteFile(filepath.Join(s.RepoDir(), "run.sh"), []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Exec(bounded(t), sandbox.Exec{Argv: []string{"./run.sh"}})
	if err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if got, want := res.Stdout, "ran\n"; got != want {
		t.Errorf("Stdout = %q, want %q", got, want)
	}
}

func TestExecExitStatus(t *testing.T) {
	tests := []struct {
		name         string
		script       string
		wantCode     int
		wantSignaled bool
	}{
		{name: "success", script: `exit 0`, wantCode: 0},
		{name: "exit_3", script: `exit 3`, wantCode: 3},
		{name: "killed_by_sigkill", script: `kill -KILL $$`, wantCode: 128 + 9, wantSignaled: true},
		{name: "killed_by_sigterm", script: `kill -TERM $$`, wantCode: 128 + 15, wantSignaled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: sh(tt.script)})
			if err != nil {
				t.Fatalf("Exec: %v (a non-zero exit is a result, not an error)", err)
			}
			if res.ExitCode != tt.wantCode || res.Signaled != tt.wantSignaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want %d, %v", res.ExitCode, res.Signaled, tt.wantCode, tt.wantSignaled)
			}
		})
	}
}

func TestExecStderrTail(t *testing.T) {
	var data []byte
	for i := 0; len(data) < 200<<10; i++ {
		data = fmt.Appendf(data, "stderr line %06d\n", i)
	}
	file := filepath.Join(t.TempDir(), "stderr")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: sh(`cat "$F" >&2`), Env: map[string]string{"F": file}})
	if err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if got, want := len(res.Stderr), sandbox.StderrTail; got != want {
		t.Errorf("len(Stderr) = %d, want %d", got, want)
	}
	if want := string(data[len(data)-sandbox.StderrTail:]); res.Stderr != want {
		t.Errorf("Stderr is not the last %d bytes written; it ends %q", sandbox.StderrTail, res.Stderr[len(res.Stderr)-20:])
	}
}

func TestExecCancelKillsTheGroup(t *testing.T) {
	tests := []struct {
		name     string
		script   string // prints the pid of a background process, then waits for it
		wantCode int
	}{
		{name: "sigterm_stops_all", script: `sleep 300 & echo $!; wait`, wantCode: 128 + 15},
		// The child prints its pid only once it ignores SIGTERM.
		{name: "sigkill_after_grace_for_child_ignoring_sigterm", script: `sh -c 'trap "" TERM; echo $$; sleep 300; :' & wait`, wantCode: 128 + 15},
		{name: "sigkill_after_grace_for_leader_ignoring_sigterm", script: `trap "" TERM; sleep 300 & echo $!; wait; wait`, wantCode: 128 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			ctx, cancel := context.WithCancelCause(bounded(t))
			cause := errors.New("iteration over")
			var pid int
			res, err := s.Exec(ctx, sandbox.Exec{Argv: sh(tt.script), OnLine: func(l []byte) {
				pid = atoi(t, string(l))
				cancel(cause)
			}})
			if !errors.Is(err, cause) {
				t.Fatalf("Exec error = %v, want one wrapping %v", err, cause)
			}
			if res.ExitCode != tt.wantCode || !res.Signaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want %d, true", res.ExitCode, res.Signaled, tt.wantCode)
			}
			requireGone(t, pid)
		})
	}
}

func TestExecNotStartedWhenContextDone(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("stop")
	cancel(cause)
	_, err := s.Exec(ctx, sandbox.Exec{Argv: sh(`touch started`)})
	if !errors.Is(err, cause) {
		t.Errorf("Exec error = %v, want one wrapping %v", err, cause)
	}
	if _, err := os.Stat(filepath.Join(s.RepoDir(), "started")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("process ran (stat: %v)", err)
	}
}

func TestExecReturnsWhenBackgroundChildHoldsStdout(t *testing.T) {
	tests := []struct {
		name    string
		script  string // prints the pid of a background process that keeps stdout open, then exits 0
		escapes bool   // the process leaves Exec's process group
	}{
		{name: "child_in_group_is_killed", script: `sleep 300 & echo $!`},
		// The leader exits only once the child has left the group, so no group kill can reach it.
		{name: "child_escaping_group_is_abandoned", script: `setsid sh -c 'touch "$M"; exec sleep 300' & while [ ! -e "$M" ]; do sleep 0.01; done; echo $!`, escapes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onLine, lines := collect()
			env := map[string]string{"M": filepath.Join(t.TempDir(), "escaped")}
			res, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: sh(tt.script), Env: env, OnLine: onLine})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			got := lines()
			if len(got) != 1 {
				t.Fatalf("lines = %q, want one pid", got)
			}
			pid := atoi(t, got[0])
			if pid > 0 {
				t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			}
			if res.ExitCode != 0 || res.Signaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want 0, false", res.ExitCode, res.Signaled)
			}
			if tt.escapes {
				if !alive(pid) {
					t.Errorf("process %d did not escape the group; the test proves nothing", pid)
				}
			} else {
				requireGone(t, pid)
			}
		})
	}
}

func TestExecReadsAllTheLeaderWroteHoweverSlowOnLine(t *testing.T) {
	s := newSandbox(t)
	s.DrainWindow = time.Millisecond
	fifo := filepath.Join(t.TempDir(), "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	leader := make(chan int, 1)
	resume := make(chan struct{})
	onLine, lines := collect()
	count := 0 // OnLine runs on one goroutine
	done := make(chan error, 1)
	go func() {
		// After its pid the leader writes 1000 lines of 50 bytes: more than one read, less than a
		// pipe holds, so it exits while OnLine is still busy with the first line.
		_, err := s.Exec(ctx, sandbox.Exec{
			Argv: sh(`echo $$; read x < "$FIFO"; i=0; while [ $i -lt 1000 ]; do printf 'line %-44d\n' $i; i=$((i+1)); done`),
			Env:  map[string]string{"FIFO": fifo},
			OnLine: func(l []byte) {
				onLine(l)
				count++
				switch count {
				case 1:
					leader <- atoi(t, string(l))
					<-resume
				case 2:
					time.Sleep(20 * s.DrainWindow) // be slow once the drain window has started
				}
			},
		})
		done <- err
	}()
	var pid int
	select {
	case pid = <-leader:
	case <-ctx.Done():
		t.Fatal("first line not delivered")
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	requireGone(t, pid)
	close(resume)
	if err := <-done; err != nil {
		t.Fatalf("Exec: %v", err)
	}
	got := lines()
	if want := fmt.Sprintf("line %-44d", 999); len(got) != 1001 || got[1000] != want {
		t.Errorf("got %d lines ending %q, want 1001 ending %q", len(got), got[len(got)-1], want)
	}
}

func TestExecKillsLeftoverBackgroundChildren(t *testing.T) {
	onLine, lines := collect()
	_, err := newSandbox(t).Exec(bounded(t), sandbox.Exec{Argv: sh(`sleep 300 >/dev/null 2>&1 & echo $!`), OnLine: onLine})
	if err != nil {
		t.Fatalf("Exec: %v", err)
	}
	requireGone(t, atoi(t, lines()[0]))
}

func TestCloseStopsRunningExecs(t *testing.T) {
	s := newSandbox(t)
	ctx := bounded(t)
	const n = 3
	pids := make(chan int, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			res, err := s.Exec(ctx, sandbox.Exec{Argv: sh(`sleep 300 & echo $!; wait`), OnLine: func(l []byte) {
				pids <- atoi(t, string(l))
			}})
			if err == nil && !res.Signaled {
				err = fmt.Errorf("result %+v is not signaled", res)
			}
			errs <- err
		}()
	}
	var started []int
	for range n {
		select {
		case pid := <-pids:
			started = append(started, pid)
		case <-ctx.Done():
			t.Fatal("processes did not start")
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range n {
		if err := <-errs; !errors.Is(err, sandbox.ErrClosed) {
			t.Errorf("Exec error = %v, want one wrapping ErrClosed", err)
		}
	}
	for _, pid := range started {
		requireGone(t, pid)
	}
	if _, err := s.Exec(ctx, sandbox.Exec{Argv: sh(`true`)}); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Exec after Close error = %v, want one wrapping ErrClosed", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestExecConcurrent(t *testing.T) {
	s := newSandbox(t)
	ctx := bounded(t)
	const n = 8
	var wg sync.WaitGroup
	got := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			in := strings.Repeat(strconv.Itoa(i), 100<<10)
			onLine, lines := collect()
			_, errs[i] = s.Exec(ctx, sandbox.Exec{
				Argv:   sh(`echo "$N"; cat; echo`),
				Env:    map[string]string{"N": strconv.Itoa(i)},
				Stdin:  in,
				OnLine: onLine,
			})
			if l := lines(); len(l) == 2 && l[1] == in {
				got[i] = l[0]
			}
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Exec %d: %v", i, errs[i])
		}
		if want := strconv.Itoa(i); got[i] != want {
			t.Errorf("Exec %d: first line %q, want %q (and its own stdin echoed)", i, got[i], want)
		}
	}
}

func TestExecStartErrors(t *testing.T) {
	s := newSandbox(t)
	if _, err := s.Exec(t.Context(), sandbox.Exec{}); err == nil {
		t.Error("Exec with empty argv: want an error")
	}
	_, err := s.Exec(t.Context(), sandbox.Exec{Argv: []string{"sandcastle-no-such-program"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Exec of a missing program error = %v, want one wrapping exec.ErrNotFound", err)
	}
	if err != nil && !strings.Contains(err.Error(), `"sandcastle-no-such-program"`) {
		t.Errorf("error %q does not name the program", err)
	}
}
