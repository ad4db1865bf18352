package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// TestOutputsMatchActionYML: the outputs the reporter writes are exactly those action.yml
// declares (inputs.OutputNames is checked against action.yml in package inputs).
func TestOutputsMatchActionYML(t *testing.T) {
	t.Parallel()
	var written []string
	for _, p := range (report.Outcome{}).Pairs() {
		written = append(written, p[0])
	}
	if !slices.Equal(written, inputs.OutputNames) {
		t.Errorf("the reporter writes %v,\naction.yml declares %v", written, inputs.OutputNames)
	}
}

// TestREADMEDocumentsEveryInputAndOutput keeps the README's tables complete.
func TestREADMEDocumentsEveryInputAndOutput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, d := range inputs.Definitions {
		if !strings.Contains(readme, "| `"+d.Name+"` |") {
			t.Errorf("README has no row for input %q", d.Name)
		}
	}
	for _, name := range inputs.OutputNames {
		if !strings.Contains(readme, "| `"+name+"` |") {
			t.Errorf("README has no row for output %q", name)
		}
	}
}

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
