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

// isEnvName reports whether name is the variable of a defined input.
func isEnvName(name string) bool {
	return slices.ContainsFunc(Definitions, func(d Definition) bool { return EnvName(d.Name) == name })
}

// didYouMean asks after the input most likely meant by the unknown name ("did you mean
// --max-iterations?", with prefix "--"), with a word on hyphens when it was written with
// underscores; "" when no input is close.
func didYouMean(name, prefix string) string {
	name = strings.ToLower(name)
	if hyphens := strings.ReplaceAll(name, "_", "-"); hyphens != name {
		if _, ok := Lookup(hyphens); ok {
			return fmt.Sprintf("input names are written with hyphens, not underscores: did you mean %s%s?", prefix, hyphens)
		}
		name = hyphens
	}
	best, bestDist := "", max(1, len(name)/4)+1
	for _, d := range Definitions {
		if dist := editDistance(name, d.Name); dist < bestDist {
			best, bestDist = d.Name, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %s%s?", prefix, best)
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
