package inputs

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionYML is the part of action.yml the contract test reads. Inputs and outputs stay nodes so
// their order can be checked.
type actionYML struct {
	Name string `yaml:"name"`
	Runs struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
	} `yaml:"runs"`
	Inputs  yaml.Node `yaml:"inputs"`
	Outputs yaml.Node `yaml:"outputs"`
}

// readActionYML reads the repository's action.yml.
func readActionYML(t *testing.T) actionYML {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatalf("read action.yml: %v", err)
	}
	var action actionYML
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("parse action.yml: %v", err)
	}
	return action
}

func TestActionYMLMatchesDefinitions(t *testing.T) {
	t.Parallel()
	action := readActionYML(t)
	if got, want := action.Name, "Sandcastle"; got != want {
		t.Errorf("name = %q, want %q", got, want)
	}
	// Which image it runs is internal/release's test.
	if got, want := action.Runs.Using, "docker"; got != want {
		t.Errorf("runs.using = %q, want %q", got, want)
	}

	inputs := pairs(t, &action.Inputs)
	var names []string
	for _, d := range Definitions {
		names = append(names, d.Name)
	}
	if got := keys(inputs); !slices.Equal(got, names) {
		t.Errorf("action.yml inputs =\n%q\nwant Definitions\n%q", got, names)
	}
	for _, in := range inputs {
		d, ok := Lookup(in.name)
		if !ok {
			continue // reported above
		}
		var spec struct {
			Description string    `yaml:"description"`
			Default     yaml.Node `yaml:"default"`
		}
		if err := in.value.Decode(&spec); err != nil {
			t.Errorf("input %q: %v", in.name, err)
			continue
		}
		want := d.Default
		switch {
		case setByMode(d.Name):
			want = "" // TestLoad_modesInTheAction says why
		case d.ActionDefault != "":
			want = d.ActionDefault
		}
		if got := spec.Default.Value; got != want {
			t.Errorf("input %q: default = %q, want %q", in.name, got, want)
		}
		if spec.Default.Kind != 0 && spec.Default.Tag != "!!str" {
			t.Errorf("input %q: default is a %s; quote it so it is a string", in.name, spec.Default.Tag)
		}
		if got, want := strings.Join(strings.Fields(spec.Description), " "), d.Description; got != want {
			t.Errorf("input %q: description =\n%q\nwant\n%q", in.name, got, want)
		}
	}

	outputs := pairs(t, &action.Outputs)
	if got := keys(outputs); !slices.Equal(got, OutputNames) {
		t.Errorf("action.yml outputs =\n%q\nwant OutputNames\n%q", got, OutputNames)
	}
	for _, out := range outputs {
		var spec struct {
			Description string `yaml:"description"`
		}
		if err := out.value.Decode(&spec); err != nil || strings.TrimSpace(spec.Description) == "" {
			t.Errorf("output %q has no description (%v)", out.name, err)
		}
	}
}

type pair struct {
	name  string
	value *yaml.Node
}

// pairs returns the entries of a YAML mapping in file order.
func pairs(t *testing.T, n *yaml.Node) []pair {
	t.Helper()
	if n.Kind != yaml.MappingNode {
		t.Fatalf("line %d: want a mapping", n.Line)
	}
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, pair{n.Content[i].Value, n.Content[i+1]})
	}
	return out
}

func keys(ps []pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.name)
	}
	return out
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range Definitions {
		if seen[d.Name] {
			t.Errorf("input %q is defined twice", d.Name)
		}
		seen[d.Name] = true
		if d.Description == "" || d.Kind == 0 {
			t.Errorf("input %q lacks a description or kind", d.Name)
		}
		if d.Kind == KindChoice && len(d.Choices) > 0 && !slices.Contains(d.Choices, d.Default) {
			t.Errorf("input %q: default %q is not one of its choices %q", d.Name, d.Default, d.Choices)
		}
		if got, want := d.Multiline, d.Kind == KindText || d.Kind == KindList || d.Kind == KindMap; got != want {
			t.Errorf("input %q: Multiline = %v, want %v for a %s", d.Name, got, want, d.Kind)
		}
		// An ActionDefault is only for what the command line cannot have: a workflow expression.
		if d.ActionDefault != "" && !strings.HasPrefix(d.ActionDefault, "${{") {
			t.Errorf("input %q: ActionDefault %q is not a workflow expression; make it Default", d.Name, d.ActionDefault)
		}
	}
}

// actionDefaults are the defaults action.yml gives inputs, by name.
func actionDefaults(t *testing.T) map[string]string {
	t.Helper()
	action := readActionYML(t)
	defaults := map[string]string{}
	for _, in := range pairs(t, &action.Inputs) {
		var spec struct {
			Default *string `yaml:"default"`
		}
		if err := in.value.Decode(&spec); err != nil {
			t.Fatalf("input %q: %v", in.name, err)
		}
		if spec.Default != nil {
			defaults[in.name] = *spec.Default
		}
	}
	return defaults
}

// setByMode reports whether a mode gives input a value.
func setByMode(input string) bool {
	return slices.ContainsFunc(Modes, func(m Mode) bool { _, ok := m.setting(input); return ok })
}
