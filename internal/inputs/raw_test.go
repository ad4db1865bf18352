package inputs

import (
	"errors"
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	t.Parallel()
	vars := map[string]string{
		"INPUT_PROMPT-FILE":    "prompts/fix.md",
		"INPUT_MAX-ITERATIONS": "3",
		"INPUT_HOOKS":          "sandbox-ready: npm ci\n",
		"INPUT_MODEL":          "  ",   // the runner sets omitted inputs to ""; blank is not given
		"INPUT_MAX_ITERATIONS": "9",    // underscores are not how the runner spells hyphens
		"PROMPT":               "nope", // not an input variable
	}
	var asked []string
	getenv := func(name string) string {
		asked = append(asked, name)
		return vars[name]
	}
	got := FromEnv(getenv)
	want := Raw{
		InputPromptFile:    "prompts/fix.md",
		InputMaxIterations: "3",
		InputHooks:         "sandbox-ready: npm ci\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromEnv() = %q, want %q", got, want)
	}
	if got, want := len(asked), len(TopLevel()); got != want {
		t.Errorf("FromEnv asked for %d variables, want one per input of action.yml (%d)", got, want)
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
	for _, d := range TopLevel() {
		vars[EnvName(d.Name)] = d.Default
	}
	vars["INPUT_PROMPT"] = "Fix the bug."
	vars["INPUT_TIMEOUTS"] = "completion-seconds: 15"
	c, err := load(FromEnv(func(k string) string { return vars[k] }), testEnv(nil))
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
			name: "map_flag_repeats",
			args: []string{"--docker", "memory=8g", "--docker", "mounts=a:/a", "--docker", "mounts=b:/b"},
			want: Raw{InputDocker: "memory=8g\nmounts=a:/a\nmounts=b:/b"},
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
		want []string // every problem, in order
	}{
		{"unknown_flag", []string{"--promt", "fix it"}, []string{"unknown flag --promt: did you mean --prompt?"}},
		{"every_unknown_flag", []string{"--promt", "hi", "--max_iterations", "3", "--colour=red", "--output-tagg", "result", "--verbos"}, []string{
			"unknown flag --promt: did you mean --prompt?",
			"unknown flag --max_iterations: input names are written with hyphens, not underscores: did you mean --max-iterations?",
			"unknown flag --colour: see sandcastle run --help",
			"unknown flag --output-tagg: did you mean --output-tag?",
			"unknown flag --verbos: did you mean --verbose?",
		}},
		{"unknown_flag_before_a_flag", []string{"--verbos", "--prompt", "hi", "--x"}, []string{
			"unknown flag --verbos: did you mean --verbose?",
			"unknown flag --x: see sandcastle run --help",
		}},
		{"moved_flag", []string{"--build-image", "never"}, []string{"unknown flag --build-image: it moved into input docker as its key build-image: give --docker build-image=VALUE"}},
		{"key_is_no_flag", []string{"--docker.memory", "8g"}, []string{"unknown flag --docker.memory: see sandcastle run --help"}},
		{"missing_value", []string{"--prompt"}, []string{`input "prompt": flag --prompt needs a value`}},
		{"repeated_single_value", []string{"--agent", "a", "--agent", "b"}, []string{`input "agent": flag --agent is given more than once; give it once`}},
		{"positional_argument", []string{"fix", "the", "bug"}, []string{
			`unexpected argument "fix": give inputs as --name value`,
			`unexpected argument "the": give inputs as --name value`,
			`unexpected argument "bug": give inputs as --name value`,
		}},
		{"every_mistake_at_once", []string{"--nope", "x", "--model"}, []string{"unknown flag --nope: see sandcastle run --help", `input "model": flag --model needs a value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromFlags(tt.args)
			if err == nil {
				t.Fatalf("FromFlags(%q) succeeded, want an error", tt.args)
			}
			var got []string
			for _, p := range problemsOf(t, err) {
				got = append(got, p.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FromFlags(%q) problems:\n%s\nwant:\n%s", tt.args, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestUnknownVariables(t *testing.T) {
	t.Parallel()
	environ := []string{
		"INPUT_PROMPT=hi",
		"INPUT_OUTPUT-TAGG=result",
		"INPUT_MAX_ITERATIONS=3",
		"INPUT_COLOUR=red",
		"INPUT_GITHUB-TOKEN=ghs_secret",
		"INPUT_API_KEY=sk-secret",
		"INPUT_=x",
		"INPUT_BUILD-IMAGE=never",
		"INPUT_ALLOW-BOTS=true",
		"PATH=/bin",
		"GITHUB_INPUT_X=1",
	}
	want := []string{
		`INPUT_ALLOW-BOTS is set, but the action has no input "allow-bots", so it is ignored; it was removed; list * in allowed-bots to let any bot start runs`,
		`INPUT_API_KEY is set, but the action has no input "api_key", so it is ignored`,
		`INPUT_BUILD-IMAGE is set, but the action has no input "build-image", so it is ignored; it moved into input docker as its key build-image: set docker: "build-image: VALUE"`,
		`INPUT_COLOUR is set, but the action has no input "colour", so it is ignored`,
		`INPUT_MAX_ITERATIONS is set, but the action has no input "max_iterations", so it is ignored; input names are written with hyphens, not underscores: did you mean max-iterations?`,
		`INPUT_OUTPUT-TAGG is set, but the action has no input "output-tagg", so it is ignored; did you mean output-tag?`,
	}
	if got := UnknownVariables(environ); !slices.Equal(got, want) {
		t.Errorf("UnknownVariables:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var all []string
	for _, d := range TopLevel() {
		all = append(all, EnvName(d.Name)+"=x")
	}
	if got := UnknownVariables(all); len(got) != 0 {
		t.Errorf("UnknownVariables warns about defined inputs: %q", got)
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
	usage := Usage(testAgents)
	for _, d := range Definitions {
		line := "  --" + d.Name + " "
		if key := KeyName(d.Name); key != d.Name {
			line = "      " + key + "= "
		} else if d.Kind == KindBool {
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
	if !strings.Contains(usage, "claude-code: low, medium, high, xhigh, max; codex: low, medium, high, xhigh; pi: none.") {
		t.Error("Usage() does not list each agent's efforts")
	}
	golden(t, "usage.golden", usage)
}
