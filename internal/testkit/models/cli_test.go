package models

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Helpers for the tests that drive real agent CLIs against a stand-in.

// cliCommand is bin with args, run in dir with prompt on stdin and only PATH plus env in its
// environment; cancelling ctx kills it and its children.
func cliCommand(ctx context.Context, bin string, args []string, env map[string]string, dir, prompt string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(prompt)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// Kill the whole process group: a CLI can be a node wrapper around its native binary
	// (codex's bin/codex.js on node < 22.15 spawns it), which would outlive the wrapper's kill.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second // a tool's grandchild holding stdout must not wedge Wait
	return cmd
}

// cliRun is what a CLI run to its end left: its stdout decoded line by line as T.
type cliRun[T any] struct {
	lines    []T
	stderr   string
	exitCode int
}

// runCLI runs cmd to its end and decodes its stdout.
func runCLI[T any](t *testing.T, cmd *exec.Cmd) cliRun[T] {
	t.Helper()
	return decodeCLI[T](t, runProcess(cmd))
}

// cliOutput is what a CLI run to its end left, undecoded.
type cliOutput struct {
	name           string // the command, for messages
	stdout, stderr []byte
	exitCode       int
	elapsed        time.Duration
	err            error // from running it; an *exec.ExitError only says it exited non-zero
}

// runProcess runs cmd to its end. It reports nothing to a test, so it may run on a goroutine
// other than the test's, where t.Fatal must not be called.
func runProcess(cmd *exec.Cmd) cliOutput {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	stdout, err := cmd.Output()
	return cliOutput{
		name:     cmd.Args[0],
		stdout:   stdout,
		stderr:   stderr.Bytes(),
		exitCode: cmd.ProcessState.ExitCode(), // -1 when it never started
		elapsed:  time.Since(start),
		err:      err,
	}
}

// decodeCLI fails the test when out's CLI could not be run, and decodes its stdout.
func decodeCLI[T any](t *testing.T, out cliOutput) cliRun[T] {
	t.Helper()
	t.Logf("%s ran %v (exit %v)", out.name, out.elapsed.Round(time.Millisecond), out.err)
	var exit *exec.ExitError
	if out.err != nil && !errors.As(out.err, &exit) {
		t.Fatalf("run %s: %v", out.name, out.err)
	}
	run := cliRun[T]{stderr: string(out.stderr), exitCode: out.exitCode}
	for line := range bytes.Lines(out.stdout) {
		run.lines = append(run.lines, decodeJSONLine[T](t, line))
	}
	return run
}

// find returns the first line that match accepts; what names it in the failure.
func (r cliRun[T]) find(t *testing.T, what string, match func(T) bool) T {
	t.Helper()
	for _, line := range r.lines {
		if match(line) {
			return line
		}
	}
	t.Fatalf("no %s line in stdout (%d lines); stderr:\n%s", what, len(r.lines), r.stderr)
	var zero T
	return zero
}

func decodeJSONLine[T any](t *testing.T, b []byte) T {
	t.Helper()
	var line T
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatalf("stdout line is not JSON: %v: %.200s", err, b)
	}
	return line
}

// runUntilKilled starts cmd, whose context cancel ends, and reads its stdout until seen matches
// a line; it then waits for the stand-in's first main request, kills the CLI and checks that
// only the kill ended it. It returns the lines read.
func runUntilKilled[T any](t *testing.T, cmd *exec.Cmd, cancel context.CancelFunc, wait func(context.Context, int) error, seen func(T) bool) []T {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("pipe %s stdout: %v", cmd.Args[0], err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Args[0], err)
	}
	var lines []T
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := decodeJSONLine[T](t, sc.Bytes())
		lines = append(lines, line)
		if seen(line) {
			break
		}
	}
	if len(lines) == 0 || !seen(lines[len(lines)-1]) {
		cancel()
		t.Fatalf("%s stdout ended before the expected line (%d lines; exit %v)", cmd.Args[0], len(lines), cmd.Wait())
	}
	if err := wait(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	// The CLI is now waiting on the stand-in; only our kill ends it. That it would wait forever
	// cannot be asserted without a timed wait.
	cancel()
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Errorf("%s ended with %v, want killed by our signal (it must not exit on its own)", cmd.Args[0], err)
	}
	return lines
}

// checkResumed checks that a resumed session sent its earlier turns: the second of two main
// requests carries every one of wants.
func checkResumed(t *testing.T, reqs []Request, wants ...string) {
	t.Helper()
	if got, want := len(reqs), 2; got != want {
		t.Fatalf("main requests = %d, want %d", got, want)
	}
	transcript := reqs[1].Transcript()
	for _, want := range wants {
		if !strings.Contains(transcript, want) {
			t.Errorf("resumed request lacks %q; transcript:\n%s", want, transcript)
		}
	}
}
