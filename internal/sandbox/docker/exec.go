package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// wrapper runs a command in a new session, and so a new process group. Its arguments: the file
// in which to record the group's id for stop; the drain window in tenths of a second; 1 when the
// Exec has input, else 0; the working directory; the command. When the command exits, the rest
// of its group has the drain window to finish (kill -0 tells whether any member is left) before
// it is killed, so that a background child holding stdout open cannot hold the Exec and nothing
// the command started outlives it. Then the wrapper reads what is left of the input: a daemon
// that closes the connection with input unread resets it, and the reset can reach our side
// before the end of the output does. The exit status is the command's; a signal shows as 128+N.
//
// setsid runs as a child of this shell: a process group leader (which docker makes the exec'd
// process) would make setsid fork, and the recorded id would not be the command's. The wrapper
// runs in / and changes directory itself, rather than through the exec's WorkingDir, because the
// daemon reports a missing one as text in the stdout stream.
const wrapper = `f=$1 n=$2 in=$3 path=$PATH
shift 3
PATH=` + toolPath + `
setsid sh -c '` + starter + `' "$f" "$path" "$@"
rc=$?
g=
{ read g <"$f"; } 2>/dev/null
if [ -n "$g" ]; then
	while [ "$n" -gt 0 ] && kill -0 "-$g" 2>/dev/null; do sleep 0.1; n=$((n-1)); done
	kill -KILL "-$g" 2>/dev/null
fi
[ "$in" = 0 ] || cat >/dev/null 2>&1
rm -f "$f"
exit $rc`

// toolPath is where the wrapper looks for setsid, sleep, cat and rm, whatever PATH the Exec gives the
// command: Docker's default PATH.
const toolPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// starter, the session leader, restores the command's PATH from $1, enters the directory $2 and
// checks that the program exists, as exec.Cmd.Start would; it reports a failure with startFailed
// on stderr, before the command could write anything. Then it records its pid, the group's id,
// in the file $0 and becomes the command. It uses no single quotes: it is quoted in wrapper.
const starter = `PATH=$1 d=$2
shift 2
cd "$d" 2>/dev/null || { echo "` + startFailed + ` cannot enter directory $d" >&2; exit 126; }
unset OLDPWD
found=$1
case $1 in
*/*) ;;
*)	found=
	IFS=:
	for p in $PATH; do
		case $p in /*) [ -f "$p/$1" ] && [ -x "$p/$1" ] && { found=$p/$1; break; };; esac
	done
	unset IFS;;
esac
[ -n "$found" ] && [ -f "$found" ] && [ -x "$found" ] || { echo "` + startFailed + ` $1: not found or not executable" >&2; exit 127; }
echo $$ >"$0" && exec "$@"`

// startFailed starts the stderr of an Exec whose command could not be started.
const startFailed = "sandcastle-exec:"

// killer sends signal $2 to the process group recorded in file $1. It exits with 3 when the group
// is not recorded (yet, or any more).
const killer = `g=
{ read g <"$1"; } 2>/dev/null
[ -n "$g" ] || exit 3
kill -"$2" "-$g" 2>/dev/null
exit 0`

// Exec runs e in the container as the container's user and waits for it and for its output to
// end (see DrainWindow). When it returns, nothing is left running in the process's group. A
// non-zero exit is reported in the Result, not as an error; a missing directory or program is an
// error, with exit code 126 or 127. When ctx ends or the sandbox is closed first, the
// group gets SIGTERM, then SIGKILL after KillGrace, and the error wraps context.Cause(ctx) or
// sandbox.ErrClosed.
//
// OnLine receives lines of at most 16 MiB (the rest of a longer line is dropped) and may keep
// them. A relative Dir is taken from RepoDir.
func (s *Sandbox) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	return s.gate.Exec(ctx, "docker sandbox "+s.name, e, func(closing <-chan struct{}) (sandbox.Result, error) {
		return s.exec(ctx, e, closing)
	})
}

// exec runs e once the gate has let it in; closing is closed when Close begins.
func (s *Sandbox) exec(ctx context.Context, e sandbox.Exec, closing <-chan struct{}) (res sandbox.Result, err error) {
	pidfile := path.Join(stateDir, randomHex(8))
	created, err := s.api.ExecCreate(ctx, s.id, s.execOptions(e, pidfile))
	if err != nil {
		if ctx.Err() != nil {
			return res, context.Cause(ctx)
		}
		return res, fmt.Errorf("create: %w", err)
	}
	// Attaching starts the process, which must then be stopped on every path: so ctx may not cut
	// the attach short, leaving a process we know nothing of.
	att, err := s.api.ExecAttach(context.WithoutCancel(ctx), created.ID, client.ExecAttachOptions{})
	if err != nil {
		return res, fmt.Errorf("start: %w", err)
	}
	p := startPipe(att.HijackedResponse, e)

	var stopErr error
	select {
	case <-p.done:
	case <-ctx.Done():
		stopErr = context.Cause(ctx)
		s.stop(ctx, pidfile, p.done)
	case <-closing:
		stopErr = sandbox.ErrClosed
		s.stop(ctx, pidfile, p.done)
	}
	ioErr := p.finish()
	if stopErr == nil && s.removing.Load() {
		// Close gave up waiting and removed the container: that is what ended the process.
		stopErr = sandbox.ErrClosed
	}
	code, err := s.exitCode(ctx, created.ID)
	if err != nil {
		return res, errors.Join(stopErr, err)
	}
	res = p.result(code)
	if msg, ok := strings.CutPrefix(res.Stderr, startFailed); ok && (code == 126 || code == 127) {
		return res, errors.Join(stopErr, errors.New(strings.TrimSpace(msg)))
	}
	return res, errors.Join(stopErr, ioErr)
}

func (s *Sandbox) execOptions(e sandbox.Exec, pidfile string) client.ExecCreateOptions {
	env := make([]string, 0, len(e.Env))
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		env = append(env, k+"="+e.Env[k])
	}
	dir := e.Dir
	if dir == "" {
		dir = s.repoDir
	} else if !path.IsAbs(dir) {
		dir = path.Join(s.repoDir, dir)
	}
	drain := strconv.Itoa(int((s.DrainWindow + 99*time.Millisecond) / (100 * time.Millisecond)))
	in := "0"
	if e.Stdin != "" {
		in = "1"
	}
	return client.ExecCreateOptions{
		Cmd:          append([]string{"/bin/sh", "-c", wrapper, "sandcastle-exec", pidfile, drain, in, dir}, e.Argv...),
		Env:          env,
		WorkingDir:   "/",
		AttachStdin:  e.Stdin != "",
		AttachStdout: true,
		AttachStderr: true,
	}
}

// stop ends the process group recorded in pidfile: SIGTERM, then SIGKILL after KillGrace. It
// returns when done is closed or the kill has had its time.
func (s *Sandbox) stop(ctx context.Context, pidfile string, done <-chan struct{}) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.KillGrace+2*stopTimeout)
	defer cancel()
	if s.signal(ctx, pidfile, "TERM", done, s.KillGrace) {
		return
	}
	s.signal(ctx, pidfile, "KILL", done, stopTimeout)
}

// signal sends sig to the process group recorded in pidfile, retrying while the wrapper has not
// recorded it yet, then waits up to wait for done. It reports whether done was closed.
func (s *Sandbox) signal(ctx context.Context, pidfile, sig string, done <-chan struct{}, wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		code, _, err := s.run(ctx, []string{"/bin/sh", "-c", killer, "sandcastle-kill", pidfile, sig})
		if err != nil || code != 3 {
			break // sent, or the API fails, which retrying will not mend
		}
		select {
		case <-done:
			return true
		case <-timer.C:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// run runs cmd directly, as the container's user, and returns its exit code and its first 64 KiB
// of output, stdout and stderr interleaved.
func (s *Sandbox) run(ctx context.Context, cmd []string) (int, string, error) {
	created, err := s.api.ExecCreate(ctx, s.id, client.ExecCreateOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return 0, "", fmt.Errorf("exec %q: create: %w", cmd[0], err)
	}
	att, err := s.api.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return 0, "", fmt.Errorf("exec %q: start: %w", cmd[0], err)
	}
	defer att.Close()
	out := stream.NewHead(sandbox.StderrTail)
	if _, err := stdcopy.StdCopy(out, out, att.Reader); err != nil {
		return 0, out.String(), fmt.Errorf("exec %q: read output: %w", cmd[0], err)
	}
	code, err := s.exitCode(ctx, created.ID)
	if err != nil {
		return 0, out.String(), fmt.Errorf("exec %q: %w", cmd[0], err)
	}
	return code, out.String(), nil
}

// exitCode returns the exit code of an exec whose output has ended. The daemon marks an exec
// ended before it closes its output, so one call normally suffices.
func (s *Sandbox) exitCode(ctx context.Context, id string) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	for {
		r, err := s.api.ExecInspect(ctx, id, client.ExecInspectOptions{})
		if err != nil {
			return 0, fmt.Errorf("inspect: %w", err)
		}
		if !r.Running {
			return r.ExitCode, nil
		}
		pause(ctx, 10*time.Millisecond)
		if ctx.Err() != nil {
			return 0, errors.New("inspect: still running after its output ended")
		}
	}
}

// pipe serves an attached exec's streams: stdout and stderr demultiplexed into their buffers,
// and stdin written then closed.
type pipe struct {
	conn   client.HijackedResponse
	out    io.Writer // *stream.LineWriter or *stream.Head
	errBuf *stream.Tail

	done      chan struct{} // closed when the output has ended
	readErr   error
	stdinDone chan struct{}
	inErr     error
}

func startPipe(conn client.HijackedResponse, e sandbox.Exec) *pipe {
	p := &pipe{
		conn:      conn,
		errBuf:    stream.NewTail(sandbox.StderrTail),
		done:      make(chan struct{}),
		stdinDone: make(chan struct{}),
	}
	lw := (*stream.LineWriter)(nil)
	if e.OnLine != nil {
		lw = stream.NewLineWriter(stream.MaxOutput, e.OnLine)
		p.out = lw
	} else {
		p.out = stream.NewHead(stream.MaxOutput)
	}
	go func() {
		defer close(p.done)
		_, p.readErr = stdcopy.StdCopy(p.out, p.errBuf, conn.Reader)
		if lw != nil {
			lw.Flush()
		}
	}()
	go func() {
		defer close(p.stdinDone)
		if e.Stdin == "" {
			return
		}
		// Written from a goroutine: the process may read its input only while we read its output.
		if _, err := io.WriteString(conn.Conn, e.Stdin); !ignorable(err) {
			p.inErr = fmt.Errorf("write stdin: %w", err)
		}
		if err := conn.CloseWrite(); !ignorable(err) {
			p.inErr = errors.Join(p.inErr, fmt.Errorf("close stdin: %w", err))
		}
	}()
	return p
}

// finish closes the connection, which also ends an output that stop could not end, and waits
// for the goroutines. It returns their I/O errors, except those closing caused.
func (p *pipe) finish() error {
	forced := false
	select {
	case <-p.done:
	default:
		forced = true
	}
	p.conn.Close()
	<-p.done
	<-p.stdinDone
	var readErr error
	if p.readErr != nil && !forced {
		readErr = fmt.Errorf("read output: %w", p.readErr)
	}
	return errors.Join(p.inErr, readErr)
}

// result reads the exit code; see the package documentation for Signaled.
func (p *pipe) result(code int) sandbox.Result {
	r := sandbox.Result{ExitCode: code, Signaled: code > 128 && code <= 128+64, Stderr: p.errBuf.String()}
	if h, ok := p.out.(*stream.Head); ok {
		r.Stdout = h.String()
	}
	return r
}

// ignorable reports whether an I/O error only says that the other side went away or that we
// closed the connection.
func ignorable(err error) bool {
	return err == nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}
