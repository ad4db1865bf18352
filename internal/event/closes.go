package event

import (
	"regexp"
	"strconv"
	"strings"
)

// closingRef is GitHub's closing syntax in a pull request description: a keyword (close,
// closes, closed, fix, fixes, fixed, resolve, resolves, resolved, in any case), an optional
// colon, then the issue as #N, owner/repo#N or its URL, bare or as an autolink (<URL>).
var closingRef = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?:\s*:\s*|\s+)` +
	`(?:([\w.-]+/[\w.-]+)?#(\d+)|<?https?://[^\s/]+/([\w.-]+/[\w.-]+)/issues/(\d+))\b`)

// closes reports whether a pull request description in repository ("owner/name") uses a
// closing keyword on issue, so that merging it would close the issue. A mere mention ("see
// #42") does not close it, nor does a reference to an issue of another repository.
func closes(body, repository string, issue int) bool {
	want := strconv.Itoa(issue)
	for _, m := range closingRef.FindAllStringSubmatch(Sanitize(body), -1) {
		repo, n := m[1], m[2]
		if m[4] != "" {
			repo, n = m[3], m[4]
		}
		if n == want && (repo == "" || strings.EqualFold(repo, repository)) {
			return true
		}
	}
	return false
}
