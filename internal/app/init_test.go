package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/release"
)

func TestInitWritesStarterFilesOnce(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := t.TempDir()
	inv := runMain(t, e, dir, "init")
	if inv.code != 0 {
		t.Fatalf("init: exit %d\n%s", inv.code, inv.output())
	}
	for _, f := range []string{".sandcastle/Dockerfile", ".sandcastle/prompt.md", ".github/workflows/sandcastle.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init did not write %s: %v", f, err)
		}
	}
	dockerfile := readFile(t, filepath.Join(dir, ".sandcastle", "Dockerfile"))
	for _, want := range []string{"AGENT_UID", "FROM " + release.SandboxImage("claude-code") + "\n"} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, dockerfile)
		}
	}
	writeFile(t, filepath.Join(dir, ".sandcastle", "prompt.md"), "mine")
	if inv := runMain(t, e, dir, "init"); inv.code != exitBadInput || !strings.Contains(inv.output(), "--force") {
		t.Errorf("second init: exit %d, output %q; want a refusal that mentions --force", inv.code, inv.output())
	}
	if got := readFile(t, filepath.Join(dir, ".sandcastle", "prompt.md")); got != "mine" {
		t.Errorf("init overwrote prompt.md without --force")
	}
	if inv := runMain(t, e, dir, "init", "--agent", "gpt-pilot"); inv.code != exitBadInput || !strings.Contains(inv.output(), "claude-code") {
		t.Errorf("init with an unknown agent: exit %d, output %q; want a refusal listing the agents", inv.code, inv.output())
	}
}

// TestInitModes: init --mode writes each mode's workflow beside the shared starter files, and
// no prompt (the modes have theirs built in), keeping shared files an earlier init wrote; a
// mode without a workflow is refused.
func TestInitModes(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := t.TempDir()
	inv := runMain(t, e, dir, "init", "--mode", "implement,pr", "--mode", "triage")
	if inv.code != 0 {
		t.Fatalf("init: exit %d\n%s", inv.code, inv.output())
	}
	for _, f := range []string{".sandcastle/Dockerfile", ".github/workflows/sandcastle-implement.yml", ".github/workflows/sandcastle-pr.yml", ".github/workflows/sandcastle-triage.yml"} {
		if !strings.Contains(inv.stdout, "wrote "+filepath.FromSlash(f)) {
			t.Errorf("init did not write %s:\n%s", f, inv.stdout)
		}
	}
	for _, f := range []string{".sandcastle/prompt.md", ".github/workflows/sandcastle.yml", ".github/workflows/sandcastle-review.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("init --mode wrote %s", f)
		}
	}
	if got := readFile(t, filepath.Join(dir, ".github", "workflows", "sandcastle-triage.yml")); !strings.Contains(got, "mode: triage") {
		t.Errorf("the triage workflow does not run mode triage:\n%s", got)
	}
	// A mode added later keeps the shared files as they are; its workflow is written once.
	dockerfile := filepath.Join(dir, ".sandcastle", "Dockerfile")
	writeFile(t, dockerfile, readFile(t, dockerfile)+"RUN echo mine\n")
	inv = runMain(t, e, dir, "init", "--mode", "review")
	if inv.code != 0 || strings.TrimSpace(inv.stdout) != "wrote "+filepath.FromSlash(".github/workflows/sandcastle-review.yml") || !strings.HasSuffix(readFile(t, dockerfile), "RUN echo mine\n") {
		t.Errorf("init --mode review after init --mode implement: exit %d\n%s\nwant the review workflow alone written, the edited Dockerfile kept", inv.code, inv.output())
	}
	if inv := runMain(t, e, dir, "init", "--mode", "review"); inv.code != exitBadInput || !strings.Contains(inv.output(), "sandcastle-review.yml") || !strings.Contains(inv.output(), "--force") {
		t.Errorf("init --mode review again: exit %d, output %q; want a refusal naming the workflow and --force", inv.code, inv.output())
	}
	if inv := runMain(t, e, t.TempDir(), "init", "--mode", "run"); inv.code != exitBadInput || !strings.Contains(inv.output(), "implement, pr, review, triage") {
		t.Errorf("init --mode run: exit %d, output %q; want a refusal listing the modes", inv.code, inv.output())
	}
}

// TestMainCommands: each command line gets its answer, and a wrong one exit code 2 with the
// usage.
func TestMainCommands(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"version", []string{"version"}, exitOK, "sandcastle " + release.Version},
		{"help", []string{"--help"}, exitOK, "sandcastle run [flags]"},
		{"help_word", []string{"help"}, exitOK, "sandcastle init"},
		{"run_help", []string{"run", "--help"}, exitOK, "--max-iterations"},
		{"prompt_help", []string{"prompt", "-h"}, exitOK, "Prints the prompt that sandcastle run"},
		{"no_command", nil, exitBadInput, "Usage:"},
		{"unknown_command", []string{"frobnicate", "now"}, exitBadInput, `unknown command "frobnicate now"`},
		{"unknown_flag", []string{"run", "--promt", "x"}, exitBadInput, `Run "sandcastle run --help" for the flags.`},
		{"init_help", []string{"init", "-h"}, exitOK, ""},
		{"init_bad_flag", []string{"init", "--agnet", "x"}, exitBadInput, "flag provided but not defined"},
		{"init_argument", []string{"init", "extra"}, exitBadInput, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := runMain(t, e, t.TempDir(), tt.args...)
			if inv.code != tt.code || !strings.Contains(inv.output(), tt.want) {
				t.Errorf("exit %d, output:\n%s\nwant exit %d and %q", inv.code, inv.output(), tt.code, tt.want)
			}
		})
	}
}
