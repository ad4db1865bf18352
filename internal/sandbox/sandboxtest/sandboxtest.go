package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// Options are what Run asks of a sandbox it makes.
type Options struct {
	// Env holds variables every process in the sandbox sees, unless an Exec sets its own.
	Env map[string]string
	// DrainWindow is how long an Exec waits, once its process has exited, for what the process
	// started (its process group) to finish and release its output.
	DrainWindow time.Duration
}

// NewSandbox makes an open sandbox with o, whose RepoDir the sandbox's user may write, whose
// KillGrace is short (a tenth of a second, say: no assertion depends on it), and which is closed
// when t ends.
type NewSandbox func(t *testing.T, o Options) sandbox.Sandbox

// liveness bounds how long a test waits for something that must happen, so that a broken
// implementation fails instead of hanging. It is never what a test asserts.
const liveness = 60 * time.Second

// shortDrain is the drain window of the sandbox whose Execs leave processes behind.
const shortDrain = 100 * time.Millisecond

// sandboxVar is the variable Run asks every sandbox to hold.
const sandboxVar, sandboxValue = "SANDBOXTEST_VAR", "from the sandbox"

// Run tests the sandbox.Sandbox contract against sandboxes made by newSandbox: three of them,
// one for most cases, one with a short drain window for Execs that leave processes behind, and
// one to close.
func Run(t *testing.T, newSandbox NewSandbox) {
	s := newSandbox(t, Options{Env: map[string]string{sandboxVar: sandboxValue}, DrainWindow: liveness})
	cases := []struct {
		name string
		test func(*testing.T, sandbox.Sandbox)
	}{
		{"streams_lines_as_they_arrive", testStreamsLines},
		{"stdout_lines", testStdoutLines},
		{"stdout_collected_without_online", testStdoutCollected},
		{"stderr_tail", testStderrTail},
		{"exit_status", testExitStatus},
		{"stdin", testStdin},
		{"environment", testEnvironment},
		{"working_directory", testWorkingDirectory},
		{"start_errors", testStartErrors},
		{"cancel_kills_the_group", testCancel},
		{"not_started_when_context_done", testNotStarted},
		{"output_of_background_child_kept_within_drain_window", testDrainKeepsOutput},
		{"concurrent_execs", testConcurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.test(t, s) })
	}

	quick := newSandbox(t, Options{DrainWindow: shortDrain})
	t.Run("background_child_holding_stdout", func(t *testing.T) { testBackgroundHoldingStdout(t, quick) })
	t.Run("leftover_background_children_killed", func(t *testing.T) { testLeftoverKilled(t, quick) })
	t.Run("slow_online_gets_all_the_leader_wrote", func(t *testing.T) { testSlowOnLine(t, quick) })

	t.Run("close_stops_running_execs", func(t *testing.T) {
		testClose(t, newSandbox(t, Options{DrainWindow: shortDrain}))
	})
}

func testStreamsLines(t *testing.T, s sandbox.Sandbox) {
	fifo := s.RepoDir() + "/streams.fifo"
	mustExec(t, s, sandbox.Exec{Argv: []string{"mkfifo", fifo}})
	ctx := bounded(t)
	onLine, lines := collect()
	first := make(chan struct{}, 1)
	type outcome struct {
		res sandbox.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// The script cannot print "two" before the test has seen "one": only then is the fifo
		// opened for writing.
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
	mustExec(t, s, sandbox.Exec{Argv: sh(`echo released > "$FIFO"`), Env: map[string]string{"FIFO": fifo}})
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

// xs prints n bytes of 'x', then a newline and "after".
func xs(n int) string {
	return fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x; echo; echo after`, n)
}

func testStdoutLines(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{name: "partial_last_line_and_carriage_return", script: `printf 'a\n\nb\r\nlast'; printf 'err\n' >&2`, want: []string{"a", "", "b\r", "last"}},
		{name: "no_output", script: `true`, want: nil},
		{name: "long_line_intact", script: xs(1 << 20), want: []string{strings.Repeat("x", 1<<20), "after"}},
		{name: "very_long_line_cut", script: xs(stream.MaxOutput + 1<<20), want: []string{strings.Repeat("x", stream.MaxOutput), "after"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onLine, lines := collect()
			mustExec(t, s, sandbox.Exec{Argv: sh(tt.script), OnLine: onLine})
			got := lines()
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines %.40q, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got[i]), got[i], len(tt.want[i]), tt.want[i])
				}
			}
		})
	}
}

func testStdoutCollected(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name       string
		script     string
		wantLen    int // of Stdout
		wantEnd    string
		wantStderr string
	}{
		{name: "small", script: `printf 'a\nb'`, wantLen: 3, wantEnd: "a\nb"},
		{name: "apart_from_stderr", script: `echo out; echo err >&2; echo out2`, wantLen: 9, wantEnd: "out\nout2\n", wantStderr: "err\n"},
		{name: "capped", script: fmt.Sprintf(`head -c %d /dev/zero | tr '\0' x`, stream.MaxOutput+1<<20), wantLen: stream.MaxOutput, wantEnd: "xxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustExec(t, s, sandbox.Exec{Argv: sh(tt.script)})
			if got := len(res.Stdout); got != tt.wantLen {
				t.Errorf("len(Stdout) = %d, want %d", got, tt.wantLen)
			}
			if !strings.HasSuffix(res.Stdout, tt.wantEnd) {
				t.Errorf("Stdout ends %q, want suffix %q", res.Stdout[max(0, len(res.Stdout)-10):], tt.wantEnd)
			}
			if res.Stderr != tt.wantStderr {
				t.Errorf("Stderr = %q, want %q", res.Stderr, tt.wantStderr)
			}
		})
	}
}

func testStderrTail(t *testing.T, s sandbox.Sandbox) {
	const n = 12000 // lines of 19 bytes: more than three times the tail
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "stderr line %06d\n", i)
	}
	res := mustExec(t, s, sandbox.Exec{Argv: sh(fmt.Sprintf(`i=0; while [ $i -lt %d ]; do printf 'stderr line %%06d\n' $i; i=$((i+1)); done >&2`, n))})
	if got, want := len(res.Stderr), sandbox.StderrTail; got != want {
		t.Errorf("len(Stderr) = %d, want %d", got, want)
	}
	if w := want.String(); res.Stderr != w[len(w)-sandbox.StderrTail:] {
		t.Errorf("Stderr is not the last %d bytes written; it ends %q", sandbox.StderrTail, res.Stderr[max(0, len(res.Stderr)-20):])
	}
}

func testExitStatus(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name         string
		argv         []string
		wantCode     int
		wantSignaled bool
	}{
		{name: "success", argv: sh(`exit 0`), wantCode: 0},
		{name: "failure", argv: sh(`exit 3`), wantCode: 3},
		{name: "killed_by_sigkill", argv: sh(`kill -KILL $$`), wantCode: 128 + 9, wantSignaled: true},
		{name: "killed_by_sigterm", argv: sh(`kill -TERM $$`), wantCode: 128 + 15, wantSignaled: true},
		{name: "argv_not_through_a_shell", argv: []string{"test", "a b", "=", "a b"}, wantCode: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Exec(bounded(t), sandbox.Exec{Argv: tt.argv})
			if err != nil {
				t.Fatalf("Exec: %v (a non-zero exit is a result, not an error)", err)
			}
			if res.ExitCode != tt.wantCode || res.Signaled != tt.wantSignaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want %d, %v (stderr %q)", res.ExitCode, res.Signaled, tt.wantCode, tt.wantSignaled, res.Stderr)
			}
		})
	}
}

func testStdin(t *testing.T, s sandbox.Sandbox) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than any pipe buffer, both ways
	tests := []struct {
		name, stdin, script, want string
	}{
		{name: "written_then_closed", stdin: "hello\nworld", script: `cat`, want: "hello\nworld"},
		{name: "larger_than_pipe_buffers", stdin: big, script: `cat`, want: big},
		{name: "unread_input_does_not_block", stdin: big, script: `echo ignored`, want: "ignored\n"},
		{name: "none_is_eof", script: `cat; echo eof`, want: "eof\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustExec(t, s, sandbox.Exec{Argv: sh(tt.script), Stdin: tt.stdin})
			if res.Stdout != tt.want {
				t.Errorf("Stdout = %.40q (%d bytes), want %.40q (%d bytes)", res.Stdout, len(res.Stdout), tt.want, len(tt.want))
			}
		})
	}
}

func testEnvironment(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "the_sandbox_env", want: sandboxValue + " - -\n"},
		{name: "exec_env_overrides_and_adds", env: map[string]string{sandboxVar: "overridden", "EXEC_VAR": "x y"}, want: "overridden x y -\n"},
		{name: "no_earlier_exec_env", want: sandboxValue + " - -\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustExec(t, s, sandbox.Exec{Argv: sh(`echo "$` + sandboxVar + ` ${EXEC_VAR--} ${SANDBOXTEST_UNSET--}"`), Env: tt.env})
			if res.Stdout != tt.want {
				t.Errorf("Stdout = %q, want %q", res.Stdout, tt.want)
			}
		})
	}
}

func testWorkingDirectory(t *testing.T, s sandbox.Sandbox) {
	repo := strings.TrimSpace(mustExec(t, s, sandbox.Exec{Argv: []string{"pwd", "-P"}, Dir: s.RepoDir()}).Stdout)
	mustExec(t, s, sandbox.Exec{Argv: sh(`mkdir -p sub && printf '#!/bin/sh\necho ran in "$(pwd -P)"\n' > run.sh && chmod +x run.sh`)})
	tests := []struct {
		name string
		argv []string
		dir  string
		want string
	}{
		{name: "default_is_repo_dir", argv: []string{"pwd", "-P"}, want: repo},
		{name: "relative_to_repo_dir", argv: []string{"pwd", "-P"}, dir: "sub", want: repo + "/sub"},
		{name: "absolute", argv: []string{"pwd", "-P"}, dir: "/", want: "/"},
		{name: "relative_program_from_dir", argv: []string{"./run.sh"}, want: "ran in " + repo},
		{name: "relative_program_from_relative_dir", argv: []string{"../run.sh"}, dir: "sub", want: "ran in " + repo + "/sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustExec(t, s, sandbox.Exec{Argv: tt.argv, Dir: tt.dir})
			if got := strings.TrimSpace(res.Stdout); got != tt.want || res.ExitCode != 0 {
				t.Errorf("Stdout, ExitCode = %q, %d; want %q, 0 (stderr %q)", got, res.ExitCode, tt.want, res.Stderr)
			}
		})
	}
}

func testStartErrors(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name    string
		e       sandbox.Exec
		wantErr string // in the error, besides the program's name; "" = any error
	}{
		{name: "empty_argv", e: sandbox.Exec{}, wantErr: "exec: empty argv"},
		{name: "program_not_in_path", e: sandbox.Exec{Argv: []string{"sandcastle-no-such-program"}}, wantErr: "not found"},
		{name: "program_not_in_exec_path", e: sandbox.Exec{Argv: []string{"true"}, Env: map[string]string{"PATH": "/nowhere"}}, wantErr: "not found"},
		{name: "missing_directory", e: sandbox.Exec{Argv: []string{"true"}, Dir: "/no/such/dir"}, wantErr: "/no/such/dir"},
		{name: "relative_path_from_dir", e: sandbox.Exec{Argv: []string{"./missing"}, Dir: "/"}},
		{name: "not_executable", e: sandbox.Exec{Argv: []string{"/etc/passwd"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Exec(bounded(t), tt.e)
			if err == nil {
				t.Fatalf("Exec(%q) succeeded, want an error", tt.e.Argv)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Exec error = %v, want one containing %q", err, tt.wantErr)
			}
			if len(tt.e.Argv) > 0 && !strings.Contains(err.Error(), strconv.Quote(tt.e.Argv[0])) {
				t.Errorf("Exec error = %v, want it to name the program %q", err, tt.e.Argv[0])
			}
		})
	}
}

func testCancel(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name     string
		script   string // prints the pids of processes it started, then waits
		pids     int
		wantCode int
	}{
		{name: "sigterm_stops_children_and_grandchildren",
			script: `sleep 300 & echo $!; sh -c 'sleep 300 & echo $!; wait' & wait`, pids: 2, wantCode: 128 + 15},
		// The child prints its pid only once it ignores SIGTERM.
		{name: "sigkill_after_grace_for_child_ignoring_sigterm",
			script: `sh -c 'trap "" TERM; echo $$; sleep 300; :' & wait`, pids: 1, wantCode: 128 + 15},
		{name: "sigkill_after_grace_for_leader_ignoring_sigterm",
			script: `trap "" TERM; sleep 300 & echo $!; while :; do wait; done`, pids: 1, wantCode: 128 + 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(bounded(t))
			cause := errors.New("iteration over")
			onLine, lines := collect()
			res, err := s.Exec(ctx, sandbox.Exec{Argv: sh(tt.script), OnLine: func(l []byte) {
				onLine(l)
				if len(lines()) == tt.pids {
					cancel(cause)
				}
			}})
			if !errors.Is(err, cause) {
				t.Fatalf("Exec error = %v, want one wrapping %v", err, cause)
			}
			if res.ExitCode != tt.wantCode || !res.Signaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want %d, true", res.ExitCode, res.Signaled, tt.wantCode)
			}
			requireGone(t, s, lines()...)
		})
	}
}

func testNotStarted(t *testing.T, s sandbox.Sandbox) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("stop")
	cancel(cause)
	if _, err := s.Exec(ctx, sandbox.Exec{Argv: []string{"touch", "not-started"}}); !errors.Is(err, cause) {
		t.Errorf("Exec error = %v, want one wrapping %v", err, cause)
	}
	if res := mustExec(t, s, sandbox.Exec{Argv: sh(`[ ! -e not-started ]`)}); res.ExitCode != 0 {
		t.Error("the process ran")
	}
}

func testDrainKeepsOutput(t *testing.T, s sandbox.Sandbox) {
	onLine, lines := collect()
	// The child prints only after the leader has exited (it may stay a zombie until Exec
	// returns): Exec must wait for it.
	res := mustExec(t, s, sandbox.Exec{Argv: sh(`(while st=$(cut -d' ' -f3 /proc/$$/stat 2>/dev/null) && [ "$st" != Z ]; do sleep 0.01; done; echo late) & echo early`), OnLine: onLine})
	if got, want := lines(), []string{"early", "late"}; !slices.Equal(got, want) || res.ExitCode != 0 {
		t.Errorf("lines, exit = %q, %d; want %q, 0", got, res.ExitCode, want)
	}
}

func testConcurrent(t *testing.T, s sandbox.Sandbox) {
	ctx := bounded(t)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			in := strings.Repeat(strconv.Itoa(i), 100<<10)
			onLine, lines := collect()
			res, err := s.Exec(ctx, sandbox.Exec{
				Argv:   sh(`echo "$N"; cat; echo; exit "$N"`),
				Env:    map[string]string{"N": strconv.Itoa(i)},
				Stdin:  in,
				OnLine: onLine,
			})
			if l := lines(); err != nil || res.ExitCode != i || len(l) != 2 || l[0] != strconv.Itoa(i) || l[1] != in {
				t.Errorf("Exec %d: exit %d, error %v, lines %.20q; want exit %d, its number and its own stdin", i, res.ExitCode, err, l, i)
			}
		})
	}
	wg.Wait()
}

func testBackgroundHoldingStdout(t *testing.T, s sandbox.Sandbox) {
	tests := []struct {
		name    string
		script  string // prints the pid of a background process that keeps stdout open, then exits 0
		escapes bool   // the process leaves Exec's process group
	}{
		{name: "child_in_group_is_killed", script: `sleep 300 & echo $!`},
		// The leader exits only once the child has left the group, so no group kill can reach it.
		{name: "child_escaping_group_is_abandoned", script: `rm -f escaped; setsid sh -c 'touch escaped; exec sleep 300' & while [ ! -e escaped ]; do sleep 0.01; done; echo $!`, escapes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onLine, lines := collect()
			res := mustExec(t, s, sandbox.Exec{Argv: sh(tt.script), OnLine: onLine})
			got := lines()
			if len(got) != 1 || !isPid(got[0]) {
				t.Fatalf("lines = %q, want one pid", got)
			}
			if res.ExitCode != 0 || res.Signaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want 0, false", res.ExitCode, res.Signaled)
			}
			if !tt.escapes {
				requireGone(t, s, got[0])
				return
			}
			// It still runs, and is stopped now that that is known.
			if res := mustExec(t, s, sandbox.Exec{Argv: []string{"sh", "-c", `kill -0 "$1" && kill -KILL "$1"`, "sh", got[0]}}); res.ExitCode != 0 {
				t.Errorf("process %s did not escape the group, so the test proves nothing: %s", got[0], res.Stderr)
			}
		})
	}
}

func testLeftoverKilled(t *testing.T, s sandbox.Sandbox) {
	onLine, lines := collect()
	mustExec(t, s, sandbox.Exec{Argv: sh(`sleep 300 >/dev/null 2>&1 & echo $!`), OnLine: onLine})
	requireGone(t, s, lines()...)
}

// testSlowOnLine checks that an OnLine slower than the drain window still gets all the leader
// wrote: the window bounds the wait for the process group, not the reading of output.
func testSlowOnLine(t *testing.T, s sandbox.Sandbox) {
	fifo := s.RepoDir() + "/slow.fifo"
	mustExec(t, s, sandbox.Exec{Argv: []string{"mkfifo", fifo}})
	ctx := bounded(t)
	leader := make(chan string, 1)
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
					leader <- string(l)
					<-resume
				case 2:
					time.Sleep(3 * shortDrain) // be slow once the drain window has started
				}
			},
		})
		done <- err
	}()
	var pid string
	select {
	case pid = <-leader:
	case <-ctx.Done():
		t.Fatal("first line not delivered")
	}
	mustExec(t, s, sandbox.Exec{Argv: sh(`echo go > "$FIFO"`), Env: map[string]string{"FIFO": fifo}})
	requireGone(t, s, pid)
	close(resume)
	if err := <-done; err != nil {
		t.Fatalf("Exec: %v", err)
	}
	got := lines()
	if want := fmt.Sprintf("line %-44d", 999); len(got) != 1001 || got[1000] != want {
		t.Errorf("got %d lines ending %q, want 1001 ending %q", len(got), got[len(got)-1], want)
	}
}

func testClose(t *testing.T, s sandbox.Sandbox) {
	ctx := bounded(t)
	const n = 3
	started := make(chan struct{}, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			res, err := s.Exec(ctx, sandbox.Exec{Argv: sh(`sleep 300 & echo $!; wait`), OnLine: func([]byte) {
				started <- struct{}{}
			}})
			if err != nil && !res.Signaled {
				err = fmt.Errorf("%w, and result %+v is not signaled", err, res)
			}
			errs <- err
		}()
	}
	for range n {
		select {
		case <-started:
		case <-ctx.Done():
			t.Fatal("processes did not start")
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range n {
		if err := <-errs; !errors.Is(err, sandbox.ErrClosed) {
			t.Errorf("Exec error = %v, want one wrapping sandbox.ErrClosed", err)
		}
	}
	if _, err := s.Exec(ctx, sandbox.Exec{Argv: sh(`true`)}); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Exec after Close error = %v, want one wrapping sandbox.ErrClosed", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	t.Cleanup(cancel)
	return ctx
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// collect returns an OnLine func and a func that returns the lines collected so far.
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

// mustExec runs e and fails the test on an error.
func mustExec(t *testing.T, s sandbox.Sandbox, e sandbox.Exec) sandbox.Result {
	t.Helper()
	res, err := s.Exec(bounded(t), e)
	if err != nil {
		t.Fatalf("Exec %q: %v", e.Argv, err)
	}
	return res
}

func isPid(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// gone waits, in the sandbox and within the liveness bound, until none of the processes named
// by its arguments runs (a zombie counts as gone); it prints those still running.
const gone = `n=0
while :; do
	alive=
	for p; do
		st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ] || alive="$alive $p ($st)"
	done
	[ -z "$alive" ] && exit 0
	n=$((n+1))
	[ $n -lt "$GONE_TRIES" ] || { echo "still running:$alive"; exit 1; }
	sleep 0.01
done`

// requireGone fails the test unless the processes, ids as the sandbox sees them, stop running.
func requireGone(t *testing.T, s sandbox.Sandbox, pids ...string) {
	t.Helper()
	for _, p := range pids {
		if !isPid(p) {
			t.Fatalf("want process ids, got %q", pids) // kill(0) or kill(-1) would reach far more than one process
		}
	}
	tries := strconv.Itoa(int(liveness / (10 * time.Millisecond)))
	res := mustExec(t, s, sandbox.Exec{Argv: append(sh(gone), append([]string{"sh"}, pids...)...), Env: map[string]string{"GONE_TRIES": tries}})
	if res.ExitCode != 0 {
		t.Errorf("processes %v: exit %d: %s%s", pids, res.ExitCode, res.Stdout, res.Stderr)
	}
}
