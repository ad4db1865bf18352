package scaffold

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// modeWorkflow is the part of a mode's workflow the tests look at.
type modeWorkflow struct {
	On          map[string]yaml.Node `yaml:"on"`
	Permissions map[string]string    `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]struct {
		If          string `yaml:"if"`
		Concurrency struct {
			Group            string `yaml:"group"`
			CancelInProgress bool   `yaml:"cancel-in-progress"`
		} `yaml:"concurrency"`
		TimeoutMinutes int            `yaml:"timeout-minutes"`
		Steps          []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestWriteModes: --mode writes the shared files once and each mode's workflow, no prompt of
// its own, golden for claude-code.
func TestWriteModes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := Write(dir, Options{Modes: []string{"review", "implement", "review"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".sandcastle/Dockerfile", ".sandcastle/.gitignore", ".sandcastle/.env.example", ".github/workflows/sandcastle-review.yml", ".github/workflows/sandcastle-implement.yml"}
	for i := range want {
		want[i] = filepath.FromSlash(want[i])
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("Write returned %q, want %q", paths, want)
	}
	for _, m := range Modes() {
		dir := t.TempDir()
		if _, err := Write(dir, Options{Modes: []string{m}}); err != nil {
			t.Fatal(err)
		}
		golden(t, "mode-"+m+".yml", []byte(readTree(t, dir)[".github/workflows/sandcastle-"+m+".yml"]))
	}
	for _, bad := range []string{"run", "implment", ""} {
		if paths, err := Write(t.TempDir(), Options{Modes: []string{bad}}); err == nil || !strings.Contains(err.Error(), "implement, pr, review, triage") {
			t.Errorf("Write(mode %q) = %q, %v; want an error listing the modes", bad, paths, err)
		}
	}
}

// TestModeWorkflows: each mode's workflow, for every agent, starts on the events the mode
// answers and only the actions that ask for a run, with the least permissions it needs, one
// concurrency group per issue or pull request (one for triage), a timeout, a checkout that
// keeps no token, and the action with mode: and the agent's secret alone.
func TestModeWorkflows(t *testing.T) {
	t.Parallel()
	type want struct {
		on          map[string][]string // event → types; nil for events without types
		permissions map[string]string
		group       string
		cancel      bool
	}
	wants := map[string]want{
		inputs.ModeImplement: {map[string][]string{"issues": {"labeled"}, "issue_comment": {"created"}},
			map[string]string{"contents": "write", "issues": "write", "pull-requests": "write"}, "sandcastle-implement-${{ github.event.issue.number }}", false},
		inputs.ModePR: {map[string][]string{"issue_comment": {"created"}, "pull_request_review_comment": {"created"}},
			map[string]string{"contents": "write", "pull-requests": "write"}, "sandcastle-pr-${{ github.event.issue.number || github.event.pull_request.number }}", false},
		inputs.ModeReview: {map[string][]string{"pull_request": {"opened", "synchronize", "reopened", "ready_for_review"}, "issue_comment": {"created"}},
			map[string]string{"contents": "read", "pull-requests": "write"}, "sandcastle-review-${{ github.event.pull_request.number || github.event.issue.number }}", true},
		inputs.ModeTriage: {map[string][]string{"schedule": nil, "workflow_dispatch": nil},
			map[string]string{"contents": "read", "issues": "write"}, "sandcastle-triage", false},
	}
	// What each event can be about: an issue_comment is on an issue or a pull request.
	subjects := map[string][]event.Subject{
		"issues": {event.SubjectIssue}, "issue_comment": {event.SubjectIssue, event.SubjectPullRequest},
		"pull_request": {event.SubjectPullRequest}, "pull_request_review_comment": {event.SubjectPullRequest},
		"schedule": {event.SubjectWorkflow}, "workflow_dispatch": {event.SubjectWorkflow},
	}
	// Plan's workflow has two jobs, the plan and its matrix: TestPlanWorkflow looks at it.
	oneJob := slices.DeleteFunc(Modes(), func(m string) bool { return m == inputs.ModePlan })
	if got := slices.Sorted(maps.Keys(wants)); !slices.Equal(got, slices.Sorted(slices.Values(oneJob))) {
		t.Fatalf("the test knows modes %q, want %q", got, oneJob)
	}
	for _, agentName := range Agents() {
		for _, m := range oneJob {
			dir := t.TempDir()
			if _, err := Write(dir, Options{Agent: agentName, Modes: []string{m}}); err != nil {
				t.Fatal(err)
			}
			where := agentName + "/" + m
			var wf modeWorkflow
			if err := yaml.Unmarshal([]byte(readTree(t, dir)[".github/workflows/sandcastle-"+m+".yml"]), &wf); err != nil {
				t.Fatalf("%s: not YAML: %v", where, err)
			}
			w := wants[m]
			row, _ := inputs.LookupMode(m)
			if got := slices.Sorted(maps.Keys(wf.On)); !slices.Equal(got, slices.Sorted(maps.Keys(w.on))) {
				t.Errorf("%s: on %q, want %q", where, got, slices.Sorted(maps.Keys(w.on)))
			}
			for name, node := range wf.On {
				var spec struct {
					Types []string `yaml:"types"`
				}
				if node.Kind == yaml.MappingNode {
					if err := node.Decode(&spec); err != nil {
						t.Fatal(err)
					}
				}
				if !slices.Equal(spec.Types, w.on[name]) {
					t.Errorf("%s: on.%s.types %q, want %q", where, name, spec.Types, w.on[name])
				}
				if !slices.ContainsFunc(subjects[name], func(s event.Subject) bool { return slices.Contains(row.Subjects, s) }) {
					t.Errorf("%s: on %s, which is about %q; the mode answers %q", where, name, subjects[name], row.Subjects)
				}
			}
			if !maps.Equal(wf.Permissions, w.permissions) {
				t.Errorf("%s: permissions %v, want %v", where, wf.Permissions, w.permissions)
			}
			job, ok := wf.Jobs[m]
			if !ok || len(wf.Jobs) != 1 {
				t.Fatalf("%s: jobs %q, want one named %s", where, slices.Sorted(maps.Keys(wf.Jobs)), m)
			}
			// The job's group when it has an if: (app.TestWorkflowsQueueOnTheJob says why).
			group := wf.Concurrency
			if job.If != "" {
				group = job.Concurrency
				if wf.Concurrency.Group != "" {
					t.Errorf("%s: the workflow's concurrency %+v; want the job's alone", where, wf.Concurrency)
				}
			}
			if group.Group != w.group || group.CancelInProgress != w.cancel {
				t.Errorf("%s: concurrency %+v, want group %q, cancel-in-progress %v", where, group, w.group, w.cancel)
			}
			if strings.Contains(job.If, "\n") || (job.If == "") != (m == inputs.ModeTriage) {
				t.Errorf("%s: if %q; want one line, and a condition but on a schedule", where, job.If)
			}
			if job.TimeoutMinutes < 10 || job.TimeoutMinutes > 60 {
				t.Errorf("%s: timeout-minutes %d", where, job.TimeoutMinutes)
			}
			if len(job.Steps) != 2 || job.Steps[0].Uses != CheckoutRef || job.Steps[0].With["persist-credentials"] != "false" || job.Steps[1].Uses != ActionRef() {
				t.Fatalf("%s: steps %+v; want the checkout without persisted credentials, then the action", where, job.Steps)
			}
			with := map[string]string{"mode": m}
			if agentName != DefaultAgent {
				with["agent"] = agentName
			}
			p, _ := agent.Lookup(agentName)
			secret := p.Secret
			if run := job.Steps[1]; !maps.Equal(run.With, with) || !maps.Equal(run.Env, map[string]string{secret: "${{ secrets." + secret + " }}"}) {
				t.Errorf("%s: the action gets with %v, env %v; want %v and the secret %s", where, run.With, run.Env, with, secret)
			}
		}
	}
}

// TestPlanWorkflow: plan's workflow, for every agent, starts by hand, plans with read access
// alone, and runs one implement job per task of the plan's matrix output, at most four at once,
// none cancelled by another's failure, skipped when the plan has no task; each job gives the
// action its task's branch and prompt.
func TestPlanWorkflow(t *testing.T) {
	t.Parallel()
	type job struct {
		Needs       string            `yaml:"needs"`
		If          string            `yaml:"if"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency struct {
			Group string `yaml:"group"`
		} `yaml:"concurrency"`
		Outputs  map[string]string `yaml:"outputs"`
		Strategy struct {
			Matrix      string `yaml:"matrix"`
			MaxParallel int    `yaml:"max-parallel"`
			FailFast    *bool  `yaml:"fail-fast"`
		} `yaml:"strategy"`
		TimeoutMinutes int            `yaml:"timeout-minutes"`
		Steps          []workflowStep `yaml:"steps"`
	}
	for _, agentName := range Agents() {
		dir := t.TempDir()
		if _, err := Write(dir, Options{Agent: agentName, Modes: []string{inputs.ModePlan}}); err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On          map[string]any    `yaml:"on"`
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]job    `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(readTree(t, dir)[".github/workflows/sandcastle-plan.yml"]), &wf); err != nil {
			t.Fatalf("%s: not YAML: %v", agentName, err)
		}
		if got := slices.Sorted(maps.Keys(wf.On)); !slices.Equal(got, []string{"workflow_dispatch"}) || len(wf.Permissions) != 0 || len(wf.Jobs) != 2 {
			t.Fatalf("%s: on %q, permissions %v, %d jobs; want workflow_dispatch, none but each job's, two jobs", agentName, got, wf.Permissions, len(wf.Jobs))
		}
		p, _ := agent.Lookup(agentName)
		env := map[string]string{p.Secret: "${{ secrets." + p.Secret + " }}"}
		withAgent := func(with map[string]string) map[string]string {
			if agentName != DefaultAgent {
				with["agent"] = agentName
			}
			return with
		}
		plan, impl := wf.Jobs["plan"], wf.Jobs["implement"]
		if !maps.Equal(plan.Permissions, map[string]string{"contents": "read", "issues": "read"}) || plan.Concurrency.Group != "sandcastle-plan" ||
			plan.Outputs["matrix"] != "${{ steps.sandcastle.outputs.matrix }}" || plan.Outputs["task-count"] != "${{ steps.sandcastle.outputs.task-count }}" {
			t.Errorf("%s: plan job %+v; want read access, one plan at a time, the matrix and task-count passed on", agentName, plan)
		}
		if len(plan.Steps) != 2 || plan.Steps[0].With["persist-credentials"] != "false" || !maps.Equal(plan.Steps[1].With, withAgent(map[string]string{"mode": "plan"})) || !maps.Equal(plan.Steps[1].Env, env) {
			t.Errorf("%s: plan steps %+v", agentName, plan.Steps)
		}
		if impl.Needs != "plan" || impl.If != "needs.plan.outputs.task-count != '0'" || impl.Strategy.Matrix != "${{ fromJSON(needs.plan.outputs.matrix) }}" ||
			impl.Strategy.MaxParallel != 4 || impl.Strategy.FailFast == nil || *impl.Strategy.FailFast || impl.Concurrency.Group != "sandcastle-${{ matrix.branch }}" ||
			!maps.Equal(impl.Permissions, map[string]string{"contents": "write", "issues": "write", "pull-requests": "write"}) || impl.TimeoutMinutes > 60 {
			t.Errorf("%s: implement job %+v; want the plan's matrix, four at a time, fail-fast off, skipped without a task", agentName, impl)
		}
		want := withAgent(map[string]string{"mode": "implement", "branch": "${{ matrix.branch }}", "prompt": "${{ matrix.prompt }}"})
		if len(impl.Steps) != 2 || impl.Steps[0].With["persist-credentials"] != "false" || impl.Steps[1].Uses != ActionRef() || !maps.Equal(impl.Steps[1].With, want) || !maps.Equal(impl.Steps[1].Env, env) {
			t.Errorf("%s: implement steps %+v; want the action with %v", agentName, impl.Steps, want)
		}
	}
}
