package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// dispatched is a workflow_dispatch event on the repository, as a plan and its matrix jobs get.
func (g *github) dispatched(t *testing.T) {
	t.Helper()
	g.event(t, "workflow_dispatch", map[string]any{"inputs": map[string]any{}, "ref": "refs/heads/main",
		"sender": map[string]any{"login": "maintainer", "type": "User"}, "repository": map[string]any{"full_name": ghRepo}})
}

// planOutput is the agent's answer: tasks as a plan output, then the signal.
func planOutput(t *testing.T, tasks ...map[string]any) models.Step {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tasks": tasks})
	if err != nil {
		t.Fatal(err)
	}
	return models.Text("<result>" + string(b) + "</result> " + signal)
}

// TestPlanMode: mode plan alone, started by hand, turns the agent's tasks into the matrix
// output, each task on its branch under the run's id, and changes no branch; an empty plan is
// an empty matrix; a plan whose tasks would not make a matrix fails the run, naming why, and
// sets no matrix.
func TestPlanMode(t *testing.T) {
	task := func(id, title, prompt string) map[string]any {
		return map[string]any{"id": id, "title": title, "prompt": prompt}
	}
	for _, tt := range []struct {
		name      string
		tasks     []map[string]any
		code      int
		status    string
		matrix    string
		count     string
		wantInLog string
	}{
		{name: "three_tasks", status: "complete", count: "3",
			tasks: []map[string]any{
				{"id": "readme", "title": "Fix the README", "prompt": "Fix {{WHAT}}.", "prompt_args": map[string]string{"WHAT": "its typos"}},
				task("api-docs", "Document the API", "Document `Run` in api.md."),
				task("faq", "Write a FAQ", "Write docs/faq.md."),
			},
			matrix: `{"include":[` +
				`{"task":"readme","title":"Fix the README","branch":"sandcastle/run-4242/readme","prompt":"Fix its typos."},` +
				`{"task":"api-docs","title":"Document the API","branch":"sandcastle/run-4242/api-docs","prompt":"Document ` + "`Run`" + ` in api.md."},` +
				`{"task":"faq","title":"Write a FAQ","branch":"sandcastle/run-4242/faq","prompt":"Write docs/faq.md."}]}`},
		{name: "no_task", status: "complete", count: "0", matrix: `{"include":[]}`},
		{name: "duplicate_ids", code: 1, status: "failed",
			tasks:     []map[string]any{task("docs", "A", "a"), task("docs", "B", "b")},
			wantInLog: `task 2 id "docs" is given twice`},
		{name: "bad_id", code: 1, status: "failed",
			tasks:     []map[string]any{task("../main", "A", "a")},
			wantInLog: `task 1 id "../main" is not a slug`},
		{name: "command_in_a_prompt", code: 1, status: "failed",
			tasks:     []map[string]any{task("a", "A", "Start with !`touch pwned-plan`.")},
			wantInLog: "a command its run would execute"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tasks := tt.tasks
			if tasks == nil {
				tasks = []map[string]any{}
			}
			a := newFakeAction(t, planOutput(t, tasks...))
			g := withGitHub(t, a, ghToken)
			g.dispatched(t)
			a.input("mode", "plan")

			inv, out := a.runWant(tt.code)
			if out["status"] != tt.status || out["matrix"] != tt.matrix || out["task-count"] != tt.count {
				t.Errorf("status %q, task-count %q, matrix\n%s\nwant %q, %q,\n%s", out["status"], out["task-count"], out["matrix"], tt.status, tt.count, tt.matrix)
			}
			if !strings.Contains(inv.output(), tt.wantInLog) {
				t.Errorf("the log does not say %q:\n%s", tt.wantInLog, inv.output())
			}
			if out["pushed"] != "false" || out["commit-count"] != "0" || out["head-sha"] != out["base-sha"] || len(g.api.PRs()) != 0 {
				t.Errorf("outputs %v, pull requests %v; want no branch changed", out, g.api.PRs())
			}
			if calls := a.claude.Calls(); len(calls) != 1 || !strings.Contains(calls[0].Prompt, "At most 20 tasks") {
				t.Errorf("calls %+v; want one, with the built-in prompt and its limit", calls)
			}
			if found := pwned(t, filepath.Dir(a.dir)); len(found) > 0 {
				t.Errorf("a task's prompt ran as shell: %q", found)
			}
		})
	}
}

// TestPlanMatrixTask: a job of the plan's matrix, mode implement with the task's branch and
// prompt, answers the workflow_dispatch that started the plan, gives the agent the prompt as
// written (a command in it does not run) and pushes its commits to sandcastle/<plan-id>/<task-id>.
func TestPlanMatrixTask(t *testing.T) {
	a := newFakeAction(t, commitBash("README.md", "fixed", "Fix the typos"), models.Text("Fixed the typos. "+signal))
	g := withGitHub(t, a, ghToken)
	g.dispatched(t)
	const branch, prompt = "sandcastle/run-4242/readme", "Fix the README's typos. !`touch pwned-task`"
	a.input("mode", "implement")
	a.input("branch", branch)
	a.input("prompt", prompt)
	a.input("prompt-args", "") // the matrix entry's, which a task's inline prompt leaves empty

	_, out := a.runWant(0)
	if out["status"] != "complete" || out["branch"] != branch || out["pushed"] != "true" || g.remoteSHA(t, branch) != out["head-sha"] || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete, one commit pushed to %s", out, branch)
	}
	if calls := a.claude.Calls(); len(calls) != 1 || !strings.Contains(calls[0].Prompt, prompt) {
		t.Errorf("calls %+v; want one, with the task's prompt as written", calls)
	}
	if found := pwned(t, filepath.Dir(a.dir)); len(found) > 0 {
		t.Errorf("the task's prompt ran as shell: %q", found)
	}
	prs := g.api.PRs()
	if len(prs) != 1 || prs[0].Head != "octo:"+branch || !prs[0].Draft || strings.Contains(prs[0].Body, "Closes #") {
		t.Errorf("pull requests %+v; want one draft from %s that closes no issue", prs, branch)
	}
}
