package event

import (
	"regexp"
	"slices"
	"strings"
)

// mentionRE is an @mention GitHub notifies: a login or org/team after a character that is not
// part of a word (so an e-mail address is none).
var mentionRE = regexp.MustCompile(`(?:^|[^\w@])(@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]+)?)`)

// Inert makes Markdown that the agent or a stranger wrote safe to post as part of a pull request
// or comment the action writes: as Sanitize, without what a person cannot see, and with each
// closing reference ("Fixes #12", "closes owner/repo#3", an issue's URL) and @mention shown as
// code, so that merging the pull request closes no issue the run did not name itself and
// nobody is notified. Fenced code blocks, and what is already shown as code right there, stay
// as they are: GitHub acts on nothing in them.
func Inert(s string) string {
	lines := strings.SplitAfter(Sanitize(s), "\n")
	fence := ""
	for i, line := range lines {
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		var spans [][]int
		for _, m := range closingRef.FindAllStringIndex(line, -1) {
			spans = append(spans, m)
		}
		for _, m := range mentionRE.FindAllStringSubmatchIndex(line, -1) {
			if !overlaps(spans, m[2], m[3]) {
				spans = append(spans, []int{m[2], m[3]})
			}
		}
		lines[i] = asCode(line, spans)
	}
	return strings.Join(lines, "")
}

func overlaps(spans [][]int, start, end int) bool {
	for _, s := range spans {
		if start < s[1] && s[0] < end {
			return true
		}
	}
	return false
}

// asCode puts each span of line between backticks, unless a backtick stands right before it.
func asCode(line string, spans [][]int) string {
	if len(spans) == 0 {
		return line
	}
	slices.SortFunc(spans, func(a, b []int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(line[last:s[0]])
		if s[0] > 0 && line[s[0]-1] == '`' {
			b.WriteString(line[s[0]:s[1]])
		} else {
			b.WriteString("`" + line[s[0]:s[1]] + "`")
		}
		last = s[1]
	}
	b.WriteString(line[last:])
	return b.String()
}
