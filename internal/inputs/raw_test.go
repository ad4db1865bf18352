package inputs

import (
	"errors"
	"flag"
	"reflect"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	t.Parallel()
	vars := map[string]string{
		"INPUT_PROMPT-FILE":        "prompts/fix.md",
		"INPUT_MAX-ITERATIONS":     "3",
		"INPUT_HOOK-SANDBOX-READY": "npm ci\nnpm test\n",
		"INPUT_MODEL":              "  ",   // the runner sets omitted inputs to ""; blank is not given
		"INPUT_MAX_ITERATIONS":     "9",    // underscores are not how the runner spells hyphens
		"PROMPT":                   "nope", // not an input variable
	}
	var asked []string
	getenv := func(name string) string {
		asked = append(asked, name)
		return vars[name]
	}
	got := FromEnv(getenv)
	want := Raw{
		InputPromptFile:       "prompts/fix.md",
		InputMaxIterations:    "3",
		InputHookSandboxReady: "npm ci\nnpm test\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromEnv() = %q, want %q", got, want)
	}
	if got, want := len(asked), len(Definitions); got != want {
		t.Errorf("FromEnv asked for %d variables, want one per definition (%d)", got, want)
	}
	for _, name := range asked {
		if !strings.HasPrefix(name, "INPUT_") {
			t.Errorf("FromEnv asked for %q, want only INPUT_ variables", name)
		}
	}
}

func TestFromEnv_thenLoad(t *testing.T) {
	t.Parallel()
	// As the runner starts the container: every input set, omitted ones to their defaults.
	vars := map[string]string{}
	for _, d := range Definitions {
		vars[EnvName(d.Name)] = d.Default
	}
	vars["INPUT_PROMPT"] = "Fix the bug."
	vars["INPUT_COMPLETION-TIMEOUT-SECONDS"] = "15"
	c, err := Load(FromEnv(func(k string) string { return vars[k] }), testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := c.CompletionTimeout.Seconds(), 15.0; got != want {
		t.Errorf("CompletionTimeout = %vs, want %vs", got, want)
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"prompt", "INPUT_PROMPT"},
		{"prompt-file", "INPUT_PROMPT-FILE"},
		{"hook-host-sandbox-ready", "INPUT_HOOK-HOST-SANDBOX-READY"},
		{"odd name", "INPUT_ODD_NAME"},
	}
	for _, tt := range tests {
		if got := EnvName(tt.name); got != tt.want {
			t.Errorf("EnvName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFromFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want Raw
	}{
		{
			name: "name_then_value",
			args: []string{"--prompt", "Fix it.", "--max-iterations", "3"},
			want: Raw{InputPrompt: "Fix it.", InputMaxIterations: "3"},
		},
		{
			name: "equals_form_and_single_dash",
			args: []string{"--prompt-file=prompts/fix.md", "-agent=codex"},
			want: Raw{InputPromptFile: "prompts/fix.md", InputAgent: "codex"},
		},
		{
			name: "bare_boolean",
			args: []string{"--verbose", "--prompt", "p"},
			want: Raw{InputVerbose: "true", InputPrompt: "p"},
		},
		{
			name: "boolean_with_value",
			args: []string{"--verbose=false"},
			want: Raw{InputVerbose: "false"},
		},
		{
			name: "list_flag_repeats",
			args: []string{"--copy-to-worktree", "node_modules", "--copy-to-worktree", ".env"},
			want: Raw{InputCopyToWorktree: "node_modules\n.env"},
		},
		{
			name: "value_starting_with_dash",
			args: []string{"--log-file", "-"},
			want: Raw{InputLogFile: "-"},
		},
		{
			name: "empty_value_is_not_given",
			args: []string{"--model", ""},
			want: Raw{},
		},
		{
			name: "no_arguments",
			args: nil,
			want: Raw{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FromFlags(tt.args)
			if err != nil {
				t.Fatalf("FromFlags: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FromFlags(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestFromFlags_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // fragments of the error, all of which must appear
	}{
		{"unknown_flag", []string{"--max-iteration", "3"}, []string{"unknown flag --max-iteration: see sandcastle run --help"}},
		{"missing_value", []string{"--prompt"}, []string{`input "prompt": flag --prompt needs a value`}},
		{"repeated_single_value", []string{"--agent", "a", "--agent", "b"}, []string{"flag --agent is given more than once"}},
		{"positional_argument", []string{"fix", "the", "bug"}, []string{`unexpected argument "fix"`, `unexpected argument "bug"`}},
		{"every_mistake_at_once", []string{"--nope", "--model"}, []string{"unknown flag --nope", "flag --model needs a value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromFlags(tt.args)
			if err == nil {
				t.Fatalf("FromFlags(%q) succeeded, want an error", tt.args)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("FromFlags(%q) = %q, want it to contain %q", tt.args, err, w)
				}
			}
		})
	}
}

func TestFromFlags_help(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h", "-help"} {
		if _, err := FromFlags([]string{"--prompt", "p", arg}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("FromFlags(%q) = %v, want flag.ErrHelp", arg, err)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	usage := Usage()
	for _, d := range Definitions {
		line := "  --" + d.Name + " "
		if d.Kind == KindBool {
			line = "  --" + d.Name
		}
		if !strings.Contains(usage, line) {
			t.Errorf("Usage() does not list %q", d.Name)
		}
		if d.Default != "" && !strings.Contains(usage, `(default "`+d.Default+`")`) {
			t.Errorf("Usage() does not show the default %q of %q", d.Default, d.Name)
		}
		if d.ActionDefault != "" && strings.Contains(usage, d.ActionDefault) {
			t.Errorf("Usage() shows the Action's default %q of %q, which the command line does not have", d.ActionDefault, d.Name)
		}
	}
	golden(t, "usage.golden", usage)
}
