package inputs

import (
	"fmt"
	"slices"
	"strings"
)

// UnknownVariables returns a warning for each INPUT_* variable of environ (KEY=VALUE entries, as
// os.Environ gives them) that is no input, naming the input it most likely meant. The runner
// sets one for every key under a step's with:, so a misspelt key would otherwise be dropped
// without a word. Values are never looked at.
func UnknownVariables(environ []string) []string {
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if input, ok := strings.CutPrefix(name, "INPUT_"); ok && input != "" && !isEnvName(name) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var warnings []string
	for _, name := range names {
		input := strings.ToLower(strings.TrimPrefix(name, "INPUT_"))
		w := fmt.Sprintf("%s is set, but the action has no input %q, so it is ignored", name, input)
		if hint := didYouMean(input, ""); hint != "" {
			w += "; " + hint
		}
		warnings = append(warnings, w)
	}
	return warnings
}

// isEnvName reports whether name is the variable of a top-level input.
func isEnvName(name string) bool {
	return slices.ContainsFunc(TopLevel(), func(d Definition) bool { return EnvName(d.Name) == name })
}

// removed are inputs that are gone, and what to do instead.
var removed = map[string]string{
	"allow-bots":                "it was removed; list * in allowed-bots to let any bot start runs",
	"output-type":               "it was removed; output-schema decides it: with a schema the output is a JSON object, without one the tag's text",
	"github-relay-max-requests": "it was removed; the relay's bound on requests is fixed",
}

// didYouMean asks after the input most likely meant by the unknown name ("did you mean
// --max-iterations?", with prefix "--"), with a word on hyphens when it was written with
// underscores, and says where an input went that moved into a map input or was removed; ""
// when no input is close.
func didYouMean(name, prefix string) string {
	name = strings.ToLower(name)
	if hyphens := strings.ReplaceAll(name, "_", "-"); hyphens != name {
		if isTopLevel(hyphens) {
			return fmt.Sprintf("input names are written with hyphens, not underscores: did you mean %s%s?", prefix, hyphens)
		}
		name = hyphens
	}
	if why, ok := removed[name]; ok {
		return why
	}
	for _, d := range Definitions {
		if d.Formerly != name {
			continue
		}
		group, key, _ := strings.Cut(d.Name, ".")
		if prefix == "" {
			return fmt.Sprintf("it moved into input %s as its key %s: set %s: %q", group, key, group, key+": VALUE")
		}
		return fmt.Sprintf("it moved into input %s as its key %s: give %s%s %s=VALUE", group, key, prefix, group, key)
	}
	var names []string
	for _, d := range TopLevel() {
		names = append(names, d.Name)
	}
	best := closest(name, names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %s%s?", prefix, best)
}

// isTopLevel reports whether name is an input of action.yml.
func isTopLevel(name string) bool {
	return slices.ContainsFunc(TopLevel(), func(d Definition) bool { return d.Name == name })
}

// editDistance is the Levenshtein distance between a and b, in bytes (input names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
