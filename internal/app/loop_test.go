package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The loop's gate and budgets through Main, with every real part but the agent CLI (testkit's
// fake claude on the host): verify-command, its output fed back, the statuses it decides, and
// budgets that stop a run and keep its work.

// checkFixed is a verify-command that fails until fixed.txt is committed, printing why on
// stderr, as a test runner does.
const checkFixed = `test -f fixed.txt || { echo "FAIL: TestFixed: fixed.txt is missing" >&2; exit 1; }`

// TestVerifyFailsOnceThenPasses: the agent signals after iteration 1 but the check fails, so the
// loop goes on and the second prompt carries the end of the check's output after the prompt;
// the check passing after iteration 2 makes the run complete.
func TestVerifyFailsOnceThenPasses(t *testing.T) {
	t.Parallel()
	a := newFakeAction(t,
		commitBash("work.txt", "first", "First try"), models.Text("Done. "+signal),
		commitBash("fixed.txt", "fixed", "Fix the test"), models.Text("Fixed it. "+signal))
	a.input("prompt", "Work, commit, then print "+signal)
	a.input("max-iterations", "4")
	a.input("verify-command", checkFixed)
	inv, out := a.runWant(0)
	if out["status"] != "complete" || out["iterations"] != "2" || out["verified"] != "true" || out["commit-count"] != "2" || out["completion-signal"] != signal {
		t.Errorf("outputs %v; want complete after 2 iterations, verified", out)
	}
	calls := a.claude.Calls()
	if len(calls) != 2 || strings.Contains(calls[0].Prompt, "FAIL") {
		t.Fatalf("calls %+v; want two, the first without a check's output", calls)
	}
	for _, want := range []string{"Work, commit, then print " + signal, "The check run after your last iteration, `" + checkFixed + "`, exited with code 1.", "FAIL: TestFixed: fixed.txt is missing"} {
		if !strings.Contains(calls[1].Prompt, want) {
			t.Errorf("the second prompt lacks %q:\n%s", want, calls[1].Prompt)
		}
	}
	for _, want := range []string{"verify-command failed after iteration 1 (exit code 1)", "Agent signalled completion, but verify-command failed after iteration 1: the loop goes on", "verify-command passed after iteration 2"} {
		if !strings.Contains(inv.output(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if summary := readFile(t, a.summary); !strings.Contains(summary, "| Verify | 1 failed, 2 passed |") {
		t.Errorf("the summary lacks the verify row:\n%s", summary)
	}
}

// TestVerifyStillFailingIsUnverified: a template's {{VERIFY_OUTPUT}} carries the check's output
// where it stands; every signal with the check failing goes on, and running out of iterations
// so is status unverified, a run that did its job otherwise (exit 0).
func TestVerifyStillFailingIsUnverified(t *testing.T) {
	t.Parallel()
	a := newFakeAction(t, models.Text("Done. "+signal), models.Text("Done now. "+signal))
	writeFile(t, filepath.Join(a.dir, "prompt.md"), "Work on {{SOURCE_BRANCH}}.\n<checks>\n{{VERIFY_OUTPUT}}\n</checks>\n")
	a.git("add", "prompt.md")
	a.git("commit", "-qm", "Add the prompt")
	a.input("prompt-file", "prompt.md")
	a.input("max-iterations", "2")
	a.input("verify-command", "echo 'lint: 3 problems' >&2\nexit 3")
	inv, out := a.runWant(0)
	if out["status"] != "unverified" || out["iterations"] != "2" || out["verified"] != "false" || out["completion-signal"] != "" {
		t.Errorf("outputs %v; want unverified after 2 iterations", out)
	}
	calls := a.claude.Calls()
	if len(calls) != 2 || !strings.Contains(calls[0].Prompt, "<checks>\n\n</checks>") || !strings.Contains(calls[1].Prompt, "<checks>\nlint: 3 problems\n</checks>") || strings.Contains(calls[1].Prompt, "The check run after") {
		t.Errorf("calls %+v; want the check's output at the placeholder of the second prompt only", calls)
	}
	if !strings.Contains(inv.output(), "Reached max iterations (2) with verify-command still failing") {
		t.Error("the log does not say why the run is unverified")
	}
}

// TestCostBudgetKeepsTheWork: max-cost-usd, checked against the cost the agent reports after
// each iteration, stops a five-iteration loop after two; the two commits are pushed, and the
// run says which budget stopped it.
func TestCostBudgetKeepsTheWork(t *testing.T) {
	t.Parallel()
	var steps []models.Step
	for i := 1; i <= 2; i++ { // two replies each: what one iteration costs is 2 * CostPerReply
		steps = append(steps, commitBash(fmt.Sprintf("part%d.txt", i), "part", fmt.Sprintf("Part %d", i)), models.Text("More to do."))
	}
	a := newFakeAction(t, steps...)
	g := withGitHub(t, a, ghToken)
	g.maintainerLabels(t)
	a.input("branch-strategy", "branch")
	a.input("branch", "feature")
	a.input("max-iterations", "5")
	a.key("timeouts", "max-cost-usd", "0.009") // reached by the second iteration's $0.01
	inv, out := a.runWant(1)
	if out["status"] != "budget-exhausted" || out["iterations"] != "2" || out["commit-count"] != "2" || out["pushed"] != "true" || out["cost-usd"] != "0.01" {
		t.Errorf("outputs %v; want budget-exhausted after 2 iterations, both commits pushed", out)
	}
	if got := g.remoteSHA(t, "feature"); got == "" || got != out["head-sha"] {
		t.Errorf("the remote's feature = %q, want the agent's last commit %q", got, out["head-sha"])
	}
	const why = "budget max-cost-usd reached: the agent reported $0.01 after 2 iteration(s), and the budget is $0.009"
	if !strings.Contains(inv.output(), why) {
		t.Errorf("the log does not name the budget: %q", why)
	}
	if comments := g.api.Comments(42); len(comments) != 1 || !strings.Contains(comments[0].Body, "stopped: budget-exhausted") || !strings.Contains(comments[0].Body, why) {
		t.Errorf("comments %+v; want the progress comment naming the budget", comments)
	}
	if summary := readFile(t, a.summary); !strings.Contains(summary, "| Stopped by | "+why) {
		t.Errorf("the summary does not name the budget:\n%s", summary)
	}
	checkNoToken(t, a, inv)
}

// TestRunMinutesStopAHangingRun: timeouts run-minutes covers the whole run: an agent that hangs
// in its second iteration is stopped when the minute is up, and the first iteration's commit is
// pushed. It takes that minute.
func TestRunMinutesStopAHangingRun(t *testing.T) {
	t.Parallel()
	a := newFakeAction(t, commitBash("part.txt", "part", "Part one"), models.Text("More to do."), models.Hang())
	g := withGitHub(t, a, ghToken)
	g.maintainerLabels(t)
	a.input("branch-strategy", "branch")
	a.input("branch", "feature")
	a.input("max-iterations", "3")
	a.key("timeouts", "run-minutes", "1")
	inv, out := a.runWant(1)
	if out["status"] != "budget-exhausted" || out["iterations"] != "2" || out["commit-count"] != "1" || out["pushed"] != "true" {
		t.Errorf("outputs %v; want budget-exhausted in the second iteration, the first's commit pushed", out)
	}
	if got := g.remoteSHA(t, "feature"); got == "" || got != out["head-sha"] {
		t.Errorf("the remote's feature = %q, want the agent's commit %q", got, out["head-sha"])
	}
	if !strings.Contains(inv.output(), "budget run-minutes reached: the run took its 1 minute(s)") {
		t.Error("the log does not name the budget")
	}
}

// TestStructuredOutputFromALoop: output-tag with several iterations reads the answer of the
// iteration that signalled completion, the second of three, not the first's draft.
func TestStructuredOutputFromALoop(t *testing.T) {
	t.Parallel()
	a := newFakeAction(t, models.Text("Not yet: <result>draft</result>"), models.Text("<result>final answer</result> "+signal))
	a.input("prompt", "Answer in <result></result>, then print "+signal)
	a.input("max-iterations", "3")
	a.input("output-tag", "result")
	_, out := a.runWant(0)
	if out["status"] != "complete" || out["iterations"] != "2" || out["output"] != "final answer" {
		t.Errorf("outputs %v; want complete after 2 iterations with the second's output", out)
	}
}
