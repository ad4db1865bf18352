package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestShellExpressionFailureStopsRun: a failing !`cmd` in a prompt template stops the run
// before the agent starts, naming the command, its exit code and its stderr.
func TestShellExpressionFailureStopsRun(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t) // its claude fails loudly if it is ever started
	dir := newRepo(t, e)
	writeFile(t, filepath.Join(dir, "p.md"), "Context: !`git log -1 --format=%s`\nBroken: !`echo nope >&2; exit 3`\n")
	writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), "p.md\n")
	inv := runMain(t, e, dir, "run", "--sandbox", "none", "--prompt-file", "p.md", "--log-file", "-")
	if inv.code != 1 {
		t.Fatalf("exit %d, want 1; output:\n%s", inv.code, inv.output())
	}
	for _, want := range []string{"echo nope >&2; exit 3", "exited with code 3", "nope", "status=failed"} {
		if !strings.Contains(inv.output(), want) {
			t.Errorf("output lacks %q:\n%s", want, inv.output())
		}
	}
	if strings.Contains(inv.output(), "this claude must not run") {
		t.Error("the agent was started although the prompt could not be built")
	}
}
