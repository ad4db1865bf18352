package app

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The loop's gate and budgets end to end: Main, the real claude in the Docker sandbox against
// the scripted model, the fake GitHub API and the git HTTP remote.

// TestDockerVerifyFailsOnceThenPasses: verify-command runs in the container after each
// iteration; the agent's first signal, with the check failing, does not end the run, the next
// request to the model carries the check's output, and the check passing after the second
// iteration makes the run complete.
func TestDockerVerifyFailsOnceThenPasses(t *testing.T) {
	a := newDockerAction(t,
		commitBash("work.txt", "first", "First try"), models.Text("Done. "+signal),
		commitBash("fixed.txt", "fixed", "Fix the test"), models.Text("Fixed it. "+signal))
	a.input("push", "none") // origin is a local path
	a.input("prompt", "Work, commit, then print "+signal)
	a.input("branch-strategy", "branch")
	a.input("branch", "agent/verify")
	a.input("max-iterations", "4")
	// In the container: its uid is the workspace owner's, which the host's id would not know.
	a.input("verify-command", `test "$(id -u)" = 1001 || { echo "not in the sandbox" >&2; exit 2; }`+"\n"+checkFixed)
	_, out := a.runWant(0)
	if out["status"] != "complete" || out["iterations"] != "2" || out["verified"] != "true" || out["commit-count"] != "2" {
		t.Errorf("outputs %v; want complete after 2 iterations, verified", out)
	}
	reqs := a.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests to the model, want 4 (two per iteration)", len(reqs))
	}
	if strings.Contains(reqs[0].Transcript(), "FAIL") || !strings.Contains(reqs[2].Transcript(), "FAIL: TestFixed: fixed.txt is missing") || !strings.Contains(reqs[2].Transcript(), "The check run after your last iteration") {
		t.Errorf("the second iteration's request lacks the check's output:\n%s", reqs[2].Transcript())
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}

// TestDockerCostBudgetKeepsTheWork: max-cost-usd stops a five-iteration loop after two, against
// the cost the real claude reports; both commits reach the remote. What one iteration costs is
// measured first, by the same claude on the host, so the budget falls between two iterations and
// three.
func TestDockerCostBudgetKeepsTheWork(t *testing.T) {
	actkit.RequireDocker(t)
	probe := newAction(t, commitBash("part.txt", "part", "Part"), models.Text("More to do."))
	probe.input("prompt", "Work, commit, then print "+signal)
	_, measured := probe.runWant(0)
	cost, err := strconv.ParseFloat(measured["cost-usd"], 64)
	if err != nil || cost <= 0 {
		t.Fatalf("one iteration's cost-usd %q: %v; want claude to report one", measured["cost-usd"], err)
	}

	var steps []models.Step
	for i := 1; i <= 2; i++ {
		steps = append(steps, commitBash(fmt.Sprintf("part%d.txt", i), "part", fmt.Sprintf("Part %d", i)), models.Text("More to do."))
	}
	a := newDockerAction(t, steps...)
	g := withGitHub(t, a, ghToken)
	chownTree(t, a.dir, workspaceUID)
	g.maintainerLabels(t)
	a.input("branch-strategy", "branch")
	a.input("branch", "feature")
	a.input("max-iterations", "5")
	a.key("timeouts", "max-cost-usd", strconv.FormatFloat(1.5*cost, 'f', 6, 64))
	inv, out := a.runWant(1)
	if out["status"] != "budget-exhausted" || out["iterations"] != "2" || out["commit-count"] != "2" || out["pushed"] != "true" {
		t.Errorf("outputs %v; want budget-exhausted after 2 iterations, both commits pushed", out)
	}
	if got := g.remoteSHA(t, "feature"); got == "" || got != out["head-sha"] {
		t.Errorf("the remote's feature = %q, want the agent's last commit %q", got, out["head-sha"])
	}
	if !strings.Contains(inv.output(), "budget max-cost-usd reached") {
		t.Error("the log does not name the budget")
	}
	if comments := g.api.Comments(42); len(comments) != 1 || !strings.Contains(comments[0].Body, "stopped: budget-exhausted") {
		t.Errorf("comments %+v; want the progress comment saying the budget stopped the run", comments)
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
	checkNoToken(t, a, inv)
}
