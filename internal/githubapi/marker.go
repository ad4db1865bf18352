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
