package githubapi

import (
	"fmt"
	"strings"
)

// markerTag returns the hidden HTML comment that finds a PR or comment again on re-runs.
func markerTag(marker string) (string, error) {
	// "--" cannot appear inside an HTML comment, and a newline would let the marker be
	// split by editors; either would make the tag unfindable or visible.
	if marker == "" || strings.Contains(marker, "--") || strings.ContainsAny(marker, "<>\r\n") {
		return "", fmt.Errorf("invalid marker %q: want a non-empty single line without \"--\", \"<\" or \">\"", marker)
	}
	return "<!-- " + marker + " -->", nil
}

// Marked reports whether body carries the hidden tag of marker, as UpsertComment,
// EditComment and UpsertPR write it. An invalid marker is never written, so it marks nothing.
func Marked(body, marker string) bool {
	tag, err := markerTag(marker)
	return err == nil && strings.Contains(body, tag)
}

// sectionStart opens the run's own section in a body someone else wrote, which marker's tag
// closes; marker is valid.
func sectionStart(marker string) string { return "<!-- " + marker + ":start -->" }

// MarkedBy reports whether body carries a hidden tag of any marker in the family prefix (the
// marker prefix itself, or one that continues it after a ":"), as a run writes into its
// comments and pull requests: the body is one of the action's own.
func MarkedBy(body, prefix string) bool {
	open := "<!-- " + prefix
	for rest := body; ; {
		i := strings.Index(rest, open)
		if i < 0 {
			return false
		}
		rest = rest[i+len(open):]
		if strings.HasPrefix(rest, " -->") || strings.HasPrefix(rest, ":") && strings.Contains(strings.SplitN(rest, "\n", 2)[0], " -->") {
			return true
		}
	}
}

// withTag returns body carrying tag, appending it when absent.
func withTag(body, tag string) string {
	if strings.Contains(body, tag) {
		return body
	}
	if body == "" {
		return tag
	}
	return strings.TrimRight(body, "\n") + "\n\n" + tag
}
