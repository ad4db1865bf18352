package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { b.Write([]byte("x")) })
	}
	wg.Wait()
	if got := b.String(); got != "xxxxxxxx" {
		t.Errorf("String = %q", got)
	}
}

// TestRunnerCommands reads a job log as the runner does: commands inside a fence are inert,
// and only the fence's own token ends it.
func TestRunnerCommands(t *testing.T) {
	log := "::warning::live\nplain\n::stop-commands::tok\n::error::fenced\n::other::\n::tok::\n  ##[group]live again\r\n"
	if got, want := RunnerCommands(log), []string{"::warning::live", "##[group]live again"}; !slices.Equal(got, want) {
		t.Errorf("RunnerCommands = %q, want %q", got, want)
	}
	// As actions/runner reads lines: a lone \r ends one, Unicode white space is trimmed, the
	// older form counts anywhere.
	log = "a\r::add-mask::x\n\u00a0::warning::w\nsee ##[error]e\n\u2003::stop-commands::t\n::error::fenced\n\u00a0::t::\n::notice::n\n"
	if got, want := RunnerCommands(log), []string{"::add-mask::x", "::warning::w", "##[error]e", "::notice::n"}; !slices.Equal(got, want) {
		t.Errorf("RunnerCommands = %q, want %q", got, want)
	}
}

// TestCopySandbox: commands run in the copy, whose /tmp is its own, and its files come out.
func TestCopySandbox(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "seed"), []byte("seed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCopySandbox(t, dir, []string{"PATH=" + os.Getenv("PATH")})
	if c.RepoDir() == dir {
		t.Fatal("the sandbox works in the original")
	}
	r, err := c.Exec(t.Context(), sandbox.Exec{Argv: []string{"sh", "-c", `cat seed > "$1" && echo new > new`, "sh", "/tmp/out"}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("Exec: %v, %+v", err, r)
	}
	var out bytes.Buffer
	if err := c.CopyOut(t.Context(), "/tmp/out", &out); err != nil || out.String() != "seed\n" {
		t.Errorf("CopyOut = %q, %v", out.String(), err)
	}
	if _, err := os.Stat(filepath.Join(c.Tmp(), "out")); err != nil {
		t.Errorf("/tmp/out is not the sandbox's own: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("a file made in the copy reached the original: %v", err)
	}
	if err := c.CopyOut(t.Context(), "/tmp/missing", &out); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("CopyOut of a missing file = %v", err)
	}
}
