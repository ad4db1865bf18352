package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %q, not sorted", names)
	}
	if !slices.Contains(names, "claude-code") {
		t.Errorf("Names() = %q, missing claude-code", names)
	}
	if got := len(slices.Compact(slices.Clone(names))); got != len(names) {
		t.Errorf("Names() = %q has duplicates", names)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q) error = %v", name, err)
		}
		if got := p.Name(); got != name {
			t.Errorf("Lookup(%q).Name() = %q", name, got)
		}
		if p.DefaultModel() == "" {
			t.Errorf("Lookup(%q).DefaultModel() is empty", name)
		}
		if _, err := p.Command(Request{Prompt: "hi"}); err != nil {
			t.Errorf("Lookup(%q).Command(defaults) error = %v", name, err)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"gemini", "Claude-Code", ""} {
		p, err := Lookup(name)
		if err == nil {
			t.Fatalf("Lookup(%q) = %v, want an error", name, p)
		}
		msg := err.Error()
		if !strings.Contains(msg, `"`+name+`"`) || !strings.Contains(msg, strings.Join(Names(), ", ")) {
			t.Errorf("Lookup(%q) error = %q, want it to name the input and list %q", name, msg, Names())
		}
	}
}
