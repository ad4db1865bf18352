package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unchanged fails when dir is not as before: branches, worktrees, status, HEAD, the
// .git/info/exclude file and the absence of .sandcastle/; and when inv started the agent.
type unchanged struct {
	state   repoState
	exclude string
}

func snapshot(t *testing.T, e env, dir string) unchanged {
	t.Helper()
	return unchanged{state: stateOf(t, e, dir), exclude: readExclude(t, dir)}
}

func (u unchanged) check(t *testing.T, e env, dir string, inv invocation) {
	t.Helper()
	if strings.Contains(inv.output(), "this claude must not run") {
		t.Error("the agent was started")
	}
	if after := stateOf(t, e, dir); after != u.state {
		t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", u.state, after)
	}
	if after := readExclude(t, dir); after != u.exclude {
		t.Errorf(".git/info/exclude changed from %q to %q", u.exclude, after)
	}
	if _, err := os.Stat(filepath.Join(dir, ".sandcastle")); err == nil {
		t.Error(".sandcastle/ was created")
	}
}

func readExclude(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// promptFile writes the prompt p.md outside the repository's status: in .git itself.
func promptFile(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, ".git", "p.md")
	writeFile(t, path, text)
	return path
}

// TestBadPromptFiles: a prompt file that is not a closed, text template of reasonable size is
// bad input, found before anything is created, and named with where it is wrong.
func TestBadPromptFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // the flags
		want  []string
	}{
		{"unclosed_command", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, "Fix it.\nStatus: !`git status\nthen commit `it`.\n")}
		}, []string{`"prompt-file"`, "p.md", "line 2", "not closed"}},
		{"fifo", func(t *testing.T, dir string) []string {
			path := filepath.Join(dir, ".git", "p.md")
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"--prompt-file", path}
		}, []string{`"prompt-file"`, "p.md", "not a regular file"}},
		{"device", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", "/dev/zero"}
		}, []string{`"prompt-file"`, "/dev/zero", "not a regular file"}},
		{"nul_byte", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, "Fix it.\x00then")}
		}, []string{`"prompt-file"`, "p.md", "NUL", "offset 7"}},
		{"not_utf8", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, "Fix \xe9t\xe9.")}
		}, []string{`"prompt-file"`, "p.md", "UTF-8", "offset 4"}},
		{"too_large", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, strings.Repeat("x", 2<<20))}
		}, []string{`"prompt-file"`, "p.md", "1 MiB"}},
		{"placeholder_in_arithmetic", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, "Count: !`echo $(( {{N}} + 1 ))`\n"), "--prompt-args", "N=1"}
		}, []string{`"prompt-file"`, "line 1", "{{N}}", "$(("}},
		{"nul_in_a_command_value", func(t *testing.T, dir string) []string {
			return []string{"--prompt-file", promptFile(t, dir, "!`printf %s {{A}}`\n"), "--prompt-args", `A: "a\0b"`}
		}, []string{`"prompt-args"`, "{{A}}", "NUL"}},
		{"env_file_fifo", func(t *testing.T, dir string) []string {
			path := filepath.Join(dir, ".git", "env")
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"--prompt", "hi", "--env-file", path}
		}, []string{`"env-file"`, "not a regular file"}},
		{"env_file_nul", func(t *testing.T, dir string) []string {
			path := filepath.Join(dir, ".git", "env")
			writeFile(t, path, "A=1\nB=x\x00y\n")
			return []string{"--prompt", "hi", "--env-file", path}
		}, []string{`"env-file"`, "NUL", "offset 7"}},
		{"output_schema_device", func(t *testing.T, dir string) []string {
			return []string{"--prompt", "<result>", "--output-tag", "result", "--output-schema", "/dev/zero"}
		}, []string{`"output-schema"`, "/dev/zero", "not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := hermeticEnv(t)
			dir := newRepo(t, e)
			args := tt.setup(t, dir)
			before := snapshot(t, e, dir)
			inv := runMain(t, e, dir, append([]string{"run", "--sandbox", "none"}, args...)...)
			if inv.code != exitBadInput {
				t.Errorf("exit code %d, want %d; output:\n%s", inv.code, exitBadInput, inv.output())
			}
			for _, w := range tt.want {
				if !strings.Contains(inv.output(), w) {
					t.Errorf("output does not mention %s:\n%s", w, inv.output())
				}
			}
			before.check(t, e, dir, inv)
		})
	}
}

// TestSignalDuringValidation: a run cancelled while validation waits (here git, reading a
// configuration include that is a named pipe nobody writes) stops at once and creates nothing.
func TestSignalDuringValidation(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := newRepo(t, e)
	fifo := filepath.Join(t.TempDir(), "include")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	e["GITHUB_ACTIONS"] = "true"
	before := snapshot(t, e, dir)
	// Every git command in dir waits on the pipe while the include is there, the test's too.
	config := filepath.Join(dir, ".git", "config")
	plain := readFile(t, config)
	writeFile(t, config, plain+"[include]\n\tpath = "+fifo+"\n")
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		time.Sleep(200 * time.Millisecond) // long enough for git to be waiting on the pipe
		cancel()
	}()
	inv := runMainContext(ctx, t, e, dir, "run", "--sandbox", "none", "--prompt", "hi")
	if inv.code != exitFailed || !strings.Contains(inv.output(), "cancelled") {
		t.Errorf("exit %d, want %d saying the run was cancelled; output:\n%s", inv.code, exitFailed, inv.output())
	}
	writeFile(t, config, plain)
	before.check(t, e, dir, inv)
}
