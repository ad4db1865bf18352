package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadInput runs Main on inputs that only preflight can find wrong, in the repository, the
// environment, the event or what the agent takes (the rules of each input alone are
// TestLoad_badInput's): each must exit with code 2 and a message naming the input and what
// would be valid, before anything is created: no worktree, no branch, no .sandcastle
// directory, no line in .git/info/exclude, no change to the checkout.
func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		setup  func(t *testing.T, e env, dir string) // optional: prepare the repo
		want   []string                              // substrings of the output
		absent []string                              // what the output must not say
	}{
		{"missing_placeholder_values", []string{"--prompt-file", "p.md", "--prompt-args", "A=1"}, writePrompt("{{A}} {{ISSUE}} {{TITLE}}"), []string{"{{ISSUE}}", "{{TITLE}}", "prompt-args"}, nil},
		{"schema_does_not_compile", []string{"--prompt", "<result>", "--output-tag", "result", "--output-schema", `{"type": 5}`}, nil, []string{`input "output-schema": not a valid JSON Schema`}, []string{`"output-schema": input`}},
		{"output_tag_not_in_prompt", []string{"--prompt", "answer please", "--output-tag", "result"}, nil, []string{`"output-tag"`, "<result>"}, nil},
		{"docker_as_root", []string{"--prompt", "hi", "--sandbox", "docker", "--docker", "container-uid=0"}, nil, []string{`"container-uid"`, "root"}, nil},
		{"docker_without_agent_credentials", []string{"--prompt", "hi", "--sandbox", "docker", "--docker", "container-uid=1000", "--docker", "container-gid=1000"}, nil, []string{`"agent"`, "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}, nil},
		{"github_token_in_env", []string{"--prompt", "hi", "--env", "GITHUB_TOKEN"}, nil, []string{`"env"`, "GITHUB_TOKEN"}, nil},
		{"env_file_secret_never_shown", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			writeFile(t, filepath.Join(dir, ".sandcastle", ".env"), "ANTHROPIC_API_KEY: sk-ant-s3cr3t\nOPENAI_API_KEY=\"sk-s3cr3t\" s3cr3t-tail\n")
			writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), ".sandcastle/.env\n")
		}, []string{`"env-file"`, "line 1: ANTHROPIC_API_KEY is followed by a colon, not =", "line 2: value of OPENAI_API_KEY has text after its closing quote"}, []string{"s3cr3t"}},
		{"several_problems_at_once", []string{"--max-iterations", "0", "--agent", "nope", "--timeouts", "idle-seconds=x"}, nil, []string{`"max-iterations"`, `"agent"`, `"idle-seconds"`, `"prompt"`}, nil},
		{"branch_checked_out_in_checkout", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "main"}, nil,
			[]string{`input "branch": branch "main" is checked out in the main working tree`}, nil},
		{"branch_checked_out_in_another_worktree", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "theirs"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "worktree", "add", "-q", "-b", "theirs", filepath.Join(dir, "..", "theirs"))
		}, []string{`input "branch": branch "theirs" is checked out in worktree`}, nil},
		{"merge_to_head_detached", []string{"--prompt", "hi", "--branch-strategy", "merge-to-head"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "checkout", "-q", "--detach")
		}, []string{`input "branch-strategy"`, "merge-to-head", "detached"}, nil},
		{"no_commits", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "checkout", "-q", "--orphan", "fresh")
			gitRun(t, e, dir, "rm", "-rfq", "--cached", ".")
			gitRun(t, e, dir, "branch", "-D", "main")
		}, []string{`input "working-directory"`, "has no commits yet", "commit something first"}, []string{"rev-parse", "fatal"}},
		{"max_cost_with_an_agent_reporting_none", []string{"--prompt", "hi", "--agent", "codex", "--timeouts", "max-cost-usd=1.5"}, nil,
			[]string{`input "timeouts" key "max-cost-usd": agent "codex" reports no cost, so the budget could never be checked; leave max-cost-usd empty, or use an agent that reports its cost: claude-code, opencode, pi`}, nil},
		{"agent_cli_missing", []string{"--prompt", "hi"}, nil, []string{"claude", "PATH"}, nil},
		{"model_the_agent_cannot_take", []string{"--prompt", "hi", "--model", "-x"}, nil, []string{`input "model": claude-code: model "-x" must not start with '-'`}, nil},
		{"codex_without_credentials", []string{"--prompt", "hi", "--agent", "codex", "--sandbox", "docker", "--docker", "container-uid=1000", "--docker", "container-gid=1000"}, nil, []string{`"agent"`, "codex needs one of CODEX_API_KEY"}, nil},
		{"resume_session_not_saved", []string{"--prompt", "hi", "--resume-session", "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93"}, nil, []string{`"resume-session"`, "not found", ".claude/projects"}, nil},
		{"resume_session_id_not_an_id", []string{"--prompt", "hi", "--resume-session", "../../etc/passwd"}, nil, []string{`"resume-session"`, "not valid"}, nil},
		{"prompt_too_long_for_argv", []string{"--prompt-file", "p.md", "--agent", "cursor"}, writePrompt(strings.Repeat("x", 130<<10)), []string{`"prompt-file"`, "cursor takes the prompt as a command-line argument", "133120 bytes", "claude-code, codex, copilot, opencode, pi"}, nil},
		{"open_pr_without_token", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "w", "--open-pr"}, nil, []string{`"github-token"`, "open-pr", "GITHUB_TOKEN"}, nil},
		{"pr_title_unknown_key", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "w", "--open-pr", "--pr-title", "Fix {{ISSUE_TITEL}}"}, nil, []string{`"pr-title"`, "ISSUE_TITEL"}, nil},
		{"event_payload_missing", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			e["GITHUB_ACTIONS"], e["GITHUB_EVENT_NAME"], e["GITHUB_EVENT_PATH"] = "true", "issues", filepath.Join(dir, "no-event.json")
		}, []string{"GITHUB_EVENT_PATH", "no-event.json"}, nil},
		{"event_payload_broken_reported_once", []string{"--prompt-file", "p.md", "--branch-strategy", "branch", "--branch", "w", "--open-pr", "--pr-title", "Fix {{ISSUE_TITLE}}"}, func(t *testing.T, e env, dir string) {
			writePrompt("Fix #{{ISSUE_NUMBER}}: {{ISSUE_TITLE}}")(t, e, dir)
			writeFile(t, filepath.Join(dir, ".git", "event.json"), "{broken")
			e["GITHUB_ACTIONS"], e["GITHUB_EVENT_NAME"], e["GITHUB_EVENT_PATH"], e["GITHUB_TOKEN"], e["GITHUB_REPOSITORY"] = "true", "issues", filepath.Join(dir, ".git", "event.json"), "ghs_x", "o/r"
		}, []string{"the event that started the workflow cannot be used", "event.json"}, []string{"{{ISSUE_NUMBER}}", "{{ISSUE_TITLE}}"}},
		{"persisted_checkout_token", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3g=")
			e["GITHUB_ACTIONS"] = "true"
		}, []string{"persist-credentials: false", "http.https://github.com/.extraheader"}, nil},
		{"event_prompt_arg_the_event_lacks", []string{"--prompt-file", "p.md"}, func(t *testing.T, e env, dir string) {
			writePrompt("Fix #{{ISSUE_NUMBER}}")(t, e, dir)
			writeFile(t, filepath.Join(dir, ".git", "event.json"), `{"ref": "refs/heads/main", "repository": {"full_name": "o/r"}}`)
			e["GITHUB_ACTIONS"], e["GITHUB_EVENT_NAME"], e["GITHUB_EVENT_PATH"] = "true", "workflow_dispatch", filepath.Join(dir, ".git", "event.json")
		}, []string{"{{ISSUE_NUMBER}}"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := hermeticEnv(t)
			if tt.name == "agent_cli_missing" {
				e["PATH"] = "/usr/bin:/bin"
			}
			dir := newRepo(t, e)
			if tt.setup != nil {
				tt.setup(t, e, dir)
			}
			before := stateOf(t, e, dir)
			args := tt.args
			if !slices.Contains(args, "--sandbox") {
				args = append([]string{"--sandbox", "none"}, args...)
			}
			inv := runMain(t, e, dir, append([]string{"run"}, args...)...)
			if inv.code != exitBadInput {
				t.Errorf("exit code %d, want %d; output:\n%s", inv.code, exitBadInput, inv.output())
			}
			for _, w := range tt.want {
				if !strings.Contains(inv.output(), w) {
					t.Errorf("output does not mention %s:\n%s", w, inv.output())
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(inv.output(), w) {
					t.Errorf("output says %s:\n%s", w, inv.output())
				}
			}
			if after := stateOf(t, e, dir); after != before {
				t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", before, after)
			}
			if left := managedWorktrees(t, dir); len(left) > 0 {
				t.Errorf("worktrees left behind: %v", left)
			}
		})
	}
}

func writePrompt(text string) func(t *testing.T, e env, dir string) {
	return func(t *testing.T, e env, dir string) {
		writeFile(t, filepath.Join(dir, "p.md"), text)
		writeFile(t, filepath.Join(dir, ".git", "info", "exclude"), "p.md\n")
	}
}

// TestNotARepository: a working directory outside any repository is bad input, told in the
// terms of where the run was started, and nothing is written there.
func TestNotARepository(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		action bool
		want   string
	}{
		{"command_line", false, "run sandcastle in a git repository, or name one with --working-directory"},
		{"action", true, "the workflow may lack an actions/checkout step before this one, or working-directory may not name the checkout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := hermeticEnv(t)
			dir := t.TempDir()
			var inv invocation
			if tt.action {
				e["GITHUB_ACTIONS"], e["GITHUB_WORKSPACE"], e["INPUT_PROMPT"], e["INPUT_SANDBOX"] = "true", dir, "hi", "none"
				inv = runMain(t, e, dir)
			} else {
				inv = runMain(t, e, dir, "run", "--sandbox", "none", "--prompt", "hi")
			}
			if inv.code != exitBadInput {
				t.Errorf("exit code %d, want %d", inv.code, exitBadInput)
			}
			if want := `input "working-directory": ` + dir + " is not in a git working tree; " + tt.want; !strings.Contains(inv.output(), want) {
				t.Errorf("output does not say %q:\n%s", want, inv.output())
			}
			for _, noise := range []string{"fatal:", ".git/config", "rev-parse"} {
				if strings.Contains(inv.output(), noise) {
					t.Errorf("output says %q:\n%s", noise, inv.output())
				}
			}
			if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
				t.Errorf("the directory holds %v (%v), want nothing", entries, err)
			}
		})
	}
}

// TestMisspeltActionInputsAreNamed: an INPUT_* variable that is no input, as the runner sets
// for a misspelt key under with:, is a warning naming the input meant.
func TestMisspeltActionInputsAreNamed(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := newRepo(t, e)
	e["GITHUB_ACTIONS"], e["GITHUB_WORKSPACE"] = "true", dir
	e["INPUT_SANDBOX"], e["INPUT_OUTPUT-TAGG"], e["INPUT_MAX_ITERATIONS"] = "none", "result", "3"
	inv := runMain(t, e, dir) // no prompt: bad input, so nothing runs
	if inv.code != exitBadInput {
		t.Errorf("exit code %d, want %d", inv.code, exitBadInput)
	}
	for _, want := range []string{
		`::warning::INPUT_MAX_ITERATIONS is set, but the action has no input "max_iterations", so it is ignored; input names are written with hyphens, not underscores: did you mean max-iterations?`,
		`::warning::INPUT_OUTPUT-TAGG is set, but the action has no input "output-tagg", so it is ignored; did you mean output-tag?`,
		`::error::input "prompt": no prompt given`,
	} {
		if !strings.Contains(inv.output(), want) {
			t.Errorf("output does not say %q:\n%s", want, inv.output())
		}
	}
}
