package testkit

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
)

// SyncBuffer is a bytes.Buffer safe for the concurrent writes of a run: its log, a sandbox's
// streams.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// RunnerCommands returns the workflow commands the Actions runner would act on in a job log,
// honouring ::stop-commands:: fences as the runner does: what a run's output can make the
// runner do.
//
// It reads as actions/runner does: lines end at \n, \r\n or a lone \r (StreamReader.ReadLine);
// a line is trimmed of leading white space in .NET's sense, which is Unicode's (U+00A0 and
// U+2003 too), before "::name::" is looked for; and the older "##[name]" form is found
// anywhere in a line.
func RunnerCommands(log string) []string {
	var live []string
	stop := ""
	for _, line := range strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' }) {
		t := strings.TrimLeftFunc(line, unicode.IsSpace)
		if stop != "" {
			if t == "::"+stop+"::" {
				stop = ""
			}
			continue
		}
		if token, ok := strings.CutPrefix(t, "::stop-commands::"); ok {
			stop = token
			continue
		}
		if strings.HasPrefix(t, "::") {
			live = append(live, t)
		} else if i := strings.Index(line, "##["); i >= 0 {
			live = append(live, line[i:])
		}
	}
	return live
}

// CopySandbox is a sandbox a workspace was copied into, as sandbox-sync copy makes one, without
// Docker: its processes run on the host in Dir, a copy the test makes, and its /tmp is a
// directory of its own, as a container's is; CopyOut reads its files.
type CopySandbox struct {
	*host.Sandbox
	root string // the sandbox's file system: its /tmp is root/tmp
}

// NewCopySandbox is a CopySandbox whose workspace is a copy of dir (cp -a), with exactly env.
func NewCopySandbox(t testing.TB, dir string, env []string) *CopySandbox {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "workspace")
	if out, err := exec.Command("cp", "-a", dir, inside).CombinedOutput(); err != nil {
		t.Fatalf("copy in: %v: %s", err, out)
	}
	c := &CopySandbox{Sandbox: host.New(inside, env), root: root}
	t.Cleanup(func() { c.Close(context.WithoutCancel(t.Context())) })
	return c
}

// path is p as the sandbox sees it.
func (c *CopySandbox) path(p string) string {
	if rest, ok := strings.CutPrefix(p, "/tmp/"); ok {
		return filepath.Join(c.root, "tmp", rest)
	}
	return p
}

// Exec runs e with its arguments under /tmp in the sandbox's own.
func (c *CopySandbox) Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
	e.Argv = slices.Clone(e.Argv)
	for i := range e.Argv {
		e.Argv[i] = c.path(e.Argv[i])
	}
	return c.Sandbox.Exec(ctx, e)
}

// CopyOut copies the sandbox's file path to w.
func (c *CopySandbox) CopyOut(_ context.Context, path string, w io.Writer) error {
	f, err := os.Open(c.path(path))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Tmp is the sandbox's /tmp on the host.
func (c *CopySandbox) Tmp() string { return filepath.Join(c.root, "tmp") }
