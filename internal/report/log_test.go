package report

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

func fixedClock() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) }

// secretLog is a Log on the fixed clock that masks sk-secret, with its file and console.
func secretLog(actions bool) (l *Log, file, console *bytes.Buffer) {
	file, console = &bytes.Buffer{}, &bytes.Buffer{}
	red := &Redactor{}
	red.Add("sk-secret")
	l = NewConsole(console, red, actions).NewLog(file, nil)
	l.now = fixedClock
	return l, file, console
}

func TestLogFileAndConsole(t *testing.T) {
	l, file, console := secretLog(false)
	l.Status("iteration %d started with key %s", 1, "sk-secret")
	l.BeginAgent()
	l.AgentText("Looking at ")
	l.AgentText("the code.")
	l.ToolCall("Bash", "git status")
	l.AgentText("Done, sk-secret stays hidden")
	l.Raw(`{"type":"raw"}`)
	l.EndAgent()
	l.Status("finished")

	wantFile := "2026-01-02T15:04:05Z iteration 1 started with key ***\n" +
		"Looking at the code.\n" +
		"Bash(git status)\n" +
		"Done, *** stays hidden\n" +
		`{"type":"raw"}` + "\n" +
		"2026-01-02T15:04:05Z finished\n"
	if got := file.String(); got != wantFile {
		t.Errorf("file =\n%s\nwant\n%s", got, wantFile)
	}
	wantConsole := "15:04:05 iteration 1 started with key ***\n" +
		"Looking at the code.\n" +
		"Bash(git status)\n" +
		"Done, *** stays hidden\n" +
		"15:04:05 finished\n"
	if got := console.String(); got != wantConsole {
		t.Errorf("console =\n%s\nwant\n%s", got, wantConsole)
	}
	if err := l.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

func TestLogFencesAgentOutputInActions(t *testing.T) {
	var console bytes.Buffer
	l := NewConsole(&console, nil, true).NewLog(nil, nil)
	l.BeginAgent()
	l.AgentText("::set-env name=X::pwned\n")
	l.ToolCall("Bash", "echo ::error::fake")
	l.AgentText("  ::add-mask::x\n##[error]old style")
	l.EndAgent()

	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("runner would act on %q from agent output:\n%s", got, console.String())
	}
	lines := strings.Split(strings.TrimSuffix(console.String(), "\n"), "\n")
	first, last := lines[0], lines[len(lines)-1]
	token, ok := strings.CutPrefix(first, "::stop-commands::")
	if !ok || len(token) < 20 {
		t.Fatalf("first line %q is not a stop-commands fence with a long token", first)
	}
	if got, want := last, "::"+token+"::"; got != want {
		t.Errorf("last line = %q, want %q", got, want)
	}
	if got, want := lines[len(lines)-2], "##[error]old style"; got != want {
		t.Errorf("partial agent line = %q, want it finished before the fence closes (%q)", got, want)
	}
}

func TestLogFreshTokenPerFence(t *testing.T) {
	var console bytes.Buffer
	l := NewConsole(&console, nil, true).NewLog(nil, nil)
	for range 2 {
		l.BeginAgent()
		l.AgentText("x\n")
		l.EndAgent()
	}
	var tokens []string
	for line := range strings.Lines(console.String()) {
		if tok, ok := strings.CutPrefix(strings.TrimSpace(line), "::stop-commands::"); ok {
			tokens = append(tokens, tok)
		}
	}
	if len(tokens) != 2 || tokens[0] == tokens[1] {
		t.Errorf("fence tokens = %q, want two different ones", tokens)
	}
}

func TestLogAgentTextOutsideSectionIsFenced(t *testing.T) {
	var console bytes.Buffer
	l := NewConsole(&console, nil, true).NewLog(nil, nil)
	l.AgentText("::error::x\n")
	l.EndAgent()
	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("runner would act on %q", got)
	}
	if !strings.HasPrefix(console.String(), "::stop-commands::") {
		t.Errorf("console = %q, want it to start with a fence", console.String())
	}
}

func TestLogStatusCannotIssueCommands(t *testing.T) {
	var console bytes.Buffer
	l := NewConsole(&console, nil, true).NewLog(nil, nil)
	l.Status("merge failed:\n::error::from a branch name\n  ##[warning]x")
	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("runner would act on %q:\n%s", got, console.String())
	}
	if !strings.Contains(console.String(), "::error::from a branch name\n") {
		t.Errorf("console lost the text: %q", console.String())
	}
}

// TestLogStatusCannotIssueCommandsAsTheRunnerReads: text of strangers in a status line (a
// failed command's stderr quoting an issue title, say) can make no workflow command, however
// the runner cuts lines and trims them: a lone \r ends a line, Unicode white space is trimmed,
// and the older ##[name] form counts anywhere in a line, also when it arrives in two writes.
func TestLogStatusCannotIssueCommandsAsTheRunnerReads(t *testing.T) {
	for _, text := range []string{
		"cat: 'x ##[set-output name=pr-url]https://evil.example/pwn': No such file",
		"merge failed\r::add-mask::a",
		"merge failed\n\u00a0::warning::from a title",
		"\u2003::stop-commands::X",
		"\u3000\u205f::error::x",
	} {
		var console bytes.Buffer
		l := NewConsole(&console, nil, true).NewLog(nil, nil)
		l.Status("Run failed: %s", text)
		if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
			t.Errorf("Status(%q): runner would act on %q:\n%s", text, got, console.String())
		}
	}
	var console bytes.Buffer
	c := NewConsole(&console, nil, true)
	c.text("progress: x #")
	c.text("#[set-output name=pr-url]y\n")
	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("text in two writes: runner would act on %q:\n%s", got, console.String())
	}
}

func TestLogNoFencesOutsideActions(t *testing.T) {
	var console bytes.Buffer
	l := NewConsole(&console, nil, false).NewLog(nil, nil)
	l.BeginAgent()
	l.AgentText("::error::x")
	l.EndAgent()
	if got, want := console.String(), "::error::x\n"; got != want {
		t.Errorf("console = %q, want %q", got, want)
	}
}

type failingWriter struct{ calls int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

func TestLogFileErrorIsRemembered(t *testing.T) {
	file := &failingWriter{}
	var console bytes.Buffer
	l := NewConsole(&console, nil, false).NewLog(file, nil)
	l.now = fixedClock
	l.Status("one")
	l.AgentText("two")
	l.Raw("three")
	err := l.Err()
	if err == nil || !strings.Contains(err.Error(), "write run log: disk full") {
		t.Errorf("Err() = %v, want the write error", err)
	}
	if got, want := file.calls, 1; got != want {
		t.Errorf("file written %d times, want %d (no retries after an error)", got, want)
	}
	if got, want := console.String(), "15:04:05 one\ntwo"; got != want {
		t.Errorf("console = %q, want %q", got, want)
	}
}

func TestLogConcurrentWriters(t *testing.T) {
	var file, console bytes.Buffer
	l := NewConsole(&console, nil, true).NewLog(&file, nil)
	l.now = fixedClock
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				l.AgentText("::error::agent\n")
				l.Status("tick")
				l.ToolCall("Read", "f")
			}
		})
	}
	wg.Wait()
	l.EndAgent()
	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("runner would act on %d agent lines", len(got))
	}
	if got, want := strings.Count(file.String(), "\n"), 4*50*3; got != want {
		t.Errorf("file has %d lines, want %d", got, want)
	}
}

// TestLogPrompt: the prompt goes to the file and the console whole, redacted, and in Actions
// fenced, so an issue that reads like a workflow command stays text.
func TestLogPrompt(t *testing.T) {
	l, file, console := secretLog(true)
	l.Prompt(2, "Fix it.\n::set-env name=X::1\nkey: sk-secret\n")

	wantFile := "2026-01-02T15:04:05Z Prompt of iteration 2 (43 bytes):\n" +
		"Fix it.\n::set-env name=X::1\nkey: ***\n"
	if got := file.String(); got != wantFile {
		t.Errorf("file =\n%s\nwant\n%s", got, wantFile)
	}
	if got := testkit.RunnerCommands(console.String()); len(got) != 0 {
		t.Errorf("the runner would act on %q in:\n%s", got, console.String())
	}
	for _, want := range []string{"Prompt of iteration 2 (43 bytes):", "Fix it.\n::set-env name=X::1\nkey: ***\n"} {
		if !strings.Contains(console.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, console.String())
		}
	}
	if strings.Contains(console.String(), "sk-secret") {
		t.Errorf("console shows the secret:\n%s", console.String())
	}
}

// TestConsoleCommandsAndWarnings: a command of our own ends an open fence around it and goes
// back into it, redacted or, for add-mask, not; a warning goes to warn when there is one.
func TestConsoleCommandsAndWarnings(t *testing.T) {
	var console bytes.Buffer
	red := &Redactor{}
	red.Add("sk-secret")
	c := NewConsole(&console, red, true)
	var warned []string
	l := c.NewLog(nil, func(msg string) { warned = append(warned, msg) })
	l.BeginAgent()
	c.Command("::warning::sk-secret\n", true)
	c.Command("::add-mask::sk-secret\n", false)
	l.EndAgent()
	if got := testkit.RunnerCommands(console.String()); !slices.Equal(got, []string{"::warning::***", "::add-mask::sk-secret"}) {
		t.Errorf("live commands %q", got)
	}
	l.Warning("idle for %s", "1m")
	plain := NewConsole(&console, nil, false).NewLog(nil, nil)
	plain.Warning("plain %d", 2)
	if !slices.Equal(warned, []string{"idle for 1m"}) || !strings.Contains(console.String(), "warning: plain 2\n") {
		t.Errorf("warned %q, console %q", warned, console.String())
	}
}
