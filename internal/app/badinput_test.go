package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadInput runs Main on invalid inputs: each must fail with a message naming the input and
// what would be valid, before anything is created: no worktree, no branch, no change to the
// checkout.
func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		setup func(t *testing.T, e env, dir string) // optional: prepare the repo
		want  []string                              // substrings of the output
	}{
		{"no_prompt", nil, nil, []string{`"prompt"`, "prompt-file"}},
		{"both_prompts", []string{"--prompt", "hi", "--prompt-file", "p.md"}, writePrompt("hi"), []string{"prompt", "prompt-file"}},
		{"missing_prompt_file", []string{"--prompt-file", "nope.md"}, nil, []string{`"prompt-file"`, "nope.md"}},
		{"args_with_inline_prompt", []string{"--prompt", "hi", "--prompt-args", "A=1"}, nil, []string{`"prompt-args"`, "prompt-file"}},
		{"bad_yaml_args", []string{"--prompt-file", "p.md", "--prompt-args", "{a: [1, 2"}, writePrompt("{{a}}"), []string{`"prompt-args"`}},
		{"builtin_override", []string{"--prompt-file", "p.md", "--prompt-args", "SOURCE_BRANCH=x"}, writePrompt("hi"), []string{"SOURCE_BRANCH", "built-in"}},
		{"missing_placeholder_values", []string{"--prompt-file", "p.md", "--prompt-args", "A=1"}, writePrompt("{{A}} {{ISSUE}} {{TITLE}}"), []string{"{{ISSUE}}", "{{TITLE}}", "prompt-args"}},
		{"unknown_agent", []string{"--prompt", "hi", "--agent", "gpt-pilot"}, nil, []string{`"agent"`, "claude-code"}},
		{"negative_idle_timeout", []string{"--prompt", "hi", "--idle-timeout-seconds", "-5"}, nil, []string{`"idle-timeout-seconds"`}},
		{"zero_completion_timeout", []string{"--prompt", "hi", "--completion-timeout-seconds", "0"}, nil, []string{`"completion-timeout-seconds"`}},
		{"negative_hook_timeout", []string{"--prompt", "hi", "--hook-timeout-seconds", "-1"}, nil, []string{`"hook-timeout-seconds"`}},
		{"zero_iterations", []string{"--prompt", "hi", "--max-iterations", "0"}, nil, []string{`"max-iterations"`}},
		{"word_iterations", []string{"--prompt", "hi", "--max-iterations", "many"}, nil, []string{`"max-iterations"`, "whole number"}},
		{"bad_effort", []string{"--prompt", "hi", "--effort", "extreme"}, nil, []string{`"effort"`, "high"}},
		{"bad_permission_mode", []string{"--prompt", "hi", "--permission-mode", "yolo"}, nil, []string{`"permission-mode"`, "acceptEdits"}},
		{"bad_strategy", []string{"--prompt", "hi", "--branch-strategy", "rebase"}, nil, []string{`"branch-strategy"`, "merge-to-head"}},
		{"branch_strategy_without_branch", []string{"--prompt", "hi", "--branch-strategy", "branch"}, nil, []string{`"branch"`}},
		{"invalid_branch_name", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "feat..x"}, nil, []string{`"branch"`}},
		{"dash_branch_name", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "-f"}, nil, []string{`"branch"`}},
		{"copy_with_head", []string{"--prompt", "hi", "--copy-to-worktree", ".env"}, nil, []string{`"copy-to-worktree"`, "head"}},
		{"copy_escaping_repo", []string{"--prompt", "hi", "--branch-strategy", "merge-to-head", "--copy-to-worktree", "../secrets"}, nil, []string{`"copy-to-worktree"`}},
		{"schema_does_not_compile", []string{"--prompt", "<result>", "--output-tag", "result", "--output-schema", `{"type": 5}`}, nil, []string{`"output-schema"`}},
		{"schema_not_json", []string{"--prompt", "<result>", "--output-tag", "result", "--output-schema", `{"type": `}, nil, []string{`"output-schema"`}},
		{"schema_file_missing", []string{"--prompt", "<result>", "--output-tag", "result", "--output-schema", "schema.json"}, nil, []string{`"output-schema"`, "schema.json"}},
		{"output_with_iterations", []string{"--prompt", "<result>", "--output-tag", "result", "--max-iterations", "2"}, nil, []string{`"output-tag"`, "max-iterations"}},
		{"output_tag_not_in_prompt", []string{"--prompt", "answer please", "--output-tag", "result"}, nil, []string{`"output-tag"`, "<result>"}},
		{"negative_retries", []string{"--prompt", "<result>", "--output-tag", "result", "--output-max-retries", "-1"}, nil, []string{`"output-max-retries"`}},
		{"bad_output_type", []string{"--prompt", "<result>", "--output-tag", "result", "--output-type", "yaml"}, nil, []string{`"output-type"`, "object"}},
		{"unknown_sandbox", []string{"--prompt", "hi", "--sandbox", "vm"}, nil, []string{`"sandbox"`, "docker", "none"}},
		{"docker_as_root", []string{"--prompt", "hi", "--sandbox", "docker"}, nil, []string{`"container-uid"`, "root"}},
		{"docker_without_agent_credentials", []string{"--prompt", "hi", "--sandbox", "docker", "--container-uid", "1000", "--container-gid", "1000"}, nil, []string{`"agent"`, "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}},
		{"docker_input_without_docker", []string{"--prompt", "hi", "--image", "mine:latest"}, nil, []string{`"image"`, "sandbox docker"}},
		{"missing_working_directory", []string{"--prompt", "hi", "--working-directory", "nowhere"}, nil, []string{`"working-directory"`, "nowhere"}},
		{"bad_env_name", []string{"--prompt", "hi", "--env", "NOT-A-NAME"}, nil, []string{`"env"`}},
		{"github_token_in_env", []string{"--prompt", "hi", "--env", "GITHUB_TOKEN"}, nil, []string{`"env"`, "GITHUB_TOKEN"}},
		{"bad_env_file", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			writeFile(t, filepath.Join(dir, ".sandcastle", ".env"), "GOOD=1\nthis line has no equals\n")
		}, []string{`"env-file"`, "line 2"}},
		{"bad_boolean", []string{"--prompt", "hi", "--verbose=maybe"}, nil, []string{`"verbose"`}},
		{"unknown_flag", []string{"--prompt", "hi", "--colour", "red"}, nil, []string{"--colour"}},
		{"several_problems_at_once", []string{"--max-iterations", "0", "--agent", "nope", "--idle-timeout-seconds", "x"}, nil, []string{`"max-iterations"`, `"agent"`, `"idle-timeout-seconds"`, `"prompt"`}},
		{"branch_checked_out_in_checkout", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "main"}, nil, []string{"main"}},
		{"merge_to_head_detached", []string{"--prompt", "hi", "--branch-strategy", "merge-to-head"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "checkout", "-q", "--detach")
		}, []string{"merge-to-head", "detached"}},
		{"agent_cli_missing", []string{"--prompt", "hi"}, nil, []string{"claude", "PATH"}},
		{"effort_the_agent_does_not_take", []string{"--prompt", "hi", "--agent", "pi", "--effort", "max"}, nil, []string{`"effort"`, `agent "pi" does not accept effort "max"`, "xhigh"}},
		{"codex_without_credentials", []string{"--prompt", "hi", "--agent", "codex", "--sandbox", "docker", "--container-uid", "1000", "--container-gid", "1000"}, nil, []string{`"agent"`, "codex needs one of CODEX_API_KEY"}},
		{"resume_with_agent_without_sessions", []string{"--prompt", "hi", "--agent", "cursor", "--resume-session", "abc"}, nil, []string{`"resume-session"`, "one of: claude-code, codex, pi"}},
		{"resume_session_not_saved", []string{"--prompt", "hi", "--resume-session", "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93"}, nil, []string{`"resume-session"`, "not found", ".claude/projects"}},
		{"resume_session_id_not_an_id", []string{"--prompt", "hi", "--resume-session", "../../etc/passwd"}, nil, []string{`"resume-session"`, "not valid"}},
		{"fork_without_resume", []string{"--prompt", "hi", "--fork-session"}, nil, []string{`"fork-session"`, "resume-session"}},
		{"prompt_too_long_for_argv", []string{"--prompt-file", "p.md", "--agent", "cursor"}, writePrompt(strings.Repeat("x", 130<<10)), []string{`"prompt-file"`, "cursor takes the prompt as a command-line argument", "133120 bytes", "claude-code, codex, copilot, opencode, pi"}},
		{"open_pr_without_token", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "w", "--open-pr"}, nil, []string{`"github-token"`, "open-pr", "GITHUB_TOKEN"}},
		{"open_pr_with_push_none", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "w", "--open-pr", "--push", "none"}, nil, []string{`"open-pr"`, "push"}},
		{"pr_title_unknown_key", []string{"--prompt", "hi", "--branch-strategy", "branch", "--branch", "w", "--open-pr", "--pr-title", "Fix {{ISSUE_TITEL}}"}, nil, []string{`"pr-title"`, "ISSUE_TITEL"}},
		{"event_payload_missing", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			e["GITHUB_ACTIONS"], e["GITHUB_EVENT_NAME"], e["GITHUB_EVENT_PATH"] = "true", "issues", filepath.Join(dir, "no-event.json")
		}, []string{"GITHUB_EVENT_PATH", "no-event.json"}},
		{"persisted_checkout_token", []string{"--prompt", "hi"}, func(t *testing.T, e env, dir string) {
			gitRun(t, e, dir, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3g=")
			e["GITHUB_ACTIONS"] = "true"
		}, []string{"persist-credentials: false", "http.https://github.com/.extraheader"}},
		{"event_prompt_arg_the_event_lacks", []string{"--prompt-file", "p.md"}, func(t *testing.T, e env, dir string) {
			writePrompt("Fix #{{ISSUE_NUMBER}}")(t, e, dir)
			writeFile(t, filepath.Join(dir, ".git", "event.json"), `{"ref": "refs/heads/main", "repository": {"full_name": "o/r"}}`)
			e["GITHUB_ACTIONS"], e["GITHUB_EVENT_NAME"], e["GITHUB_EVENT_PATH"] = "true", "workflow_dispatch", filepath.Join(dir, ".git", "event.json")
		}, []string{"{{ISSUE_NUMBER}}"}},
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
			if inv.code == 0 {
				t.Fatalf("exit code 0, want failure; output:\n%s", inv.output())
			}
			for _, w := range tt.want {
				if !strings.Contains(inv.output(), w) {
					t.Errorf("output does not mention %s:\n%s", w, inv.output())
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

func TestNotARepository(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := t.TempDir()
	inv := runMain(t, e, dir, "run", "--sandbox", "none", "--prompt", "hi")
	if inv.code == 0 || !strings.Contains(inv.output(), "not in a git working tree") {
		t.Fatalf("exit %d, output:\n%s\nwant a failure saying it is not a git working tree", inv.code, inv.output())
	}
	if left := managedWorktrees(t, dir); len(left) > 0 {
		t.Errorf("worktrees left behind: %v", left)
	}
}
