package inputs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/release"
)

func TestLoad_defaults(t *testing.T) {
	t.Parallel()
	got, err := load(Raw{InputPrompt: "Fix the bug."}, testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Config{
		Mode:              ModeRun,
		Prompt:            "Fix the bug.",
		CompletionSignals: []string{"<promise>COMPLETE</promise>"},
		MaxIterations:     1,
		IdleTimeout:       600 * time.Second,
		CompletionTimeout: 60 * time.Second,
		ShellTimeout:      30 * time.Second,
		Agent:             "claude-code",
		Sandbox:           "docker",
		Docker: DockerConfig{
			// No image input and no .sandcastle/Dockerfile: the published image.
			Image:        release.SandboxImage("claude-code"),
			Prebuilt:     true,
			Build:        BuildNever,
			Pull:         true,
			Dockerfile:   "/repo/.sandcastle/Dockerfile",
			BuildContext: "/repo/.sandcastle",
			Memory:       4 << 30,
			PidsLimit:    4096,
			Sync:         SyncAuto,
		},
		BranchStrategy:   StrategyHead,
		WorkingDirectory: "/repo",
		Hooks:            Hooks{Timeout: 60 * time.Second},
		EnvFile:          "/repo/.sandcastle/.env",
		GitHub: GitHubConfig{
			Push:            PushAuto,
			PRDraft:         true,
			ProgressComment: true,
			TriggerPhrases:  []string{"/sandcastle", "@sandcastle"},
			RefuseIfOpenPR:  true,
			OutputAction:    OutputActionNone,
			Relay:           true,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("load() =\n%+v\nwant\n%+v", got, want)
	}
}

func TestLoad_sandboxNoneLeavesDockerEmpty(t *testing.T) {
	t.Parallel()
	got, err := load(with(InputSandbox, "none"), testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := got.Sandbox, SandboxNone; got != want {
		t.Errorf("Sandbox = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(got.Docker, DockerConfig{}) {
		t.Errorf("Docker = %+v, want the zero value", got.Docker)
	}
}

func TestLoad_everyInputSet(t *testing.T) {
	t.Parallel()
	env := testEnv(map[string]string{
		"prompts/fix.md":         "Fix {{ISSUE}} on {{SOURCE_BRANCH}}.\n",
		"app/.keep":              "",
		"app/ci.env":             "export TOKEN=abc # comment\nEMPTY=\n",
		"app/schema/result.json": `{"type": "object"}`,
		"app/docker/Dockerfile":  "FROM scratch\n",
		"app/ctx/.keep":          "",
		"app/cache/.keep":        "",
		"/home/me/.npmrc":        "registry=x\n",
		"/srv/data/.keep":        "",
	})
	env.Home = "/home/me"
	raw := Raw{
		InputPromptFile:               " prompts/fix.md ",
		InputPromptArgs:               "ISSUE: 42\nTITLE: Crash on start\n",
		InputCompletionSignal:         "DONE\n\n  <promise>COMPLETE</promise>  \n",
		InputMaxIterations:            "1",
		InputIdleTimeoutSeconds:       "900",
		InputCompletionTimeoutSeconds: "5",
		InputShellTimeoutSeconds:      "10",
		InputRunMinutes:               "45",
		InputMaxCostUSD:               "3.5",
		InputVerifyCommand:            "go vet ./...\ngo test ./...\n",
		InputAgent:                    "claude-code",
		InputModel:                    "claude-opus-4-8",
		InputEffort:                   "high",
		InputPermissionMode:           "acceptEdits",
		InputResumeSession:            "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93",
		InputForkSession:              "true",
		InputSandbox:                  "docker",
		InputImage:                    "ghcr.io/acme/agent-image:1.2",
		InputBuildImage:               "auto",
		InputDockerfile:               "docker/Dockerfile",
		InputBuildContext:             "ctx",
		InputBuildArgs:                "NODE_VERSION=22\nAGENT_UID=1001\n",
		InputPull:                     "true",
		InputContainerUID:             "1001",
		InputContainerGID:             "121",
		InputNetwork:                  "ci-net",
		InputCPUs:                     "1.5",
		InputMemory:                   "512m",
		InputPidsLimit:                "256",
		InputMounts:                   "cache:/cache\n~/.npmrc:~/.npmrc:ro\n/srv/data/:/data/:rw\n",
		InputDevices:                  "/dev/fuse\n/dev/kvm:/dev/vm:rw\n",
		InputGroups:                   "video\n44\nvideo\n",
		InputSELinuxLabel:             "Z",
		InputSandboxSync:              "copy",
		InputBranchStrategy:           "branch",
		InputBranch:                   "sandcastle/issue-42",
		InputName:                     "fixer",
		InputWorkingDirectory:         "app",
		InputCopyToWorktree:           "node_modules\n./config/local.json\n",
		InputHookWorktreeReady:        "git status",
		InputHookHostSandboxReady:     "echo ready",
		InputHookSandboxReady:         "npm ci \\\n  --prefer-offline\nnpm test\n",
		InputHookTimeoutSeconds:       "120",
		InputEnv:                      "NPM_TOKEN, SENTRY_DSN\nNPM_TOKEN\n",
		InputEnvFile:                  "ci.env",
		InputLogFile:                  "logs/run.log",
		InputVerbose:                  "yes",
		InputOutputTag:                "result",
		InputOutputSchema:             "schema/result.json",
		InputOutputMaxRetries:         "2",
		InputGitHubToken:              " ghs_example123\n",
		InputPush:                     "lease",
		InputOpenPR:                   "true",
		InputPRDraft:                  "false",
		InputPRBase:                   "release/1.x",
		InputPRTitle:                  " Fix #{{ISSUE_NUMBER}}: {{ISSUE_TITLE}} ",
		InputPRBody:                   "Closes #{{ISSUE_NUMBER}}\n\n{{SUMMARY}}\n",
		InputProgressComment:          "false",
		InputTriggerPhrases:           "@agent\n/Fix-It\n/fix-it\n",
		InputTriggerLabel:             "agent:implement",
		InputInProgressLabel:          "agent:working",
		InputBlockedLabel:             "agent:blocked",
		InputAllowedUsers:             "octocat, Mona-Lisa\nOCTOCAT\n",
		InputAllowedBots:              "dependabot[bot],*,renovate",
		InputRefuseIfOpenPR:           "no",
		InputAllowForks:               "true",
		InputOutputAction:             "triage",
		InputAllowedLabels:            "bug\nQuestion, BUG\n",
		InputMaxActions:               "5",
		InputTriagedLabel:             "triaged",
		InputTriagePullRequests:       "true",
		InputGitHubRelay:              "false",
		InputMode:                     ModeRun,
	}
	got, err := load(raw, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Config{
		Mode:              ModeRun,
		Prompt:            "Fix {{ISSUE}} on {{SOURCE_BRANCH}}.\n",
		PromptFile:        "/repo/prompts/fix.md",
		PromptArgs:        map[string]string{"ISSUE": "42", "TITLE": "Crash on start"},
		CompletionSignals: []string{"DONE", "<promise>COMPLETE</promise>"},
		MaxIterations:     1,
		IdleTimeout:       900 * time.Second,
		CompletionTimeout: 5 * time.Second,
		ShellTimeout:      10 * time.Second,
		VerifyCommand:     "go vet ./...\ngo test ./...",
		RunTimeout:        45 * time.Minute,
		MaxCostUSD:        3.5,
		Agent:             "claude-code",
		Model:             "claude-opus-4-8",
		Effort:            "high",
		PermissionMode:    "acceptEdits",
		ResumeSession:     "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93",
		ForkSession:       true,
		Sandbox:           "docker",
		Docker: DockerConfig{
			Image:        "ghcr.io/acme/agent-image:1.2",
			Build:        BuildAuto,
			Dockerfile:   "/repo/app/docker/Dockerfile",
			BuildContext: "/repo/app/ctx",
			BuildArgs:    map[string]string{"NODE_VERSION": "22", "AGENT_UID": "1001"},
			Pull:         true,
			UID:          ptr(1001),
			GID:          ptr(121),
			Groups:       []string{"video", "44"},
			Network:      "ci-net",
			CPUs:         1.5,
			Memory:       512 << 20,
			PidsLimit:    256,
			Mounts: []Mount{
				{Host: "/repo/app/cache", Sandbox: "/cache"},
				{Host: "/home/me/.npmrc", Sandbox: "~/.npmrc", ReadOnly: true},
				{Host: "/srv/data", Sandbox: "/data"},
			},
			Devices: []Device{
				{Host: "/dev/fuse", Sandbox: "/dev/fuse", Permissions: "rwm"},
				{Host: "/dev/kvm", Sandbox: "/dev/vm", Permissions: "rw"},
			},
			SELinuxLabel: "Z",
			Sync:         SyncCopy,
		},
		BranchStrategy:   StrategyBranch,
		Branch:           "sandcastle/issue-42",
		Name:             "fixer",
		WorkingDirectory: "/repo/app",
		CopyToWorktree:   []string{"node_modules", "config/local.json"},
		Hooks: Hooks{
			WorktreeReady:    []string{"git status"},
			HostSandboxReady: []string{"echo ready"},
			SandboxReady:     []string{"npm ci --prefer-offline", "npm test"},
			Timeout:          120 * time.Second,
		},
		EnvNames:      []string{"NPM_TOKEN", "SENTRY_DSN"},
		EnvFile:       "/repo/app/ci.env",
		EnvFileValues: map[string]string{"TOKEN": "abc", "EMPTY": ""},
		LogFile:       "/repo/app/logs/run.log",
		Verbose:       true,
		Output: &OutputConfig{
			Tag:        "result",
			Type:       OutputObject,
			Schema:     []byte(`{"type": "object"}`),
			MaxRetries: 2,
		},
		GitHub: GitHubConfig{
			Token:           "ghs_example123",
			Push:            PushLease,
			OpenPR:          true,
			PRDraft:         false,
			PRBase:          "release/1.x",
			PRTitle:         "Fix #{{ISSUE_NUMBER}}: {{ISSUE_TITLE}}",
			PRBody:          "Closes #{{ISSUE_NUMBER}}\n\n{{SUMMARY}}\n",
			ProgressComment: false,
			TriggerPhrases:  []string{"@agent", "/Fix-It"},
			TriggerLabel:    "agent:implement",
			InProgressLabel: "agent:working",
			BlockedLabel:    "agent:blocked",
			AllowedUsers:    []string{"octocat", "Mona-Lisa"},
			AllowedBots:     []string{"dependabot[bot]", "renovate"},
			AllowBots:       true,
			RefuseIfOpenPR:  false,
			AllowForks:      true,
			OutputAction:    OutputActionTriage,
			Triage:          TriageConfig{AllowedLabels: []string{"bug", "Question"}, MaxActions: 5, TriagedLabel: "triaged", PullRequests: true},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("load() =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := *got.Output, *want.Output; !reflect.DeepEqual(got, want) {
		t.Errorf("Output = %+v, want %+v", got, want)
	}
	if got, want := got.Docker, want.Docker; !reflect.DeepEqual(got, want) {
		t.Errorf("Docker =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := got.GitHub, want.GitHub; !reflect.DeepEqual(got, want) {
		t.Errorf("GitHub =\n%+v\nwant\n%+v", got, want)
	}
	for _, d := range Definitions {
		// prompt excludes prompt-file, which this test uses; a map input is given by its keys.
		if _, ok := raw[d.Name]; !ok && d.Name != InputPrompt && len(Keys(d.Name)) == 0 {
			t.Errorf("input %q is not set by this test; add it", d.Name)
		}
	}
}

func ptr(n int) *int { return &n }

// TestLoad_valueForms: each row gives inputs in one of the forms they may take and declares the
// Config they make, as the fields that differ from the defaults' Config.
func TestLoad_valueForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  Raw
		want func(c *Config) // the defaults' Config, made into the wanted one
	}{
		{"blank_values_take_the_default", with(InputCompletionSignal, "\n  \n", InputMaxIterations, "   "), func(*Config) {}},
		{"inline_prompt_is_kept_verbatim", Raw{InputPrompt: "  Line one.\nLine two.\n"}, func(c *Config) { c.Prompt = "  Line one.\nLine two.\n" }},
		{"booleans_in_any_case", with(InputVerbose, "TRUE"), func(c *Config) { c.Verbose = true }},
		{"boolean_zero", with(InputVerbose, "0"), func(*Config) {}},
		{"log_file_dash_means_stdout", with(InputLogFile, "-"), func(c *Config) { c.LogFile = LogStdout }},
		{"absolute_log_file_is_kept", with(InputLogFile, "/tmp/run.log"), func(c *Config) { c.LogFile = "/tmp/run.log" }},
		{"inline_output_schema", with(InputOutputTag, "plan", InputOutputSchema, "\n  {\"type\": \"object\"}\n"), func(c *Config) {
			c.Output = &OutputConfig{Tag: "plan", Type: OutputObject, Schema: []byte(`{"type": "object"}`)}
		}},
		{"string_output_without_schema", with(InputOutputTag, "summary"), func(c *Config) { c.Output = &OutputConfig{Tag: "summary", Type: OutputString} }},
		{"output_tag_with_several_iterations", with(InputOutputTag, "result", InputMaxIterations, "3"), func(c *Config) {
			c.Output, c.MaxIterations = &OutputConfig{Tag: "result", Type: OutputString}, 3
		}},
		{"verify_and_budgets", with(InputVerifyCommand, "  go test ./...\n", InputRunMinutes, "30", InputMaxCostUSD, "0.50"), func(c *Config) {
			c.VerifyCommand, c.RunTimeout, c.MaxCostUSD = "go test ./...", 30*time.Minute, 0.5
		}},
		{"no_retries_without_tag_is_fine", with(InputOutputMaxRetries, "0"), func(*Config) {}},
		{"missing_default_env_file_is_ignored", with(), func(*Config) {}},
		{"copy_to_worktree_with_merge_to_head", with(InputBranchStrategy, "merge-to-head", InputCopyToWorktree, ".env\nvendor/cache/\n"), func(c *Config) {
			c.BranchStrategy, c.CopyToWorktree = StrategyMergeToHead, []string{".env", "vendor/cache"}
		}},
		{"hook_lines_join_only_on_an_unescaped_backslash", with(InputHookSandboxReady, "npm ci \\\n  --prefer-offline\necho done\\\\\nls\n"), func(c *Config) {
			c.Hooks.SandboxReady = []string{"npm ci --prefer-offline", `echo done\\`, "ls"}
		}},
		{"env_names_by_line_and_comma", with(InputEnv, "A,B\n C , A \n\n"), func(c *Config) { c.EnvNames = []string{"A", "B", "C"} }},
		{"unicode_branch_name", with(InputBranchStrategy, "branch", InputBranch, "fix/naïve-café"), func(c *Config) {
			c.BranchStrategy, c.Branch = StrategyBranch, "fix/naïve-café"
		}},
	}
	defaults := loadOK(t, with(), testEnv(nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := clone(t, defaults)
			tt.want(&want)
			if got := loadOK(t, tt.raw, testEnv(nil)); !reflect.DeepEqual(got, want) {
				t.Errorf("Config =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// loadOK is Load's Config, failing the test on an error.
func loadOK(t *testing.T, raw Raw, env Env) Config {
	t.Helper()
	c, err := load(raw, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// clone is a deep copy of c, whose slices and maps a row may then change.
func clone(t *testing.T, c Config) Config {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out Config
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoad_badInput(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"prompt.md":         "Fix {{ISSUE}}.",
		"empty.md":          " \n",
		"notes.txt":         "not a directory",
		"bad.env":           "A=1\nthis line is wrong\n",
		"schema-bad.json":   `{"type": }`,
		"docker/Dockerfile": "FROM scratch\n",
	}
	tests := []struct {
		name  string
		raw   Raw
		input string // the input the problem must name
		valid string // text of the message saying what is valid
	}{
		{"max_iterations_not_a_number", with(InputMaxIterations, "abc"), InputMaxIterations, `"abc" is not a whole number; use 1 or more`},
		{"max_iterations_zero", with(InputMaxIterations, "0"), InputMaxIterations, "use 1 or more"},
		{"max_iterations_fraction", with(InputMaxIterations, "2.5"), InputMaxIterations, "use 1 or more"},
		{"idle_timeout_zero", with(InputIdleTimeoutSeconds, "0"), InputIdleTimeoutSeconds, "use 1 or more"},
		{"completion_timeout_negative", with(InputCompletionTimeoutSeconds, "-5"), InputCompletionTimeoutSeconds, "use 1 or more"},
		{"shell_timeout_words", with(InputShellTimeoutSeconds, "ten"), InputShellTimeoutSeconds, "use 1 or more"},
		{"hook_timeout_overflows", with(InputHookTimeoutSeconds, "99999999999999999999"), InputHookTimeoutSeconds, "use at most 9223372036"},
		{"output_max_retries_negative", with(InputOutputTag, "result", InputOutputMaxRetries, "-1"), InputOutputMaxRetries, "use 0 or more"},
		{"verbose_maybe", with(InputVerbose, "maybe"), InputVerbose, "use true or false"},
		{"output_action_unknown", with(InputOutputAction, "merge"), InputOutputAction, "use one of: none, review, triage"},
		{"allowed_labels_without_triage", with(InputAllowedLabels, "bug"), InputAllowedLabels, "is used only with output-action triage"},
		{"max_actions_without_triage", with(InputMaxActions, "3"), InputMaxActions, "is used only with output-action triage"},
		{"max_actions_zero", with(InputOutputAction, "triage", InputMaxActions, "0"), InputMaxActions, "use 1 or more"},
		{"allowed_label_too_long", with(InputOutputAction, "triage", InputAllowedLabels, strings.Repeat("l", 51)), InputAllowedLabels, "GitHub labels have at most 50"},
		{"triaged_label_comma", with(InputOutputAction, "triage", InputTriagedLabel, "a,b"), InputTriagedLabel, "holds a comma"},
		{"agent_unknown", with(InputAgent, "gpt"), InputAgent, "use one of: claude-code, codex, pi"},
		{"effort_unknown", with(InputEffort, "extreme"), InputEffort, "use one of: low, medium, high, xhigh, max"},
		{"effort_for_agent_without_efforts", with(InputAgent, "pi", InputEffort, "high"), InputEffort, `agent "pi" takes no effort; remove effort`},
		{"permission_mode_unknown", with(InputPermissionMode, "yolo"), InputPermissionMode, "acceptEdits"},
		{"permission_mode_for_codex", with(InputAgent, "codex", InputPermissionMode, "plan"), InputPermissionMode, "takes no permission mode"},
		{"sandbox_unknown", with(InputSandbox, "podman"), InputSandbox, "use docker or none"},
		{"branch_strategy_unknown", with(InputBranchStrategy, "rebase"), InputBranchStrategy, "use one of: head, merge-to-head, branch"},
		{"branch_missing_for_branch_strategy", with(InputBranchStrategy, "branch"), InputBranch, "is required with branch-strategy"},
		{"branch_without_branch_strategy", with(InputBranch, "feature"), InputBranch, "set branch-strategy: branch"},
		{"branch_with_dot_dot", with(InputBranchStrategy, "branch", InputBranch, "a..b"), InputBranch, `contains ".."`},
		{"branch_starting_with_dash", with(InputBranchStrategy, "branch", InputBranch, "-D"), InputBranch, `starts with "-"`},
		{"branch_ending_in_lock", with(InputBranchStrategy, "branch", InputBranch, "fix.lock"), InputBranch, `ends with ".lock"`},
		{"branch_with_space", with(InputBranchStrategy, "branch", InputBranch, "my fix"), InputBranch, "contains a space"},
		{"prompt_and_prompt_file", with(InputPromptFile, "prompt.md"), InputPrompt, "use one of them"},
		{"no_prompt", Raw{}, InputPrompt, "set prompt (inline text) or prompt-file"},
		{"prompt_file_missing", Raw{InputPromptFile: "prompts/missing.md"}, InputPromptFile, "file /repo/prompts/missing.md does not exist"},
		{"prompt_file_empty", Raw{InputPromptFile: "empty.md"}, InputPromptFile, "is empty"},
		{"prompt_args_with_inline_prompt", with(InputPromptArgs, "ISSUE=1"), InputPromptArgs, "use prompt-file"},
		{"prompt_args_builtin_key", Raw{InputPromptFile: "prompt.md", InputPromptArgs: "SOURCE_BRANCH: main"}, InputPromptArgs, "is built in"},
		{"prompt_args_bad_key", Raw{InputPromptFile: "prompt.md", InputPromptArgs: "1ST=a"}, InputPromptArgs, "use letters, digits and _"},
		{"prompt_args_bad_yaml", Raw{InputPromptFile: "prompt.md", InputPromptArgs: "ISSUE: [1, 2\n"}, InputPromptArgs, "is not a YAML or JSON map, nor KEY=VALUE lines"},
		{"name_spans_lines", with(InputName, "a\nb"), InputName, "give a single line"},
		{"prompt_file_spans_lines", Raw{InputPromptFile: "a.md\nb.md"}, InputPromptFile, "give a single line"},
		{"working_directory_missing", with(InputWorkingDirectory, "nope"), InputWorkingDirectory, "directory /repo/nope does not exist"},
		{"working_directory_is_a_file", with(InputWorkingDirectory, "notes.txt"), InputWorkingDirectory, "is not a directory"},
		{"copy_to_worktree_with_head", with(InputCopyToWorktree, "node_modules"), InputCopyToWorktree, "use merge-to-head or branch"},
		{"copy_to_worktree_escapes", with(InputBranchStrategy, "merge-to-head", InputCopyToWorktree, "../secrets"), InputCopyToWorktree, "give a path inside working-directory"},
		{"copy_to_worktree_absolute", with(InputBranchStrategy, "merge-to-head", InputCopyToWorktree, "/etc/passwd"), InputCopyToWorktree, "give a path relative to working-directory"},
		{"env_bad_name", with(InputEnv, "NPM_TOKEN\nMY-VAR"), InputEnv, `"MY-VAR" is not a variable name; use letters, digits and _`},
		{"env_file_missing", with(InputEnvFile, "ci.env"), InputEnvFile, "file /repo/ci.env does not exist"},
		{"env_file_bad_line", with(InputEnvFile, "bad.env"), InputEnvFile, `line 2: not KEY=VALUE`},
		{"output_tag_not_a_name", with(InputOutputTag, "<result>"), InputOutputTag, "use a letter followed by letters, digits"},
		{"max_cost_with_an_agent_reporting_none", with(InputAgent, "pi", InputMaxCostUSD, "2"), InputMaxCostUSD, `agent "pi" reports no cost, so the budget could never be checked; leave max-cost-usd empty, or use an agent that reports its cost: claude-code`},
		{"max_cost_not_dollars", with(InputMaxCostUSD, "$5"), InputMaxCostUSD, `"$5" is not an amount of US dollars; use a decimal number above 0`},
		{"max_cost_zero", with(InputMaxCostUSD, "0.00"), InputMaxCostUSD, "0 would stop the run before it starts"},
		{"run_minutes_zero", with(InputRunMinutes, "0"), InputRunMinutes, "0 is too small; use 1 or more"},
		{"output_schema_without_tag", with(InputOutputSchema, "{}"), InputOutputSchema, "needs output-tag"},
		{"output_schema_inline_not_json", with(InputOutputTag, "r", InputOutputSchema, `{"type": "object",}`), InputOutputSchema, "inline schema is not valid JSON: line 1 column"},
		{"output_schema_file_not_json", with(InputOutputTag, "r", InputOutputSchema, "schema-bad.json"), InputOutputSchema, "/repo/schema-bad.json is not valid JSON"},
		{"output_schema_file_missing", with(InputOutputTag, "r", InputOutputSchema, "schema.json"), InputOutputSchema, "file /repo/schema.json does not exist"},
		{"output_retries_need_resumable_agent", with(InputAgent, "pi", InputOutputTag, "r", InputOutputMaxRetries, "2"), InputOutputMaxRetries, "use 0, or an agent that can: claude-code, codex"},
		{"resume_needs_resumable_agent", with(InputAgent, "pi", InputResumeSession, "s1"), InputResumeSession, "remove resume-session, or use an agent that can: claude-code or codex"},
		{"fork_needs_resume", with(InputForkSession, "true"), InputForkSession, "needs resume-session"},
		{"fork_needs_forkable_agent", with(InputAgent, "codex", InputResumeSession, "s1", InputForkSession, "true"), InputForkSession, "set fork-session to false to continue the session in place, or use claude-code"},
		{"output_retries_without_tag", with(InputOutputMaxRetries, "2"), InputOutputMaxRetries, "set output-tag or use 0"},
		{"unknown_input", with("max-iteration", "3"), "max-iteration", "there is no such input (did you mean max-iterations?)"},
		{"image_upper_case", with(InputImage, "Sandcastle:Latest"), InputImage, `"Sandcastle:Latest" is not an image reference; use a lower-case name`},
		{"image_with_space", with(InputImage, "my image"), InputImage, "is not an image reference"},
		{"build_image_unknown", with(InputBuildImage, "sometimes"), InputBuildImage, "use one of: auto, always, never"},
		{"dockerfile_missing", with(InputDockerfile, "nope/Dockerfile"), InputDockerfile, "file /repo/nope/Dockerfile does not exist"},
		{"dockerfile_is_a_directory", with(InputDockerfile, "docker"), InputDockerfile, "/repo/docker is a directory"},
		{"default_dockerfile_missing_with_build_always", with(InputBuildImage, "always"), InputDockerfile, "file /repo/.sandcastle/Dockerfile does not exist"},
		{"dockerfile_with_build_never", with(InputBuildImage, "never", InputDockerfile, "docker/Dockerfile"), InputDockerfile, "is not used with build-image never"},
		{"build_context_missing", with(InputDockerfile, "docker/Dockerfile", InputBuildContext, "ctx"), InputBuildContext, "directory /repo/ctx does not exist"},
		{"build_context_is_a_file", with(InputDockerfile, "docker/Dockerfile", InputBuildContext, "notes.txt"), InputBuildContext, "is not a directory"},
		{"build_context_without_dockerfile", with(InputBuildContext, "docker"), InputBuildContext, "is not used: there is no /repo/.sandcastle/Dockerfile to build, so the published image " + release.SandboxImage("claude-code") + " is used"},
		{"build_context_with_build_never", with(InputBuildImage, "never", InputBuildContext, "docker"), InputBuildContext, "is not used with build-image never"},
		{"build_args_bad_key", with(InputDockerfile, "docker/Dockerfile", InputBuildArgs, "MY-ARG=1"), InputBuildArgs, `the key on line 1 is not a valid name (not shown`},
		{"build_args_yaml_list", with(InputDockerfile, "docker/Dockerfile", InputBuildArgs, "- a\n- b\n"), InputBuildArgs, "is a YAML list, not a map"},
		{"build_args_without_dockerfile", with(InputAgent, "codex", InputBuildArgs, "A=1"), InputBuildArgs, "write that Dockerfile (sandcastle init does) or remove build-args"},
		{"build_args_with_build_never", with(InputBuildImage, "never", InputBuildArgs, "A=1"), InputBuildArgs, "is not used with build-image never"},
		{"pull_maybe", with(InputPull, "maybe"), InputPull, "use true or false"},
		{"pull_with_default_image", with(InputPull, "true", InputDockerfile, "docker/Dockerfile"), InputPull, "needs image: the default image sandcastle:repo is built here from /repo/docker/Dockerfile"},
		{"pull_with_build_always", with(InputPull, "true", InputImage, "ghcr.io/a/b:1", InputBuildImage, "always", InputDockerfile, "docker/Dockerfile"), InputPull, "is not used with build-image always"},
		{"container_uid_root", with(InputContainerUID, "0"), InputContainerUID, "0 is root, which the agent never runs as; give a non-root user id"},
		{"container_uid_negative", with(InputContainerUID, "-1"), InputContainerUID, `"-1" is not a user id`},
		{"container_uid_too_large", with(InputContainerUID, "4294967296"), InputContainerUID, "use at most 2147483647"},
		{"container_gid_root", with(InputContainerGID, "0"), InputContainerGID, "give a non-root group id"},
		{"container_gid_name", with(InputContainerGID, "staff"), InputContainerGID, `"staff" is not a group id`},
		{"network_container_mode", with(InputNetwork, "container:abc"), InputNetwork, `"container:abc" is not a network name`},
		{"network_leading_dash", with(InputNetwork, "-net"), InputNetwork, "starts with a letter or digit"},
		{"cpus_zero", with(InputCPUs, "0"), InputCPUs, "use a number above 0, or leave it empty for no limit"},
		{"cpus_negative", with(InputCPUs, "-1"), InputCPUs, `"-1" is not a number of CPUs`},
		{"cpus_hex_float", with(InputCPUs, "0x1p-2"), InputCPUs, "is not a number of CPUs"},
		{"cpus_too_precise", with(InputCPUs, "0.0000000001"), InputCPUs, "has more than 9 decimals"},
		{"cpus_too_many", with(InputCPUs, "99999999999"), InputCPUs, "is too large"},
		{"memory_unknown_unit", with(InputMemory, "4x"), InputMemory, `"4x" is not an amount of memory; use bytes or a number with k, m, g or t`},
		{"memory_negative", with(InputMemory, "-4g"), InputMemory, "is not an amount of memory"},
		{"memory_too_small", with(InputMemory, "5m"), InputMemory, "use at least 6m"},
		{"memory_too_large", with(InputMemory, "8388608t"), InputMemory, "use at most 8388607t"},
		{"pids_limit_zero", with(InputPidsLimit, "0"), InputPidsLimit, "use 1 or more"},
		{"mounts_without_sandbox_path", with(InputMounts, "docker"), InputMounts, `"docker" is not host:sandbox or host:sandbox:ro`},
		{"mounts_bad_mode", with(InputMounts, "docker:/d:rx"), InputMounts, "is not host:sandbox or host:sandbox:ro"},
		{"mounts_empty_host", with(InputMounts, ":/d"), InputMounts, "lacks a host or sandbox path"},
		{"mounts_relative_sandbox_path", with(InputMounts, "docker:data"), InputMounts, `sandbox path "data" is neither absolute nor under ~/`},
		{"mounts_sandbox_path_escapes_home", with(InputMounts, "docker:~/../etc"), InputMounts, "contains .."},
		{"mounts_sandbox_root", with(InputMounts, "docker:/"), InputMounts, "would hide the whole sandbox"},
		{"mounts_docker_socket", with(InputMounts, "/var/run/docker.sock:/var/run/docker.sock"), InputMounts, "host path /var/run/docker.sock would give the agent the container daemon's socket /var/run/docker.sock"},
		{"mounts_run_directory", with(InputMounts, "/run:/host-run:ro"), InputMounts, "socket /run/docker.sock"},
		{"mounts_host_missing", with(InputMounts, "cache:/cache"), InputMounts, "host path /repo/cache does not exist"},
		{"mounts_tilde_without_home", with(InputMounts, "~/.npmrc:~/.npmrc"), InputMounts, "the home directory is not known"},
		{"mounts_other_users_home", with(InputMounts, "~bob/x:/x"), InputMounts, "names another user's home"},
		{"mounts_same_sandbox_path", with(InputMounts, "docker:/x\n.:/x/"), InputMounts, "/x is the sandbox path of two mounts"},
		{"devices_not_under_dev", with(InputDevices, "/etc/shadow"), InputDevices, `"/etc/shadow" is not a device`},
		{"devices_escape_dev", with(InputDevices, "/dev/../etc/shadow"), InputDevices, "is not a device"},
		{"devices_bad_permissions", with(InputDevices, "/dev/fuse:rwx"), InputDevices, `permissions "rwx" of /dev/fuse are not letters of rwm`},
		{"devices_repeated_permissions", with(InputDevices, "/dev/fuse:/dev/fuse:rr"), InputDevices, "are not letters of rwm"},
		{"devices_relative_sandbox_path", with(InputDevices, "/dev/fuse:fuse:r"), InputDevices, "is not absolute"},
		{"groups_with_space", with(InputGroups, "video\nmy group"), InputGroups, `"my group" is neither a group name nor a group id`},
		{"groups_id_too_large", with(InputGroups, "99999999999"), InputGroups, "use at most 2147483647"},
		{"selinux_label_word", with(InputSELinuxLabel, "shared"), InputSELinuxLabel, "use z (shared), Z (private), or leave it empty"},
		{"sandbox_sync_unknown", with(InputSandboxSync, "rsync"), InputSandboxSync, "use one of: auto, mount, copy"},
		{"image_with_sandbox_none", with(InputSandbox, "none", InputImage, "ghcr.io/a/b:1"), InputImage, "only applies with sandbox docker, but sandbox is none; remove image or set sandbox: docker"},
		{"memory_with_sandbox_none", with(InputSandbox, "none", InputMemory, "8g"), InputMemory, "only applies with sandbox docker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := load(tt.raw, testEnv(files))
			p := checkOneProblem(t, err, tt.input, tt.valid)
			if got, want := p.Error(), label(tt.input)+": "; !strings.HasPrefix(got, want) {
				t.Errorf("Error() = %q, want prefix %q", got, want)
			}
		})
	}
}

func TestLoad_reportsEveryProblem(t *testing.T) {
	t.Parallel()
	raw := Raw{
		InputPrompt:         "Fix it.",
		InputPromptFile:     "prompt.md",
		InputMaxIterations:  "abc",
		InputAgent:          "gpt",
		InputBranchStrategy: "rebase",
		InputVerbose:        "maybe",
		InputEnv:            "1BAD",
		InputOutputTag:      "-x",
	}
	_, err := load(raw, testEnv(nil))
	if err == nil {
		t.Fatal("Load succeeded, want problems")
	}
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Input)
	}
	want := []string{InputPrompt, InputMaxIterations, InputAgent, InputBranchStrategy, InputEnv, InputVerbose, InputOutputTag}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems name %q, want %q\n%v", got, want, err)
	}
	if got, want := strings.Count(err.Error(), "\n")+1, len(want); got != want {
		t.Errorf("error has %d lines, want one per problem (%d):\n%v", got, want, err)
	}
}

func TestLoad_workDirMustBeAbsolute(t *testing.T) {
	t.Parallel()
	env := testEnv(nil)
	env.WorkDir = "repo"
	if _, err := load(with(), env); err == nil || strings.Contains(err.Error(), "input ") {
		t.Errorf("Load with a relative WorkDir = %v, want a non-input error", err)
	}
}

func TestLoad_promptArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want map[string]string
	}{
		{
			name: "yaml",
			args: "ISSUE: 42\nTITLE: 'Crash: on start'\nPADDED: 007\nPRICE: 1.50\nEMPTY: \"\"\n",
			want: map[string]string{"ISSUE": "42", "TITLE": "Crash: on start", "PADDED": "007", "PRICE": "1.50", "EMPTY": ""},
		},
		{
			name: "yaml_block_scalar",
			args: "BODY: |\n  line one\n  line two\n",
			want: map[string]string{"BODY": "line one\nline two\n"},
		},
		{
			name: "yaml_list_becomes_json",
			args: "LABELS:\n  - bug\n  - p1\nMETA: {a: 1}\n",
			want: map[string]string{"LABELS": `["bug","p1"]`, "META": `{"a":1}`},
		},
		{
			name: "yaml_alias",
			args: "A: &x shared\nB: *x\n",
			want: map[string]string{"A": "shared", "B": "shared"},
		},
		{
			name: "json",
			args: `{"ISSUE": 42, "TITLE": "Crash \"now\"", "OK": true}`,
			want: map[string]string{"ISSUE": "42", "TITLE": `Crash "now"`, "OK": "true"},
		},
		{
			name: "key_value_lines",
			args: "# from the event\nISSUE=42\n\nTITLE = Crash: on start\nURL=https://x.test/a?b=c\n",
			want: map[string]string{"ISSUE": "42", "TITLE": "Crash: on start", "URL": "https://x.test/a?b=c"},
		},
		{
			name: "only_comments",
			args: "# nothing yet\n",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(map[string]string{"p.md": "{{ISSUE}}"})
			c, err := load(Raw{InputPromptFile: "p.md", InputPromptArgs: tt.args}, env)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got, want := c.PromptArgs, tt.want; !reflect.DeepEqual(got, want) {
				t.Errorf("PromptArgs = %q, want %q", got, want)
			}
		})
	}
}

func TestLoad_badPromptArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want []string // one message fragment per expected problem
	}{
		{"yaml_syntax", "A: [1,\n", []string{"is not a YAML or JSON map, nor KEY=VALUE lines: yaml: line"}},
		{"json_syntax", `{"A": 1`, []string{"is not a YAML or JSON map"}},
		{"yaml_list", "- a\n- b\n", []string{"is a YAML list, not a map"}},
		{"yaml_scalar", "just words", []string{"is a YAML single value, not a map"}},
		{"yaml_null_value", "A:\nB: x\n", []string{`key A on line 1 has no value; give "" for an empty string`}},
		{"yaml_duplicate_key", "A: 1\nA: 2\n", []string{"key A on line 2 is given twice"}},
		{"yaml_bad_and_builtin_keys", "my-key: 1\nTARGET_BRANCH: main\n", []string{`key "my-key" on line 1 is not a valid name`, "key TARGET_BRANCH on line 2 is built in"}},
		{"key_value_missing_equals", "A=1\nB\n", []string{`line 2 is not KEY=VALUE (not shown`}},
		{"key_value_duplicate", "A=1\nA=2\n", []string{"key A on line 2 is given twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(map[string]string{"p.md": "{{A}}"})
			_, err := load(Raw{InputPromptFile: "p.md", InputPromptArgs: tt.args}, env)
			if err == nil {
				t.Fatal("Load succeeded, want problems")
			}
			problems := problemsOf(t, err)
			if got, want := len(problems), len(tt.want); got != want {
				t.Fatalf("got %d problems, want %d:\n%v", got, want, err)
			}
			for i, p := range problems {
				if got, want := p.Input, InputPromptArgs; got != want {
					t.Errorf("problem %d names %q, want %q", i, got, want)
				}
				if !strings.Contains(p.Message, tt.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p.Message, tt.want[i])
				}
			}
		})
	}
}
