package host

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

// proc is a started process and the goroutines feeding and draining its pipes. Its pipes are
// plain *os.File, so cmd.Wait waits for the process only and never for the pipes.
type proc struct {
	stdin          *os.File // our end; nil when there is no input
	stdout, stderr *os.File // our ends

	out    io.Writer // *stream.LineWriter or *stream.Head
	errBuf *stream.Tail

	exited  chan struct{} // closed when the leader has exited; it is not reaped yet
	drained chan struct{} // closed when stdout and stderr have reached EOF

	readers             sync.WaitGroup
	stdinDone           chan struct{}
	inErr, outErr, eErr error
}

// start starts cmd with pipes for its stdio and the goroutines that serve them.
func start(cmd *exec.Cmd, e sandbox.Exec, drainWindow time.Duration) (*proc, error) {
	p := &proc{
		errBuf:    stream.NewTail(sandbox.StderrTail),
		exited:    make(chan struct{}),
		drained:   make(chan struct{}),
		stdinDone: make(chan struct{}),
	}
	if e.OnLine != nil {
		p.out = stream.NewLineWriter(stream.MaxOutput, e.OnLine)
	} else {
		p.out = stream.NewHead(stream.MaxOutput)
	}

	var child []*os.File // the process's ends, closed here once it has them
	defer func() {
		for _, f := range child {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("create pipe: %w", err)
		}
		return r, w, nil
	}
	var err error
	var outW, errW, inR *os.File
	if p.stdout, outW, err = pipe(); err != nil {
		return nil, err
	}
	child = append(child, outW)
	if p.stderr, errW, err = pipe(); err != nil {
		p.stdout.Close()
		return nil, err
	}
	child = append(child, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	if e.Stdin != "" {
		if inR, p.stdin, err = pipe(); err != nil {
			p.stdout.Close()
			p.stderr.Close()
			return nil, err
		}
		child = append(child, inR)
		cmd.Stdin = inR
	}
	if err := cmd.Start(); err != nil {
		p.closeOurs()
		return nil, err
	}

	go func() {
		defer close(p.exited)
		waitExited(cmd.Process.Pid)
	}()
	go func() {
		defer close(p.stdinDone)
		if p.stdin == nil {
			return
		}
		// Written from a goroutine: the process may read its input only while we read its output.
		if _, err := io.Copy(p.stdin, strings.NewReader(e.Stdin)); !ignorable(err) {
			p.inErr = fmt.Errorf("write stdin: %w", err)
		}
		p.stdin.Close()
	}()
	p.readers.Go(func() {
		if err := p.pump(p.out, p.stdout, drainWindow); err != nil {
			p.outErr = fmt.Errorf("read stdout: %w", err)
		}
		if lw, ok := p.out.(*stream.LineWriter); ok {
			lw.Flush()
		}
	})
	p.readers.Go(func() {
		if err := p.pump(p.errBuf, p.stderr, drainWindow); err != nil {
			p.eErr = fmt.Errorf("read stderr: %w", err)
		}
	})
	go func() {
		p.readers.Wait()
		close(p.drained)
	}()
	return p, nil
}

// pump copies f to w until EOF. Once the leader has exited it first reads everything f held at
// that moment, which includes all the leader wrote, however slow w is; then it reads on for at
// most window, so that a background child holding f open cannot hold Exec.
func (p *proc) pump(w io.Writer, f *os.File, window time.Duration) error {
	buf := make([]byte, 32<<10)
	draining := false
	owed := 0          // bytes still to read that the pipe held when the leader exited
	var stop time.Time // when reading ends; set once the owed bytes are read
	for {
		if !draining {
			select {
			case <-p.exited:
				draining = true
				owed = buffered(f)
			default:
			}
		}
		if draining {
			if owed <= 0 && stop.IsZero() {
				stop = time.Now().Add(window)
			}
			if err := f.SetReadDeadline(stop); err != nil { // zero: none while bytes are owed
				return err
			}
		}
		n, err := f.Read(buf)
		owed -= n
		w.Write(buf[:n]) // our writers never fail
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			if !stop.IsZero() && !time.Now().Before(stop) {
				return nil
			}
			// Otherwise this is wake's deadline, not ours: loop to notice the exit.
		case err == io.EOF || errors.Is(err, os.ErrClosed):
			return nil
		default:
			return err
		}
	}
}

// wake interrupts a read blocked on an empty pipe so that pump notices the leader has exited.
func (p *proc) wake() {
	now := time.Now()
	p.stdout.SetReadDeadline(now)
	p.stderr.SetReadDeadline(now)
}

// buffered reports how many bytes f, a pipe, holds unread.
func buffered(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	rc.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}

// finish waits for the (killed) leader to exit, stops waiting on pipes still held by processes
// that escaped the group, and waits for the goroutines. It returns their I/O errors.
func (p *proc) finish() error {
	<-p.exited
	p.closeOurs()
	p.readers.Wait()
	<-p.stdinDone
	return errors.Join(p.inErr, p.outErr, p.eErr)
}

// closeOurs closes our pipe ends; a goroutine blocked on one returns with os.ErrClosed.
func (p *proc) closeOurs() {
	for _, f := range []*os.File{p.stdin, p.stdout, p.stderr} {
		if f != nil {
			f.Close()
		}
	}
}

// result reads the exit status; a signal counts as 128+N so that a killed process never looks
// successful.
func (p *proc) result(ps *os.ProcessState) sandbox.Result {
	r := sandbox.Result{ExitCode: ps.ExitCode(), Stderr: p.errBuf.String()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signaled = true
		r.ExitCode = 128 + int(ws.Signal())
	}
	if hb, ok := p.out.(*stream.Head); ok {
		r.Stdout = hb.String()
	}
	return r
}

// waitExited blocks until process pid has exited but leaves it unreaped (WNOWAIT): while it is a
// zombie its pid, which is also its process group id, cannot be reused.
func waitExited(pid int) {
	const pPID = 1      // idtype_t P_PID
	var info [16]uint64 // siginfo_t, 128 bytes
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return // exited, or ECHILD: nothing left to wait for
		}
	}
}

// ignorable reports whether an I/O error only says that the other side went away or that we
// closed our end to stop waiting.
func ignorable(err error) bool {
	return err == nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}
