package inputs

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionYML is the part of action.yml the tests read.
type actionYML struct {
	Inputs yaml.Node `yaml:"inputs"`
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

// TestAtMostFiftyInputs keeps the action's face one a newcomer can hold: a knob most runs leave
// alone is a key of a map input, not an input of its own.
func TestAtMostFiftyInputs(t *testing.T) {
	t.Parallel()
	if n := len(TopLevel()); n > 50 {
		t.Errorf("%d top-level inputs; keep at most 50, and make rarely set ones keys of a map input", n)
	}
}

// TestMapInputKeys: every key belongs to a map input, and every moved input names where it went
// once.
func TestMapInputKeys(t *testing.T) {
	t.Parallel()
	formerly := map[string]string{}
	for _, d := range Definitions {
		group, key, isKey := strings.Cut(d.Name, ".")
		if !isKey {
			if d.Formerly != "" {
				t.Errorf("input %q: Formerly is only for the keys of map inputs", d.Name)
			}
			continue
		}
		if g, ok := Lookup(group); !ok || g.Kind != KindMap || strings.Contains(key, ".") {
			t.Errorf("key %q: %q is no map input, or the key is nested", d.Name, group)
		}
		if d.Formerly != "" {
			if other, dup := formerly[d.Formerly]; dup || isTopLevel(d.Formerly) {
				t.Errorf("key %q: Formerly %q is also %q, or still an input", d.Name, d.Formerly, other)
			}
			formerly[d.Formerly] = d.Name
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
