package docker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// testImage is the base image the machine's provisioning creates (see DESIGN.md): nothing is
// pulled in tests.
const testImage = testkit.BaseImage

// liveness bounds how long a test waits for something that must happen, so that a broken
// implementation fails instead of hanging. It is never what a test asserts.
const liveness = 60 * time.Second

// requireDocker returns an engine with the test image, through testkit's rule: skip on a
// machine without Docker, fail under CI=true.
func requireDocker(t testing.TB) *Engine {
	t.Helper()
	testkit.RequireDocker(t)
	testkit.RequireImage(t, testImage)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	e, err := New(ctx)
	if err != nil {
		t.Fatalf("Docker answers a ping but New fails: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// testUser is the container user: ours, unless we are root.
func testUser() (uid, gid int) {
	uid, gid = os.Getuid(), os.Getgid()
	if uid == 0 {
		return 1000, 1000
	}
	return uid, gid
}

// hostDir returns a temporary directory that the container user can write.
func hostDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testOptions are the options of a test sandbox with dir bound at Workspace.
func testOptions(t *testing.T, dir string) Options {
	uid, gid := testUser()
	return Options{
		Image:  testImage,
		User:   fmt.Sprintf("%d:%d", uid, gid),
		Run:    "test-" + randomHex(4),
		Repo:   dir,
		Mounts: []Mount{{Source: dir, Target: Workspace}},
		Env:    map[string]string{"SANDBOX_VAR": "from options"},
		Labels: map[string]string{"sandcastle.test": t.Name()},
	}
}

// start starts a sandbox with short waits and closes it when the test ends.
func start(t *testing.T, e *Engine, o Options) *Sandbox {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), liveness)
	defer cancel()
	s, err := e.Start(ctx, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	// Short waits keep the tests fast; no assertion depends on them.
	s.KillGrace = 100 * time.Millisecond
	s.DrainWindow = liveness
	return s
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
			lines = append(lines, string(l))
			mu.Unlock()
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(lines)
		}
}

// mustExec runs e and fails the test on an error.
func mustExec(t *testing.T, s *Sandbox, e sandbox.Exec) sandbox.Result {
	t.Helper()
	res, err := s.Exec(bounded(t), e)
	if err != nil {
		t.Fatalf("Exec %q: %v", e.Argv, err)
	}
	return res
}

// requireGone fails the test when a process in the sandbox still runs; a zombie counts as gone.
func requireGone(t *testing.T, s *Sandbox, pids ...string) {
	t.Helper()
	res := mustExec(t, s, sandbox.Exec{Argv: append(sh(`for p; do
		st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] || echo "$p is alive ($st)"
	done`+"\n"), append([]string{"sh"}, pids...)...)})
	if res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("processes %v: exit %d: %s%s", pids, res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestSandbox(t *testing.T) {
	e := requireDocker(t)
	dir := hostDir(t)
	s := start(t, e, testOptions(t, dir))

	t.Run("streams_lines_as_they_arrive", func(t *testing.T) {
		fifo := filepath.Join(dir, "release")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
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
			// The script cannot print "two" before the test has seen "one": only then is the
			// fifo opened for writing.
			res, err := s.Exec(ctx, sandbox.Exec{
				Argv: sh(`echo one; read x < "$FIFO"; echo "two $x"`),
				Env:  map[string]string{"FIFO": Workspace + "/release"},
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
	})

	t.Run("stdout_lines", func(t *testing.T) {
		onLine, lines := collect()
		mustExec(t, s, sandbox.Exec{Argv: sh(`printf 'a\n\nb\r\nlast'; printf 'err\n' >&2`), OnLine: onLine})
		if got, want := lines(), []string{"a", "", "b\r", "last"}; !slices.Equal(got, want) {
			t.Errorf("lines = %q, want %q", got, want)
		}
	})

	t.Run("slow_online_gets_all_output", func(t *testing.T) {
		// The process exits long before a slow consumer has read what it wrote.
		n, last := 0, ""
		mustExec(t, s, sandbox.Exec{Argv: sh(`head -c 2000000 /dev/zero | tr '\0' x | fold -w 8000; echo; echo last`), OnLine: func(l []byte) {
			n, last = n+1, string(l)
			time.Sleep(10 * time.Millisecond)
		}})
		if n != 251 || last != "last" {
			t.Errorf("got %d lines ending with %.10q, want 251 ending with \"last\"", n, last)
		}
	})

	t.Run("stdout_and_stderr_collected_apart", func(t *testing.T) {
		res := mustExec(t, s, sandbox.Exec{Argv: sh(`echo out; echo err >&2; echo out2`)})
		if got, want := res.Stdout, "out\nout2\n"; got != want {
			t.Errorf("Stdout = %q, want %q", got, want)
		}
		if got, want := res.Stderr, "err\n"; got != want {
			t.Errorf("Stderr = %q, want %q", got, want)
		}
	})

	t.Run("stderr_tail", func(t *testing.T) {
		res := mustExec(t, s, sandbox.Exec{Argv: sh(`head -c 100000 /dev/zero | tr '\0' x >&2; printf END >&2`)})
		if got, want := len(res.Stderr), sandbox.StderrTail; got != want {
			t.Errorf("len(Stderr) = %d, want %d", got, want)
		}
		if !strings.HasSuffix(res.Stderr, "xxEND") {
			t.Errorf("Stderr ends %q, want the end of the stream", res.Stderr[max(0, len(res.Stderr)-10):])
		}
	})

	t.Run("exit_status", func(t *testing.T) {
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
				res := mustExec(t, s, sandbox.Exec{Argv: tt.argv})
				if res.ExitCode != tt.wantCode || res.Signaled != tt.wantSignaled {
					t.Errorf("ExitCode, Signaled = %d, %v; want %d, %v (stderr %q)", res.ExitCode, res.Signaled, tt.wantCode, tt.wantSignaled, res.Stderr)
				}
			})
		}
	})

	t.Run("stdin", func(t *testing.T) {
		big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than any pipe buffer
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
	})

	t.Run("environment", func(t *testing.T) {
		res := mustExec(t, s, sandbox.Exec{Argv: []string{"env"}, Env: map[string]string{"EXEC_VAR": "x y", "SANDBOX_VAR": "overridden"}})
		got := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		slices.Sort(got)
		// HOSTNAME is Docker's; PWD is set by the shells of the exec wrapper.
		want := []string{
			"EXEC_VAR=x y",
			"HOME=" + Home,
			"HOSTNAME=" + s.ID()[:12],
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"PWD=" + Workspace,
			"SANDBOX_VAR=overridden",
		}
		if !slices.Equal(got, want) {
			t.Errorf("environment =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("working_directory", func(t *testing.T) {
		mustExec(t, s, sandbox.Exec{Argv: []string{"mkdir", "-p", Home + "/other", Workspace + "/sub"}})
		tests := []struct {
			name, dir, want string
		}{
			{name: "default_is_repo_dir", dir: "", want: Workspace},
			{name: "relative_to_repo_dir", dir: "sub", want: Workspace + "/sub"},
			{name: "absolute", dir: Home + "/other", want: Home + "/other"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := mustExec(t, s, sandbox.Exec{Argv: []string{"pwd"}, Dir: tt.dir})
				if got := strings.TrimSpace(res.Stdout); got != tt.want {
					t.Errorf("pwd = %q, want %q", got, tt.want)
				}
			})
		}
		if got, want := s.RepoDir(), Workspace; got != want {
			t.Errorf("RepoDir() = %q, want %q", got, want)
		}
	})

	t.Run("start_errors", func(t *testing.T) {
		tests := []struct {
			name     string
			e        sandbox.Exec
			wantErr  string
			wantCode int
		}{
			{name: "missing_directory", e: sandbox.Exec{Argv: []string{"true"}, Dir: "/no/such/dir"}, wantErr: "cannot enter directory /no/such/dir", wantCode: 126},
			{name: "program_not_in_path", e: sandbox.Exec{Argv: []string{"no-such-program"}}, wantErr: "no-such-program: not found", wantCode: 127},
			{name: "program_not_in_exec_path", e: sandbox.Exec{Argv: []string{"true"}, Env: map[string]string{"PATH": "/nowhere"}}, wantErr: "true: not found", wantCode: 127},
			{name: "relative_path_from_dir", e: sandbox.Exec{Argv: []string{"./missing"}, Dir: "/bin"}, wantErr: "./missing: not found", wantCode: 127},
			{name: "not_executable", e: sandbox.Exec{Argv: []string{"/etc/passwd"}}, wantErr: "/etc/passwd: not found or not executable", wantCode: 127},
			{name: "empty_argv", e: sandbox.Exec{}, wantErr: "empty argv"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, err := s.Exec(bounded(t), tt.e)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Exec error = %v, want one containing %q", err, tt.wantErr)
				}
				if res.ExitCode != tt.wantCode {
					t.Errorf("ExitCode = %d, want %d", res.ExitCode, tt.wantCode)
				}
			})
		}
		if res := mustExec(t, s, sandbox.Exec{Argv: []string{"./true"}, Dir: "/bin"}); res.ExitCode != 0 {
			t.Errorf("relative program path from Dir: exit %d, %s", res.ExitCode, res.Stderr)
		}
	})

	t.Run("hardened", func(t *testing.T) {
		uid, gid := testUser()
		res := mustExec(t, s, sandbox.Exec{Argv: sh(`id -u; id -g
			grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status
			for f in /var/run/docker.sock /run/docker.sock; do [ -e "$f" ] && echo "$f exists"; done
			touch "$HOME/.written" && echo home writable
			cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null
			cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null
			cat /proc/1/cmdline | tr '\0' ' '; echo`)})
		want := fmt.Sprintf("%d\n%d\n"+
			"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"+
			"NoNewPrivs:\t1\nhome writable\n%d\n%d\n/sbin/docker-init -- sleep infinity \n", uid, gid, DefaultPidsLimit, DefaultMemory)
		if res.Stdout != want {
			t.Errorf("inside the container:\n%s\nwant\n%s", res.Stdout, want)
		}
	})

	t.Run("files_owned_by_user", func(t *testing.T) {
		mustExec(t, s, sandbox.Exec{Argv: []string{"touch", Workspace + "/owned"}})
		fi, err := os.Stat(filepath.Join(dir, "owned"))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		uid, gid := testUser()
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("file owned by %d:%d, want %d:%d", st.Uid, st.Gid, uid, gid)
		}
	})

	t.Run("cancel_kills_the_group", func(t *testing.T) {
		tests := []struct {
			name     string
			script   string // prints the pids of processes it started, then waits
			wantCode int
		}{
			{name: "sigterm_stops_children_and_grandchildren",
				script:   `sleep 300 & echo $!; sh -c 'sleep 300 & echo $!; wait' & wait`,
				wantCode: 128 + 15},
			{name: "sigkill_after_grace_for_leader_ignoring_sigterm",
				script:   `trap "" TERM; sleep 300 & echo $!; while :; do wait; done`,
				wantCode: 128 + 9},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(bounded(t))
				cause := errors.New("iteration over")
				onLine, lines := collect()
				want := strings.Count(tt.script, "echo $")
				res, err := s.Exec(ctx, sandbox.Exec{Argv: sh(tt.script), OnLine: func(l []byte) {
					onLine(l)
					if len(lines()) == want {
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
	})

	t.Run("not_started_when_context_done", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		cause := errors.New("stop")
		cancel(cause)
		_, err := s.Exec(ctx, sandbox.Exec{Argv: []string{"touch", Workspace + "/started"}})
		if !errors.Is(err, cause) {
			t.Errorf("Exec error = %v, want one wrapping %v", err, cause)
		}
		if _, err := os.Stat(filepath.Join(dir, "started")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("process ran (stat: %v)", err)
		}
	})

	t.Run("output_of_background_child_kept_within_drain_window", func(t *testing.T) {
		onLine, lines := collect()
		// The child prints only after the leader has exited: the wrapper must wait for it.
		res := mustExec(t, s, sandbox.Exec{Argv: sh(`(while [ -e /proc/$$ ]; do sleep 0.01; done; echo late) & echo early`), OnLine: onLine})
		if got, want := lines(), []string{"early", "late"}; !slices.Equal(got, want) || res.ExitCode != 0 {
			t.Errorf("lines, exit = %q, %d; want %q, 0", got, res.ExitCode, want)
		}
	})

	t.Run("concurrent_execs", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				res, err := s.Exec(bounded(t), sandbox.Exec{Argv: sh(`echo $N; exit $N`), Env: map[string]string{"N": strconv.Itoa(i)}})
				if err != nil || res.ExitCode != i || res.Stdout != fmt.Sprintln(i) {
					t.Errorf("exec %d: %+v, %v", i, res, err)
				}
			})
		}
		wg.Wait()
	})

	t.Run("self", func(t *testing.T) {
		self, ok, err := e.Self(t.Context(), s.ID()[:12])
		if err != nil || !ok {
			t.Fatalf("Self(%s) = %v, %v", s.ID()[:12], ok, err)
		}
		if self.ID != s.ID() {
			t.Errorf("ID = %s, want %s", self.ID, s.ID())
		}
		if got, ok := self.HostPath(Workspace + "/a/b"); !ok || got != filepath.Join(dir, "a/b") {
			t.Errorf("HostPath = %q, %v; want %q, true", got, ok, filepath.Join(dir, "a/b"))
		}
		for _, h := range []string{"not-a-container", "0123456789ab", s.Name()} {
			if _, ok, err := e.Self(t.Context(), h); ok || err != nil {
				t.Errorf("Self(%q) = %v, %v; want false, nil", h, ok, err)
			}
		}
	})
}

func TestBackgroundChildHoldingStdout(t *testing.T) {
	e := requireDocker(t)
	s := start(t, e, testOptions(t, hostDir(t)))
	s.DrainWindow = 100 * time.Millisecond
	tests := []struct {
		name    string
		script  string // prints the pid of a background process that keeps stdout open, then exits 0
		escapes bool   // the process leaves Exec's process group
	}{
		{name: "child_in_group_is_killed", script: `sleep 300 & echo $!`},
		// The daemon closes the streams of an exec a little after it exits, whatever holds them.
		{name: "child_escaping_group_is_abandoned", script: `setsid sh -c 'touch /tmp/escaped; exec sleep 301' & while [ ! -e /tmp/escaped ]; do sleep 0.01; done; echo $!`, escapes: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onLine, lines := collect()
			res := mustExec(t, s, sandbox.Exec{Argv: sh(tt.script), OnLine: onLine})
			got := lines()
			if len(got) != 1 {
				t.Fatalf("lines = %q, want one pid", got)
			}
			if res.ExitCode != 0 || res.Signaled {
				t.Errorf("ExitCode, Signaled = %d, %v; want 0, false", res.ExitCode, res.Signaled)
			}
			if !tt.escapes {
				requireGone(t, s, got[0])
				return
			}
			// Asked of the daemon, not with an exec, which the escaped process would delay.
			top, err := e.api.ContainerTop(t.Context(), s.ID(), client.ContainerTopOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(top.Processes, func(p []string) bool { return p[len(p)-1] == "sleep 301" }) {
				t.Errorf("the child did not escape the group, the test proves nothing: processes %q", top.Processes)
			}
		})
	}
}

func TestClose(t *testing.T) {
	e := requireDocker(t)
	s, err := e.Start(bounded(t), testOptions(t, hostDir(t)))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	s.KillGrace = 100 * time.Millisecond
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Exec(bounded(t), sandbox.Exec{Argv: sh(`echo started; trap "" TERM; while :; do sleep 1; done`), OnLine: func([]byte) { close(started) }})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // cleanup gets an ended context, and must still remove the container
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("running Exec returned %v, want ErrClosed", err)
	}
	if _, err := e.api.ContainerInspect(t.Context(), s.ID(), client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("container after Close: inspect error %v, want not found", err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Exec(t.Context(), sandbox.Exec{Argv: []string{"true"}}); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Exec after Close: %v, want ErrClosed", err)
	}
}

func TestStartRemovesContainerWhenStartFails(t *testing.T) {
	e := requireDocker(t)
	o := testOptions(t, hostDir(t))
	o.Name = "sandcastle-test-" + randomHex(4)
	o.Devices = []string{"/dev/no-such-device"}
	if _, err := e.Start(bounded(t), o); err == nil {
		t.Fatal("Start with a missing device succeeded")
	}
	if _, err := e.api.ContainerInspect(t.Context(), o.Name, client.ContainerInspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("container after failed Start: inspect error %v, want not found", err)
	}
}

func TestSweep(t *testing.T) {
	e := requireDocker(t)
	dir := hostDir(t)
	dead := testOptions(t, dir)
	dead.Owner = "gone"
	leftover := start(t, e, dead)
	alive := testOptions(t, dir)
	alive.Owner = "running"
	running := start(t, e, alive)                        // a run still going on the same repository
	unrelated := start(t, e, testOptions(t, hostDir(t))) // another repository's
	isDead := func(owner string) bool { return owner == "gone" }

	n, err := e.Sweep(t.Context(), dir, isDead)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1, nil", n, err)
	}
	for _, c := range []struct {
		s    *Sandbox
		gone bool
	}{{leftover, true}, {running, false}, {unrelated, false}} {
		_, err := e.api.ContainerInspect(t.Context(), c.s.ID(), client.ContainerInspectOptions{})
		if gone := cerrdefs.IsNotFound(err); gone != c.gone {
			t.Errorf("container %s: removed = %v (%v), want %v", c.s.Name(), gone, err, c.gone)
		}
	}
	if n, err := e.Sweep(t.Context(), dir, isDead); err != nil || n != 0 {
		t.Errorf("second Sweep = %d, %v; want 0, nil", n, err)
	}
}

func TestOptionsCheck(t *testing.T) {
	sockets := []string{"/var/run/docker.sock", "/run/docker.sock", "/home/u/.docker/run/docker.sock"}
	valid := Options{Image: "i", User: "1000:1000", WorkDir: Workspace}
	tests := []struct {
		name   string
		change func(*Options)
		want   string // in the error; "" = valid
	}{
		{name: "valid", change: func(*Options) {}},
		{name: "root_allowed", change: func(o *Options) { o.User, o.AllowRoot = "0:0", true }},
		{name: "no_image", change: func(o *Options) { o.Image = "" }, want: "no image"},
		{name: "root_refused", change: func(o *Options) { o.User = "0:0" }, want: "is root"},
		{name: "user_name_refused", change: func(o *Options) { o.User = "root" }, want: "numeric uid:gid"},
		{name: "user_without_group_refused", change: func(o *Options) { o.User = "1000" }, want: "numeric uid:gid"},
		{name: "docker_socket_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/run/docker.sock", Target: "/s"}} }, want: "Docker socket"},
		{name: "renamed_socket_dir_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/run", Target: "/r"}} }, want: "Docker socket"},
		{name: "root_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/", Target: "/host"}} }, want: "Docker socket"},
		{name: "rootless_socket_parent", change: func(o *Options) { o.Mounts = []Mount{{Source: "/home/u/.docker", Target: "/d"}} }, want: "Docker socket"},
		{name: "socket_by_name", change: func(o *Options) { o.Mounts = []Mount{{Source: "/srv/docker.sock", Target: "/s"}} }, want: "Docker socket"},
		{name: "unrelated_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "/var/runner", Target: "/r"}} }},
		{name: "relative_mount", change: func(o *Options) { o.Mounts = []Mount{{Source: "src", Target: "/t"}} }, want: "absolute"},
		{name: "selinux_label", change: func(o *Options) { o.SELinuxLabel = "Z" }},
		{name: "bad_selinux_label", change: func(o *Options) { o.SELinuxLabel = "y" }, want: "SELinux"},
		{name: "device", change: func(o *Options) { o.Devices = []string{"/dev/fuse:/dev/fuse:rw"} }},
		{name: "bad_device", change: func(o *Options) { o.Devices = []string{"/dev/fuse:/dev/fuse:rwx"} }, want: "device"},
		{name: "relative_workdir", change: func(o *Options) { o.WorkDir = "w" }, want: "not absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid
			tt.change(&o)
			_, _, err := o.check(sockets)
			if tt.want == "" && err != nil {
				t.Errorf("check: %v, want nil", err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	o := Options{
		Image: "img", User: "1000:100", Run: "r1", Repo: "/repo", WorkDir: Workspace,
		Env:    map[string]string{"B": "2", "A": "1", "HOME": "/root"},
		Labels: map[string]string{"extra": "x", LabelRun: "spoofed"},
		Mounts: []Mount{{Source: "/src", Target: "/dst", ReadOnly: true}},
	}
	cfg, host := o.config(1000, 100)
	if got, want := cfg.Env, []string{"A=1", "B=2", "HOME=" + Home}; !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got, want := cfg.Entrypoint, []string{"sleep", "infinity"}; !slices.Equal(got, want) {
		t.Errorf("Entrypoint = %q, want %q", got, want)
	}
	if got, want := cfg.Labels, map[string]string{"extra": "x", LabelRun: "r1", LabelRepo: repoKey("/repo")}; !maps.Equal(got, want) {
		t.Errorf("Labels = %v, want %v", got, want)
	}
	if cfg.User != "1000:100" || cfg.WorkingDir != Workspace {
		t.Errorf("User, WorkingDir = %q, %q", cfg.User, cfg.WorkingDir)
	}
	if !slices.Equal(host.CapDrop, []string{"ALL"}) || !slices.Equal(host.SecurityOpt, []string{"no-new-privileges"}) ||
		host.Init == nil || !*host.Init || host.Privileged || len(host.CapAdd) > 0 {
		t.Errorf("hardening: CapDrop %q, SecurityOpt %q, Init %v, Privileged %v, CapAdd %q", host.CapDrop, host.SecurityOpt, host.Init, host.Privileged, host.CapAdd)
	}
	if host.Memory != DefaultMemory || host.PidsLimit == nil || *host.PidsLimit != DefaultPidsLimit || host.NanoCPUs != 0 {
		t.Errorf("Memory, PidsLimit, NanoCPUs = %d, %v, %d; want defaults", host.Memory, host.PidsLimit, host.NanoCPUs)
	}
	if got, want := host.Tmpfs[Home], "uid=1000,gid=100,mode=0755,exec"; got != want {
		t.Errorf("HOME tmpfs = %q, want %q", got, want)
	}
	if len(host.Mounts) != 1 || host.Mounts[0].Source != "/src" || !host.Mounts[0].ReadOnly || len(host.Binds) != 0 {
		t.Errorf("Mounts, Binds = %+v, %q", host.Mounts, host.Binds)
	}

	o.SELinuxLabel, o.ImageHome, o.Memory, o.PidsLimit, o.CPUs = "z", true, -1, -1, 1.5
	_, host = o.config(1000, 100)
	if got, want := host.Binds, []string{"/src:/dst:ro,z"}; !slices.Equal(got, want) || len(host.Mounts) != 0 {
		t.Errorf("Binds = %q, want %q (and no Mounts: %+v)", got, want, host.Mounts)
	}
	if _, ok := host.Tmpfs[Home]; ok {
		t.Errorf("HOME tmpfs mounted with ImageHome")
	}
	if host.Memory != 0 || *host.PidsLimit != -1 || host.NanoCPUs != 1_500_000_000 {
		t.Errorf("Memory, PidsLimit, NanoCPUs = %d, %d, %d; want unlimited, unlimited, 1.5e9", host.Memory, *host.PidsLimit, host.NanoCPUs)
	}
}

func TestNewFailsClearlyWithoutDaemon(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	_, err := New(t.Context())
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Docker daemon at unix://") {
		t.Errorf("New: %v, want an error saying the daemon cannot be reached", err)
	}
}

func TestSelfHostPath(t *testing.T) {
	self := Self{Mounts: map[string]string{
		"/github/workspace":      "/srv/runner/checkout/repo",
		"/github/workspace/deep": "/elsewhere",
	}}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{in: "/github/workspace", want: "/srv/runner/checkout/repo", ok: true},
		{in: "/github/workspace/a/b", want: "/srv/runner/checkout/repo/a/b", ok: true},
		{in: "/github/workspace/deep/x", want: "/elsewhere/x", ok: true},
		{in: "/github/workspace2", ok: false},
		{in: "/tmp", ok: false},
	}
	for _, tt := range tests {
		got, ok := self.HostPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("HostPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
