package agent

import (
	"fmt"
	"slices"
	"strings"
)

// builtins returns every agent this build knows, each a fresh value. Adding an agent is one
// file with its Provider and one entry here.
func builtins() []Provider {
	return []Provider{
		claudeCode(),
		codex(),
		copilot(),
		cursor(),
		openCode(),
		pi(),
	}
}

// Names returns the names of the built-in agents, sorted.
func Names() []string {
	return agentsWhere(func(Spec) bool { return true })
}

// Specs returns the Spec of every built-in agent, sorted by name.
func Specs() []Spec {
	var specs []Spec
	for _, p := range builtins() {
		specs = append(specs, p.Spec)
	}
	slices.SortFunc(specs, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// agentsWhere names the built-in agents for which ok holds, sorted.
func agentsWhere(ok func(Spec) bool) []string {
	var names []string
	for _, s := range Specs() {
		if ok(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

// Lookup returns the agent called name (the value of the agent input).
func Lookup(name string) (Provider, error) {
	for _, p := range builtins() {
		if p.Name == name {
			return p, nil
		}
	}
	return Provider{}, fmt.Errorf("look up agent %q: unknown agent; valid agents are %s", name, strings.Join(Names(), ", "))
}
