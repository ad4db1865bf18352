package gitref

import (
	"fmt"
	"strings"
)

// Check reports whether name is a valid git branch name, following
// git-check-ref-format(1) for refs/heads/<name> plus the two rules of `git branch`: no leading
// "-" (it would read as an option) and not "HEAD". Checking here, rather than letting git fail
// later, reports the problem with the other input problems before any work starts.
func Check(name string) error {
	if reason := branchNameProblem(name); reason != "" {
		return fmt.Errorf("%q is not a valid git branch name: %s", name, reason)
	}
	return nil
}

func branchNameProblem(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case name == "@":
		return `it is "@"`
	case name == "HEAD":
		return "HEAD names the current commit, not a branch"
	case strings.HasPrefix(name, "-"):
		return `it starts with "-"`
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return `it starts or ends with "/"`
	case strings.Contains(name, "//"):
		return `it contains "//"`
	case strings.Contains(name, ".."):
		return `it contains ".."`
	case strings.Contains(name, "@{"):
		return `it contains "@{"`
	case strings.HasSuffix(name, "."):
		return `it ends with "."`
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return "it contains a control character"
		case r == ' ':
			return "it contains a space"
		case strings.ContainsRune(`~^:?*[\`, r):
			return fmt.Sprintf("it contains %q; none of ~ ^ : ? * [ \\ may appear", r)
		}
	}
	for _, part := range strings.Split(name, "/") {
		switch {
		case strings.HasPrefix(part, "."):
			return fmt.Sprintf("the part %q starts with \".\"", part)
		case strings.HasSuffix(part, ".lock"):
			return fmt.Sprintf("the part %q ends with \".lock\"", part)
		}
	}
	return ""
}

// Commit is a commit and its subject line.
type Commit struct {
	SHA     string
	Subject string
}

// ShortSHA abbreviates a commit id for people: its first 7 characters.
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// Slug makes text a piece of a branch name: lower-case ASCII letters and digits, every other run
// of characters one "-", none at either end, at most max bytes, cut at a "-" when one is near
// the end so that no word is cut in half. It is "" when text holds no ASCII letter or digit.
// Whatever text is (a stranger's issue title, say), "prefix-"+Slug(text) is a valid branch name
// part, and the slug holds nothing a shell or git would read as anything but letters.
func Slug(text string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range text {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if len(s) <= max {
		return s
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '-'); i > max/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, "-")
}
