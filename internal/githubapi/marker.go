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
