package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// problems are the inputs err's problems name, in order; a test fails on an error that is no
// Problem.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var names []string
	for _, e := range inputs.Unjoin(err) {
		var p *inputs.Problem
		if !errors.As(e, &p) {
			t.Fatalf("%v is no *inputs.Problem", e)
		}
		names = append(names, p.Input)
	}
	return names
}

func TestRenderPrompt(t *testing.T) {
	file := func(text string) inputs.Config {
		return inputs.Config{PromptFile: "/repo/p.md", Prompt: text, PromptArgs: map[string]string{"ISSUE_TITLE": "given", "UNUSED": "x"}}
	}
	event := map[string]string{"ISSUE_NUMBER": "7", "ISSUE_TITLE": "from the event"}
	tests := []struct {
		name     string
		cfg      inputs.Config
		max      int
		want     string   // the prompt's text
		warnings []string // what the run warns of
		inputs   []string // the inputs the problems name
	}{
		{name: "inline_verbatim", cfg: inputs.Config{Prompt: "{{ISSUE_TITLE}} !`x`"}, want: "{{ISSUE_TITLE}} !`x`"},
		{name: "prompt_args_win_over_the_event", cfg: file("#{{ISSUE_NUMBER}} {{ISSUE_TITLE}} on {{SOURCE_BRANCH}} for {{TARGET_BRANCH}}"),
			want: "#7 given on work for main", warnings: []string{`prompt-args: "UNUSED" is not used by the prompt`}},
		{name: "missing_key", cfg: file("{{ISSUE_TITEL}}"), inputs: []string{inputs.InputPromptFile}},
		{name: "unclosed_command", cfg: file("a !`echo\nb !`more"), inputs: []string{inputs.InputPromptFile, inputs.InputPromptFile}},
		{name: "value_no_command_can_take", cfg: inputs.Config{PromptFile: "/p.md", Prompt: "!`echo {{X}}`", PromptArgs: map[string]string{"X": "a\x00b"}},
			inputs: []string{inputs.InputPromptArgs}},
		{name: "output_tag_never_mentioned", cfg: inputs.Config{Prompt: "answer", Output: &inputs.OutputConfig{Tag: "result"}}, inputs: []string{inputs.InputOutputTag}},
		{name: "too_long_for_argv", cfg: inputs.Config{Prompt: "0123456789", Agent: "cursor"}, max: 5, inputs: []string{inputs.InputPrompt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, warnings, err := renderPrompt(tt.cfg, "work", "main", event, tt.max)
			if got := problems(t, err); !slices.Equal(got, tt.inputs) {
				t.Fatalf("problems of %v name %q, want %q", err, got, tt.inputs)
			}
			if err == nil && (pr.Text() != tt.want || !slices.Equal(warnings, tt.warnings)) {
				t.Errorf("prompt %q, warnings %q; want %q, %q", pr.Text(), warnings, tt.want, tt.warnings)
			}
		})
	}
}

// TestRenderBuiltInPrompts: each mode's built-in prompt renders on the event that mode answers,
// its commands keeping to what values may take, and the stranger's text written in as it is;
// on an event without what it needs, the problem names the mode.
func TestRenderBuiltInPrompts(t *testing.T) {
	title := "Crash `id` $(reboot) {{SOURCE_BRANCH}}"
	events := map[string]*event.Event{
		inputs.ModeImplement: {Name: event.Issues, Issue: &event.Issue{Number: 12, Title: title, Body: "body"}},
		inputs.ModePR:        {Name: event.IssueComment, Issue: &event.Issue{Number: 5, Title: title, IsPR: true}, Comment: &event.Comment{Body: "/sandcastle fix"}},
		inputs.ModeReview:    {Name: event.PullRequest, PR: &event.PR{Number: 5, Title: title}},
		inputs.ModeTriage:    {Name: event.Schedule},
		inputs.ModePlan:      {Name: event.WorkflowDispatch},
	}
	for _, m := range inputs.Modes {
		if m.Prompt == "" {
			continue
		}
		cfg := inputs.Config{Mode: m.Name, Prompt: m.Prompt, BuiltInPrompt: true}
		if m.Args != nil {
			cfg.PromptArgs = m.Args(cfg.GitHub)
		}
		if m.Name == inputs.ModeReview || m.Name == inputs.ModeTriage || m.Name == inputs.ModePlan {
			cfg.Output = &inputs.OutputConfig{Tag: "result"}
		}
		pr, _, err := renderPrompt(cfg, "work", "main", eventArgs(events[m.Name], "o/r"), 0)
		if err != nil {
			t.Errorf("mode %s: %v", m.Name, err)
			continue
		}
		if m.Subjects[0] != event.SubjectWorkflow && !strings.Contains(pr.Text(), title) {
			t.Errorf("mode %s: the prompt does not hold the title as it is:\n%s", m.Name, pr.Text())
		}
	}
	implement, _ := inputs.LookupMode(inputs.ModeImplement)
	_, _, err := renderPrompt(inputs.Config{Mode: inputs.ModeImplement, Prompt: implement.Prompt, BuiltInPrompt: true}, "work", "main", eventArgs(events[inputs.ModeTriage], "o/r"), 0)
	if got := problems(t, err); !slices.Equal(got, []string{inputs.InputMode}) || !strings.Contains(err.Error(), "the built-in prompt of mode implement") {
		t.Errorf("implement on a schedule: %v", err)
	}
}

func TestCheckPR(t *testing.T) {
	tests := []struct {
		name   string
		g      inputs.GitHubConfig
		onPR   bool
		strat  inputs.BranchStrategy
		inputs []string
	}{
		{name: "no_pull_request", g: inputs.GitHubConfig{PRTitle: "{{NOPE}}"}, strat: inputs.StrategyHead},
		{name: "fine", g: inputs.GitHubConfig{OpenPR: true, PRTitle: "Fix {{ISSUE_TITLE}}"}, strat: inputs.StrategyBranch},
		{name: "unknown_key_in_title", g: inputs.GitHubConfig{OpenPR: true, PRTitle: "Fix {{ISSUE_TITEL}}"}, strat: inputs.StrategyBranch, inputs: []string{inputs.InputPRTitle}},
		{name: "unknown_key_in_body", g: inputs.GitHubConfig{OpenPR: true, PRBody: "{{X}}"}, strat: inputs.StrategyBranch, inputs: []string{inputs.InputPRBody}},
		{name: "head_into_itself", g: inputs.GitHubConfig{OpenPR: true}, strat: inputs.StrategyHead, inputs: []string{inputs.InputPRBase}},
		{name: "head_on_a_pull_request", g: inputs.GitHubConfig{OpenPR: true}, strat: inputs.StrategyHead, onPR: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPR(inputs.Config{BranchStrategy: tt.strat, GitHub: tt.g}, map[string]string{"ISSUE_TITLE": "t"}, tt.onPR)
			if got := problems(t, err); !slices.Equal(got, tt.inputs) {
				t.Errorf("problems of %v name %q, want %q", err, got, tt.inputs)
			}
		})
	}
}

func TestCheckGitHub(t *testing.T) {
	issue := &event.Event{Name: "issues", Issue: &event.Issue{Number: 42}}
	tests := []struct {
		name, token, repository string
		g                       inputs.GitHubConfig
		e                       *event.Event
		want                    string // what the problem says; "" for none
	}{
		{name: "nothing_asked", e: &event.Event{Name: "schedule"}},
		{name: "open_pr_without_a_token", g: inputs.GitHubConfig{OpenPR: true}, want: "no token, but open-pr is true"},
		{name: "a_comment_without_a_repository", token: "t", g: inputs.GitHubConfig{ProgressComment: true}, e: issue, want: "GITHUB_REPOSITORY is not set, but the run reports on #42"},
		{name: "an_author_to_check", e: &event.Event{Name: "issue_comment"}, want: "the author of the issue_comment event must be checked"},
		{name: "all_there", token: "t", repository: "o/r", g: inputs.GitHubConfig{OpenPR: true}, e: issue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkGitHub(tt.g, tt.e, tt.token, tt.repository)
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckGitHub = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEventArgs(t *testing.T) {
	e := &event.Event{Name: "issues", Issue: &event.Issue{Number: 7, Title: "T"}}
	if got := eventArgs(e, "o/r"); got["REPOSITORY"] != "o/r" || got["ISSUE_NUMBER"] != "7" {
		t.Errorf("EventArgs = %v", got)
	}
	if got := eventArgs(nil, "o/r"); got != nil {
		t.Errorf("EventArgs without an event = %v", got)
	}
}

func TestAgentEnv(t *testing.T) {
	host := map[string]string{"PATH": "/bin", "HOME": "/home/me", "EDITOR": "vi", "ANTHROPIC_API_KEY": "sk-1234", "ANTHROPIC_BASE_URL": "http://proxy",
		"FROM_ENV": "given", "FILE_KEY": "from-host", "GITHUB_TOKEN": "ghs_x", "COPY": "ghs_token0"}
	getenv := func(k string) string { return host[k] }
	cfg := inputs.Config{EnvNames: []string{"FROM_ENV", "UNSET"}, EnvFileValues: map[string]string{"FILE_KEY": "", "FILE_VALUE": "in-file"}}
	e, err := agentEnv(getenv, cfg, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"}, "ghs_token0")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PATH": "/bin", "HOME": "/home/me", "ANTHROPIC_API_KEY": "sk-1234", "ANTHROPIC_BASE_URL": "http://proxy",
		"FROM_ENV": "given", "FILE_KEY": "from-host", "FILE_VALUE": "in-file"}
	if !maps.Equal(e.Vars, want) {
		t.Errorf("Vars = %v\nwant   %v", e.Vars, want)
	}
	if got := slices.Sorted(slices.Values(e.Secrets)); !slices.Equal(got, []string{"from-host", "given", "in-file", "sk-1234"}) {
		t.Errorf("Secrets = %q: every value not from the host base but an endpoint", got)
	}
	cfg.EnvNames = []string{"GITHUB_TOKEN", "COPY"}
	_, err = agentEnv(getenv, cfg, nil, "ghs_token0")
	if got := problems(t, err); !slices.Equal(got, []string{inputs.InputEnv, inputs.InputEnv}) || !strings.Contains(err.Error(), "GITHUB_TOKEN never enter") || !strings.Contains(err.Error(), "COPY carries the GitHub token") {
		t.Errorf("AgentEnv = %v; want GitHub's credentials refused", err)
	}
}

func TestCheckCredentials(t *testing.T) {
	set := func(k string) string { return map[string]string{"CODEX_API_KEY": "k"}[k] }
	if err := checkCredentials("codex", []string{"CODEX_API_KEY"}, set); err != nil {
		t.Errorf("set: %v", err)
	}
	if err := checkCredentials("opencode", nil, set); err != nil {
		t.Errorf("none needed: %v", err)
	}
	if err := checkCredentials("claude-code", []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}, set); err == nil || !strings.Contains(err.Error(), "one of ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN") {
		t.Errorf("missing: %v", err)
	}
}

func TestOutputSpec(t *testing.T) {
	if s, err := outputSpec(inputs.Config{}); s != nil || err != nil {
		t.Errorf("without output-tag: %v, %v", s, err)
	}
	s, err := outputSpec(inputs.Config{Output: &inputs.OutputConfig{Tag: "result", Type: inputs.OutputObject, Schema: []byte(`{"type":"object"}`)}})
	if err != nil || s.Tag != "result" || s.Schema == nil {
		t.Errorf("OutputSpec = %+v, %v", s, err)
	}
	_, err = outputSpec(inputs.Config{Output: &inputs.OutputConfig{Tag: "result", Type: inputs.OutputObject, Schema: []byte(`{"type":5}`)}})
	if got := problems(t, err); !slices.Equal(got, []string{inputs.InputOutputSchema}) {
		t.Errorf("a schema that does not compile: %v", err)
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		signal     string
		unverified bool
		want       report.Status
	}{
		{"complete", nil, signal, false, report.StatusComplete},
		{"incomplete", nil, "", false, report.StatusIncomplete},
		{"unverified", nil, "", true, report.StatusUnverified},
		{"failed", errors.New("boom"), signal, false, report.StatusFailed},
		{"cancelled", &CancelledError{Err: errors.New("killed")}, "", false, report.StatusCancelled},
		{"budget", fmt.Errorf("x: %w", &run.BudgetError{Budget: "max-cost-usd"}), "", true, report.StatusBudgetExhausted},
		{"branch_moved", errors.Join(errors.New("x"), movedError{}), "", false, report.StatusBranchMoved},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err, tt.signal, tt.unverified); got != tt.want {
			t.Errorf("%s: statusOf = %s, want %s", tt.name, got, tt.want)
		}
	}
	if err := (&CancelledError{Err: errors.New("killed")}); err.Error() != "killed" || !errors.Is(err, err.Err) {
		t.Error("CancelledError does not read as its cause")
	}
}

// TestCancelledByBudget: a run whose context ended tells its budget of time from a cancelled
// job; one whose context is alive keeps its own error.
func TestCancelledByBudget(t *testing.T) {
	e := newEngine(Plan{Config: inputs.Config{RunTimeout: time.Minute}}, Deps{})
	ctx, stop := e.runBudget(t.Context())
	boom := errors.New("boom")
	if err := cancelled(ctx, boom); err != boom {
		t.Errorf("alive: %v", err)
	}
	stop() // as the budget's timer would, but with context.Canceled as its cause
	var c *CancelledError
	if err := cancelled(ctx, boom); !errors.As(err, &c) {
		t.Errorf("cancelled: %v, want a CancelledError", err)
	}
	timed, cancel := context.WithCancelCause(t.Context())
	cancel(&run.BudgetError{Budget: "run-minutes", Detail: "the run took its 1 minute(s)"})
	var b *run.BudgetError
	if err := cancelled(timed, boom); !errors.As(err, &b) || !strings.HasPrefix(err.Error(), "budget run-minutes reached: the run took its 1 minute(s)") {
		t.Errorf("timed out: %v, want the budget", err)
	}
}

func TestLogPath(t *testing.T) {
	tests := []struct {
		name           string
		cfg            inputs.Config
		source, target string
		want           string
	}{
		{"stdout", inputs.Config{LogFile: inputs.LogStdout}, "main", "main", ""},
		{"given", inputs.Config{LogFile: "/var/log/run.log"}, "main", "main", "/var/log/run.log"},
		{"branch", inputs.Config{}, "agent/fix:1", "main", "/top/.sandcastle/logs/agent-fix-1.log"},
		{"detached", inputs.Config{}, "", "", "/top/.sandcastle/logs/HEAD.log"},
		{"merge_to_head_named", inputs.Config{BranchStrategy: inputs.StrategyMergeToHead, Name: "Fix It!"}, "sandcastle/tmp", "main", "/top/.sandcastle/logs/main-sandcastle-tmp-fix-it-.log"},
	}
	for _, tt := range tests {
		if got := logPath(tt.cfg, tt.source, tt.target, "/top"); got != tt.want {
			t.Errorf("%s: logPath = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFinalMessageDropsTheSignal(t *testing.T) {
	if got, want := finalMessage("Done.\n<promise>COMPLETE</promise>\n", []string{"<promise>COMPLETE</promise>"}), "Done."; got != want {
		t.Errorf("finalMessage = %q, want %q", got, want)
	}
}
