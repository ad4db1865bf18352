package agent

import (
	"fmt"
	"slices"
	"strings"
)

// builtins returns every agent this build knows. Adding an agent is one file with its
// Provider and one entry here.
func builtins() []Provider {
	return []Provider{
		ClaudeCode{},
		Codex{},
		Copilot{},
		Cursor{},
		OpenCode{},
		Pi{},
	}
}

// Names returns the names of the built-in agents, sorted.
func Names() []string {
	return agentsWhere(func(Provider) bool { return true })
}

// agentsWhere names the built-in agents for which ok holds, sorted.
func agentsWhere(ok func(Provider) bool) []string {
	var names []string
	for _, p := range builtins() {
		if ok(p) {
			names = append(names, p.Name())
		}
	}
	slices.Sort(names)
	return names
}

// Lookup returns the agent called name (the value of the agent input).
func Lookup(name string) (Provider, error) {
	for _, p := range builtins() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("look up agent %q: unknown agent; valid agents are %s", name, strings.Join(Names(), ", "))
}
