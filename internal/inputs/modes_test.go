package inputs

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// issueEvent is an issue labelled to start a run.
var issueEvent = &event.Event{Name: event.Issues, Action: "labeled", Label: "sandcastle",
	Issue: &event.Issue{Number: 12, Title: "Crash on start: `rm -rf /` $(id)"}}

// TestLoad_modeDefaults: each mode, given alone (and a token), makes a run that does its job.
func TestLoad_modeDefaults(t *testing.T) {
	t.Parallel()
	load := func(t *testing.T, mode string, e *event.Event) Config {
		t.Helper()
		env := testEnv(nil)
		env.Event = e
		c, err := load(Raw{InputMode: mode, InputGitHubToken: "ghs_x"}, env)
		if err != nil {
			t.Fatalf("load(mode %s): %v", mode, err)
		}
		if c.Mode != mode || !c.BuiltInPrompt || c.Prompt == "" || c.PromptFile != "" {
			t.Errorf("mode %s: Mode %q, BuiltInPrompt %v, PromptFile %q; want the mode's built-in prompt", mode, c.Mode, c.BuiltInPrompt, c.PromptFile)
		}
		return c
	}
	t.Run("implement", func(t *testing.T) {
		c := load(t, ModeImplement, issueEvent)
		g := c.GitHub
		if c.BranchStrategy != StrategyBranch || c.Branch != "sandcastle/issue-12-crash-on-start-rm-rf-id" || c.MaxIterations != 5 {
			t.Errorf("strategy %s, branch %q, max-iterations %d", c.BranchStrategy, c.Branch, c.MaxIterations)
		}
		if !g.OpenPR || !g.PRDraft || g.Push != PushAuto || !g.ProgressComment || g.OnPullRequest {
			t.Errorf("GitHub = %+v; want a draft pull request from the pushed branch, the progress comment", g)
		}
		if g.TriggerLabel != "sandcastle" || g.InProgressLabel != "sandcastle:in-progress" || g.BlockedLabel != "sandcastle:blocked" {
			t.Errorf("labels %q %q %q", g.TriggerLabel, g.InProgressLabel, g.BlockedLabel)
		}
		if !slices.Equal(g.Subjects, []event.Subject{event.SubjectIssue}) {
			t.Errorf("subjects %q; want issues alone", g.Subjects)
		}
		if c.Output != nil || g.OutputAction != OutputActionNone {
			t.Errorf("Output %+v, output-action %q; want none", c.Output, g.OutputAction)
		}
		for _, key := range []string{"{{ISSUE_NUMBER}}", "{{ISSUE_TITLE}}", "{{ISSUE_BODY}}"} {
			if !strings.Contains(c.Prompt, key) {
				t.Errorf("the built-in prompt does not use %s", key)
			}
		}
	})
	t.Run("pr", func(t *testing.T) {
		c := load(t, ModePR, &event.Event{Name: event.IssueComment, Issue: &event.Issue{Number: 5, IsPR: true}, Comment: &event.Comment{Body: "/sandcastle fix it"}})
		g := c.GitHub
		if c.BranchStrategy != StrategyHead || c.Branch != "" || g.Push != PushLease || g.OpenPR || !g.OnPullRequest || !g.ProgressComment || !g.Reply {
			t.Errorf("strategy %s, branch %q, GitHub %+v; want the pull request's own branch, pushed with a lease", c.BranchStrategy, c.Branch, g)
		}
		// event.TestDecideReviewOrPR decides with these.
		if !slices.Equal(g.TriggerPhrases, []string{"/sandcastle", "@sandcastle"}) || !slices.Equal(g.TriggerNotBefore, []string{"review"}) ||
			!slices.Equal(g.Subjects, []event.Subject{event.SubjectPullRequest}) {
			t.Errorf("phrases %q not before %q, subjects %q; want the defaults but for review", g.TriggerPhrases, g.TriggerNotBefore, g.Subjects)
		}
	})
	t.Run("review", func(t *testing.T) {
		c := load(t, ModeReview, &event.Event{Name: event.PullRequest, Action: "opened", PR: &event.PR{Number: 5}})
		g := c.GitHub
		if g.OutputAction != OutputActionReview || c.Output == nil || c.Output.Tag != "result" || c.Output.Schema == nil || c.MaxIterations != 1 {
			t.Errorf("output-action %q, Output %+v, max-iterations %d; want review's tag and schema, one iteration", g.OutputAction, c.Output, c.MaxIterations)
		}
		if g.Push != PushNone || g.OpenPR || g.ProgressComment || !g.OnPullRequest {
			t.Errorf("GitHub = %+v; want nothing pushed, no comment, on the pull request", g)
		}
		if !slices.Equal(g.TriggerPhrases, []string{"/sandcastle review", "@sandcastle review"}) || len(g.TriggerNotBefore) != 0 ||
			!slices.Equal(g.Subjects, []event.Subject{event.SubjectPullRequest}) {
			t.Errorf("trigger phrases %q, not before %q, subjects %q", g.TriggerPhrases, g.TriggerNotBefore, g.Subjects)
		}
		if !strings.Contains(c.Prompt, "<result>") {
			t.Error("the built-in prompt does not ask for <result>")
		}
	})
	t.Run("triage", func(t *testing.T) {
		c := load(t, ModeTriage, &event.Event{Name: event.Schedule})
		g := c.GitHub
		if g.OutputAction != OutputActionTriage || c.Output == nil || c.Output.Tag != "result" || c.MaxIterations != 1 || g.Push != PushNone || g.OpenPR || g.ProgressComment || g.OnPullRequest {
			t.Errorf("Config %+v; want a triage run that changes no branch", c)
		}
		if !slices.Equal(g.Subjects, []event.Subject{event.SubjectWorkflow}) {
			t.Errorf("subjects %q; want the workflow alone", g.Subjects)
		}
		if !slices.Contains(g.Triage.AllowedLabels, "bug") || !slices.Contains(g.Triage.AllowedLabels, "good first issue") || g.Triage.MaxActions != 20 {
			t.Errorf("Triage = %+v; want GitHub's default labels allowed", g.Triage)
		}
		if got := c.PromptArgs["ALLOWED_LABELS"]; !strings.HasPrefix(got, "bug, documentation, ") || !strings.Contains(c.PromptArgs["TRIAGED"], "labelled sandcastle:triaged") {
			t.Errorf("PromptArgs %q; want the prompt told the allowed labels and the triaged one", c.PromptArgs)
		}
		for _, key := range []string{"{{ALLOWED_LABELS}}", "{{TRIAGED}}"} {
			if !strings.Contains(c.Prompt, key) {
				t.Errorf("the built-in prompt does not use %s", key)
			}
		}
	})
}

// TestLoad_planMode: mode plan changes no branch and reads its tasks with its own schema, on
// a schedule or a run started by hand; its prompt is told how many tasks it may give.
func TestLoad_planMode(t *testing.T) {
	t.Parallel()
	env := testEnv(nil)
	env.Event = &event.Event{Name: event.WorkflowDispatch}
	c, err := load(Raw{InputMode: ModePlan, InputGitHubToken: "ghs_x"}, env)
	if err != nil {
		t.Fatal(err)
	}
	g := c.GitHub
	if g.OutputAction != OutputActionPlan || c.Output == nil || c.Output.Tag != "result" || string(c.Output.Schema) != fanout.Schema ||
		c.MaxIterations != 1 || c.BranchStrategy != StrategyHead || g.Push != PushNone || g.OpenPR || g.ProgressComment {
		t.Errorf("Config %+v; want a plan run that changes no branch and reads its tasks", c)
	}
	if !slices.Equal(g.Subjects, []event.Subject{event.SubjectWorkflow}) {
		t.Errorf("subjects %q; want the workflow alone", g.Subjects)
	}
	if !c.BuiltInPrompt || c.PromptArgs["MAX_TASKS"] != "20" || !strings.Contains(c.Prompt, "{{MAX_TASKS}}") {
		t.Errorf("prompt args %q; want the built-in prompt told the most tasks", c.PromptArgs)
	}
}

// TestLoad_implementAMatrixTask: implement answers a run started by hand or by a schedule (a
// plan's matrix job) only when the workflow gives the branch and the prompt; given neither, or
// only one, it answers issues alone.
func TestLoad_implementAMatrixTask(t *testing.T) {
	t.Parallel()
	env := testEnv(nil)
	env.Event = &event.Event{Name: event.WorkflowDispatch}
	c, err := load(Raw{InputMode: ModeImplement, InputBranch: "sandcastle/run-1/readme", InputPrompt: "Fix the README."}, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []event.Subject{event.SubjectIssue, event.SubjectWorkflow}; !slices.Equal(c.GitHub.Subjects, want) || c.Branch != "sandcastle/run-1/readme" || c.BuiltInPrompt {
		t.Errorf("subjects %q, branch %q; want %q on the given branch with the given prompt", c.GitHub.Subjects, c.Branch, want)
	}
	for _, raw := range []Raw{{InputMode: ModeImplement, InputBranch: "work"}, {InputMode: ModeImplement, InputPrompt: "Fix it."}} {
		c, err := load(raw, env)
		if err != nil || !slices.Equal(c.GitHub.Subjects, []event.Subject{event.SubjectIssue}) {
			t.Errorf("load(%v) = subjects %q, %v; want issues alone", raw, c.GitHub.Subjects, err)
		}
	}
}

// TestLoad_modeGivenInputsWin: what the workflow sets replaces the mode's value, the prompt
// included.
func TestLoad_modeGivenInputsWin(t *testing.T) {
	t.Parallel()
	env := testEnv(map[string]string{"p.md": "Fix #{{ISSUE_NUMBER}}."})
	env.Event = issueEvent
	c, err := load(Raw{InputMode: ModeImplement, InputGitHubToken: "ghs_x", InputPromptFile: "p.md", InputMaxIterations: "2",
		InputBranch: "fix/12", InputTriggerLabel: "agent", InputPRDraft: "false", InputOutputAction: "none"}, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.BuiltInPrompt || c.Prompt != "Fix #{{ISSUE_NUMBER}}." || c.MaxIterations != 2 || c.Branch != "fix/12" || c.GitHub.TriggerLabel != "agent" || c.GitHub.PRDraft {
		t.Errorf("Config %+v; want the given inputs", c)
	}
	if c.GitHub.InProgressLabel != "sandcastle:in-progress" || !c.GitHub.OpenPR {
		t.Errorf("GitHub %+v; want the mode's values for what was not given", c.GitHub)
	}
	c, err = load(Raw{InputMode: ModeReview, InputPrompt: "Review it; answer in <result>.", InputMaxIterations: "01", InputPush: "none"}, testEnv(nil))
	if err != nil || c.BuiltInPrompt || c.MaxIterations != 1 {
		t.Errorf("load(review, the values it needs written otherwise) = %+v, %v", c, err)
	}
	c, err = load(Raw{InputMode: ModeTriage, InputOpenPR: "No", InputPush: " none\n"}, testEnv(nil))
	if err != nil || c.GitHub.OpenPR || c.GitHub.Push != PushNone {
		t.Errorf("load(triage, a boolean and a choice it needs written otherwise) = %+v, %v", c.GitHub, err)
	}
	// Another strategy than the mode's has no branch to name.
	env.Event = issueEvent
	c, err = load(Raw{InputMode: ModeImplement, InputBranchStrategy: "merge-to-head", InputOpenPR: "false"}, env)
	if err != nil || c.Branch != "" {
		t.Errorf("load(implement, merge-to-head) = branch %q, %v; want none", c.Branch, err)
	}
}

// TestLoad_modeConflicts: a value the mode cannot work with is one problem naming the input and
// the mode, not also the problems the value would cause after it.
func TestLoad_modeConflicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw         Raw
		input, want string
	}{
		{Raw{InputMode: ModeTriage, InputOpenPR: "true"}, InputOpenPR, `mode triage needs "false", since it changes no branch, but it is "true"`},
		{Raw{InputMode: ModeTriage, InputPush: "force"}, InputPush, "mode triage needs"},
		{Raw{InputMode: ModeReview, InputOutputAction: OutputActionTriage}, InputOutputAction, "mode review needs"},
		{Raw{InputMode: ModeImplement, InputOutputAction: OutputActionReview, InputBranch: "b"}, InputOutputAction, "mode implement needs"},
		{Raw{InputMode: "fix"}, InputMode, "use one of: run, implement, pr, review, triage"},
	}
	for _, tt := range tests {
		given := maps.Clone(tt.raw)
		checkOneProblem(t, func() error { _, err := load(tt.raw, testEnv(nil)); return err }(), tt.input, tt.want)
		if !maps.Equal(tt.raw, given) {
			t.Errorf("Load changed its caller's inputs %v to %v", given, tt.raw)
		}
	}
}

// TestLoad_implementNeedsAnIssue: the implement mode's branch is named after the event's issue,
// so without one the branch must be given.
func TestLoad_implementNeedsAnIssue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		event *event.Event
		want  string
	}{
		{nil, "no event started this one"},
		{&event.Event{Name: "release"}, "the release event is about no issue"},
	} {
		env := testEnv(nil)
		env.Event = tt.event
		_, err := load(Raw{InputMode: ModeImplement, InputPromptArgs: "ISSUE_NUMBER: 1"}, env)
		checkOneProblem(t, err, InputBranch, tt.want)
		env.EventUnread = true
		if _, err := load(Raw{InputMode: ModeImplement}, env); err != nil {
			t.Errorf("with an unread event, whose problem is the caller's: %v", err)
		}
	}
	env := testEnv(nil)
	c, err := load(Raw{InputMode: ModeImplement, InputBranch: "work"}, env)
	if err != nil || c.Branch != "work" {
		t.Errorf("Load with a branch = %q, %v", c.Branch, err)
	}
	// An event about what the mode does not answer is skipped: no branch to name.
	env.Event = &event.Event{Name: event.WorkflowDispatch}
	if c, err := load(Raw{InputMode: ModeImplement}, env); err != nil || c.Branch != "" {
		t.Errorf("Load on a workflow_dispatch = branch %q, %v; want none, and no problem", c.Branch, err)
	}
}

func TestIssueBranch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		number int
		title  string
		want   string
	}{
		{12, "Fix the crash on start", "sandcastle/issue-12-fix-the-crash-on-start"},
		{7, "日本語のタイトル", "sandcastle/issue-7"},
		{3, "../../refs/heads/main.lock @{u} -rf", "sandcastle/issue-3-refs-heads-main-lock-u-rf"},
	} {
		got := IssueBranch(tt.number, tt.title)
		if got != tt.want {
			t.Errorf("IssueBranch(%d, %q) = %q, want %q", tt.number, tt.title, got, tt.want)
		}
		if err := gitref.Check(got); err != nil {
			t.Error(err)
		}
	}
}

// TestModes: the table's rows are complete: every mode but run has a built-in prompt, a setting
// names a defined input with a value Load takes, and no input is set twice.
func TestModes(t *testing.T) {
	t.Parallel()
	if got, want := modeNames(), []string{ModeRun, ModeImplement, ModePR, ModeReview, ModeTriage, ModePlan}; !slices.Equal(got, want) {
		t.Errorf("modes %q, want %q", got, want)
	}
	for _, m := range Modes {
		if (m.Prompt == "") != (m.Name == ModeRun) {
			t.Errorf("mode %s: built-in prompt %q", m.Name, m.Prompt)
		}
		var seen []string
		for _, s := range m.Settings {
			d, ok := Lookup(s.Input)
			if !ok || s.Input == InputMode || slices.Contains(seen, s.Input) {
				t.Errorf("mode %s: setting of %q: not an input, or set twice", m.Name, s.Input)
			}
			if !strings.Contains(d.Description, "Empty means the mode's value") {
				t.Errorf("input %q: the description does not say that a mode sets it: %s", s.Input, d.Description)
			}
			seen = append(seen, s.Input)
		}
	}
}

// TestLoad_modesInTheAction: the Actions runner passes a default of action.yml as INPUT_*, as
// if the workflow had set it, so a step with only mode: loads as mode alone does on the command
// line only when action.yml gives no default to what a mode sets.
func TestLoad_modesInTheAction(t *testing.T) {
	t.Parallel()
	defaults := actionDefaults(t)
	events := map[string]*event.Event{
		ModeImplement: issueEvent,
		ModePR:        {Name: event.IssueComment, Issue: &event.Issue{Number: 5, IsPR: true}, Comment: &event.Comment{Body: "/sandcastle fix it"}},
		ModeReview:    {Name: event.PullRequest, Action: "opened", PR: &event.PR{Number: 5}},
		ModeTriage:    {Name: event.Schedule},
	}
	for _, m := range Modes {
		env := testEnv(nil)
		env.Event = events[m.Name]
		raw := Raw{InputMode: m.Name, InputGitHubToken: "ghs_x"}
		if m.Prompt == "" {
			raw[InputPrompt] = "Fix the bug."
		}
		want, err := load(raw, env)
		if err != nil {
			t.Fatalf("mode %s alone: %v", m.Name, err)
		}
		runner := map[string]string{}
		for name, v := range raw {
			runner[EnvName(name)] = v
		}
		for name, v := range defaults {
			if strings.HasPrefix(v, "${{") {
				v = "ghs_x" // the runner evaluates the expression: github.token
			}
			if _, given := raw[name]; !given {
				runner[EnvName(name)] = v
			}
		}
		got, err := load(FromEnv(func(k string) string { return runner[k] }), env)
		if err != nil {
			t.Errorf("mode %s in the Action: %v", m.Name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mode %s in the Action: %s\nwant, as mode alone: %s", m.Name, settingsOf(got), settingsOf(want))
		}
	}
}

// settingsOf shows the values of c that the modes set.
func settingsOf(c Config) string {
	g := c.GitHub
	return fmt.Sprintf("max-iterations %d, branch-strategy %s, push %s, open-pr %v, pr-draft %v, progress-comment %v, output-action %s",
		c.MaxIterations, c.BranchStrategy, g.Push, g.OpenPR, g.PRDraft, g.ProgressComment, g.OutputAction)
}

// TestLoad_triagePromptSaysWhatIsAllowed: the triage prompt names the labels the run allows,
// the workflow's own when it lists them, unless prompt-args says otherwise; a prompt of the
// workflow's own gets none of it.
func TestLoad_triagePromptSaysWhatIsAllowed(t *testing.T) {
	t.Parallel()
	env := testEnv(map[string]string{"p.md": "Triage; answer in <result>."})
	for _, tt := range []struct {
		raw  Raw
		want map[string]string
	}{
		{Raw{InputAllowedLabels: "bug\nneeds info", InputTriagedLabel: "seen"},
			map[string]string{"ALLOWED_LABELS": "bug, needs info", "TRIAGED": "labelled seen, or that an earlier triage commented on"}},
		{Raw{InputAllowedLabels: "bug", InputPromptArgs: "ALLOWED_LABELS: any\nTEAM: core"},
			map[string]string{"ALLOWED_LABELS": "any", "TEAM": "core", "TRIAGED": "labelled sandcastle:triaged, or that an earlier triage commented on"}},
		{Raw{InputAllowedLabels: "bug", InputPromptFile: "p.md"}, nil},
	} {
		tt.raw[InputMode] = ModeTriage
		c, err := load(tt.raw, env)
		if err != nil || !maps.Equal(c.PromptArgs, tt.want) {
			t.Errorf("load(%v) = prompt-args %q, %v; want %q", tt.raw, c.PromptArgs, err, tt.want)
		}
	}
}
