package event

import "strings"

// CodeSpan is s as an inline code span s cannot end: delimited by a run of backticks longer than
// any in s, with a space inside each end when s starts or ends with a backtick (CommonMark strips
// one each side). s should be one line.
func CodeSpan(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// Fence is a code fence s cannot close: three backticks, or more than the longest run in s.
func Fence(s string) string { return strings.Repeat("`", max(3, longestRun(s, '`')+1)) }

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}
