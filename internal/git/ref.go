package git

import (
	"fmt"
	"strings"
)

// CheckRef reports whether name is acceptable as a branch name: the rules of
// git check-ref-format --branch, plus no leading '-', so a name can never be taken for an option.
func CheckRef(name string) error {
	if why := refProblem(name); why != "" {
		return fmt.Errorf("invalid branch name %q: %s", name, why)
	}
	return nil
}

func refProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.HasPrefix(name, "-"):
		return "starts with '-'"
	case name == "HEAD" || name == "@":
		return "reserved name"
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return "starts or ends with '/'"
	case strings.HasSuffix(name, "."):
		return "ends with '.'"
	case strings.Contains(name, ".."):
		return "contains '..'"
	case strings.Contains(name, "//"):
		return "contains '//'"
	case strings.Contains(name, "@{"):
		return "contains '@{'"
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return fmt.Sprintf("contains %q", c)
		}
	}
	for part := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(part, ".") {
			return "a component starts with '.'"
		}
		if strings.HasSuffix(part, ".lock") {
			return "a component ends with '.lock'"
		}
	}
	return ""
}
