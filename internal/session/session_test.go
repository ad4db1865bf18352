package session

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/stream"
)

const sessionID = "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93"

// world is a stand-in container on the host: a sandbox whose HOME and working directory differ
// from the host's, as they would in a container with its own file system.
type world struct {
	c                 *Carrier
	sbHome, sbDir     string
	hostHome, hostDir string
}

func newWorld(t *testing.T, layout *agent.Sessions) world {
	t.Helper()
	root := t.TempDir()
	w := world{
		sbHome: filepath.Join(root, "sandbox-home"), sbDir: filepath.Join(root, "sandbox", "work.space"),
		hostHome: filepath.Join(root, "host-home"), hostDir: filepath.Join(root, "host", "my_repo"),
	}
	for _, d := range []string{w.sbHome, w.sbDir, w.hostHome, w.hostDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb := host.New(w.sbDir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.sbHome})
	t.Cleanup(func() { sb.Close(t.Context()) })
	w.c = &Carrier{Layout: layout, Sandbox: sb, SandboxHome: w.sbHome, HostHome: w.hostHome, HostDir: w.hostDir}
	return w
}

// sandboxFile is where claude keeps the test session in the sandbox.
func (w world) sandboxFile() string {
	return filepath.Join(w.sbHome, ".claude", "projects", w.c.Layout.Dir(w.sbDir), sessionID+".jsonl")
}

// hostFile is where claude keeps the test session on the host.
func (w world) hostFile() string {
	return filepath.Join(w.hostHome, ".claude", "projects", w.c.Layout.Dir(w.hostDir), sessionID+".jsonl")
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// claudeSessions is claude-code's session layout.
func claudeSessions(t *testing.T) *agent.Sessions {
	t.Helper()
	a, err := agent.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	return a.Sessions
}

func session(cwd string) string {
	return `{"type":"user","cwd":"` + cwd + `","sessionId":"` + sessionID + `"}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"text","text":"<promise>COMPLETE</promise>"}]},"cwd":"` + cwd + `"}` + "\n"
}

func TestSaveThenRestoreClaude(t *testing.T) {
	t.Parallel()
	layout := claudeSessions(t)
	w := newWorld(t, layout)
	sbFile := filepath.Join(w.sbHome, ".claude", "projects", layout.Dir(w.sbDir), sessionID+".jsonl")
	write(t, sbFile, session(w.sbDir))

	got, err := w.c.Save(t.Context(), sessionID)
	if err != nil {
		t.Fatalf("Save() error = %v", err)
	}
	// Where a host `claude --resume` looks: the host directory's own project dir.
	want := filepath.Join(w.hostHome, ".claude", "projects", layout.Dir(w.hostDir), sessionID+".jsonl")
	if got != want {
		t.Errorf("Save() = %s, want %s", got, want)
	}
	if got, want := read(t, got), session(w.hostDir); got != want {
		t.Errorf("saved file =\n%s\nwant (cwd rewritten, nothing else)\n%s", got, want)
	}

	// A fresh sandbox gets it back where claude looks for it, with its own cwd.
	if err := os.RemoveAll(filepath.Join(w.sbHome, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Restore(t.Context(), sessionID); err != nil {
		t.Fatalf("Restore() error = %v", err)
	}
	if got, want := read(t, sbFile), session(w.sbDir); got != want {
		t.Errorf("restored file =\n%s\nwant\n%s", got, want)
	}
}

func TestSaveKeepsCodexDateDirs(t *testing.T) {
	t.Parallel()
	layout := &agent.Sessions{Root: ".codex/sessions", Pattern: func(id string) string { return "rollout-*-" + id + ".jsonl" }}
	w := newWorld(t, layout)
	rel := filepath.Join("2026", "06", "30", "rollout-2026-06-30T09-20-11-"+sessionID+".jsonl")
	write(t, filepath.Join(w.sbHome, ".codex", "sessions", rel), `{"type":"session_meta","payload":{"cwd":"`+w.sbDir+`"}}`+"\n")

	got, err := w.c.Save(t.Context(), sessionID)
	if err != nil {
		t.Fatalf("Save() error = %v", err)
	}
	if want := filepath.Join(w.hostHome, ".codex", "sessions", rel); got != want {
		t.Errorf("Save() = %s, want %s", got, want)
	}
	if !strings.Contains(read(t, got), `"cwd":"`+w.hostDir+`"`) {
		t.Errorf("saved rollout does not carry the host cwd: %s", read(t, got))
	}
}

func TestSaveMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, claudeSessions(t))
	_, err := w.c.Save(t.Context(), sessionID)
	if err == nil || !strings.Contains(err.Error(), "no file "+sessionID+".jsonl under "+w.sbHome+"/.claude/projects in the sandbox") {
		t.Errorf("Save() error = %v, want one naming the file and where it looked", err)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	layout := claudeSessions(t)
	home := t.TempDir()
	if _, err := Find(layout, home, "/repo", sessionID); err == nil || !strings.Contains(err.Error(), "session "+sessionID+" not found: no file "+sessionID+".jsonl under "+home) {
		t.Errorf("Find() in an empty home error = %v", err)
	}
	// The run's own project directory wins over another project's copy.
	other := filepath.Join(home, ".claude", "projects", "-elsewhere", sessionID+".jsonl")
	own := filepath.Join(home, ".claude", "projects", layout.Dir("/repo"), sessionID+".jsonl")
	write(t, other, "{}\n")
	if got, err := Find(layout, home, "/repo", sessionID); err != nil || got != other {
		t.Errorf("Find() = %s, %v; want the only copy %s", got, err, other)
	}
	write(t, own, "{}\n")
	if got, err := Find(layout, home, "/repo", sessionID); err != nil || got != own {
		t.Errorf("Find() = %s, %v; want the project's own %s", got, err, own)
	}
	if _, err := Find(layout, home, "/repo", "../x"); err == nil {
		t.Error("Find() accepted an id with a path in it")
	}
}

func TestLocalCarriesNothing(t *testing.T) {
	t.Parallel()
	layout := claudeSessions(t)
	w := newWorld(t, layout)
	w.c.Local = true
	hostFile := filepath.Join(w.hostHome, ".claude", "projects", layout.Dir(w.hostDir), sessionID+".jsonl")
	write(t, hostFile, session(w.hostDir))
	if got, err := w.c.Save(t.Context(), sessionID); err != nil || got != hostFile {
		t.Errorf("Save() = %s, %v; want the agent's own file %s", got, err, hostFile)
	}
	if err := w.c.Restore(t.Context(), sessionID); err != nil {
		t.Errorf("Restore() error = %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.sbHome, ".claude")); err == nil {
		t.Error("a local carrier wrote into the sandbox home")
	}
}

func TestRestoreFromAnEarlierWorktree(t *testing.T) {
	t.Parallel()
	layout := claudeSessions(t)
	w := newWorld(t, layout)
	// Saved by an earlier run whose worktree, since removed, had another path.
	old := "/repo/.sandcastle/worktrees/earlier"
	write(t, filepath.Join(w.hostHome, ".claude", "projects", layout.Dir(old), sessionID+".jsonl"), session(old))
	if err := w.c.Restore(t.Context(), sessionID); err != nil {
		t.Fatalf("Restore() error = %v", err)
	}
	sbFile := filepath.Join(w.sbHome, ".claude", "projects", layout.Dir(w.sbDir), sessionID+".jsonl")
	if got, want := read(t, sbFile), session(w.sbDir); got != want {
		t.Errorf("restored file =\n%s\nwant it in this run's directory\n%s", got, want)
	}
}

// TestCarryErrors checks that a session that cannot be carried fails with an error saying which
// and why, and leaves nothing half-written on the host.
func TestCarryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, w world) // breaks the world
		restore bool                        // Restore rather than Save
		id      string
		wantErr []string // all in the error
	}{{
		name:    "id_with_a_path",
		id:      "../escape",
		wantErr: []string{`session id "../escape" is not valid`},
	}, {
		name: "sandbox_closed",
		setup: func(t *testing.T, w world) {
			if err := w.c.Sandbox.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
		},
		wantErr: []string{"save session " + sessionID + ": look in the sandbox: host sandbox: exec \"find\": sandbox closed"},
	}, {
		name: "larger_than_a_stream_holds",
		setup: func(t *testing.T, w world) {
			write(t, w.sandboxFile(), strings.Repeat("x", stream.MaxOutput))
		},
		wantErr: []string{"save session " + sessionID + ": read ", "in the sandbox: larger than 16 MiB"},
	}, {
		name: "host_home_not_a_directory",
		setup: func(t *testing.T, w world) {
			write(t, w.sandboxFile(), session(w.sbDir))
			write(t, filepath.Join(w.hostHome, ".claude"), "a file where the sessions would go")
		},
		wantErr: []string{"save session " + sessionID + ": mkdir "},
	}, {
		name:    "restore_not_on_the_host",
		restore: true,
		wantErr: []string{"session " + sessionID + " not found: no file " + sessionID + ".jsonl under "},
	}, {
		name:    "restore_into_a_sandbox_home_that_cannot_be_written",
		restore: true,
		setup: func(t *testing.T, w world) {
			write(t, w.hostFile(), session(w.hostDir))
			write(t, filepath.Join(w.sbHome, ".claude"), "a file where the sessions would go")
		},
		wantErr: []string{"restore session " + sessionID + " into the sandbox at "},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, claudeSessions(t))
			if tt.setup != nil {
				tt.setup(t, w)
			}
			id := cmp.Or(tt.id, sessionID)
			var err error
			if tt.restore {
				err = w.c.Restore(t.Context(), id)
			} else {
				_, err = w.c.Save(t.Context(), id)
			}
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error = %v, want one containing %q", err, want)
				}
			}
			if !tt.restore {
				if _, err := os.Stat(w.hostFile()); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
					t.Errorf("a session file was left on the host (stat: %v)", err)
				}
			}
		})
	}
}
