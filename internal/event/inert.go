package event

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// mentionRE is what may be an @mention GitHub notifies: a login or org/team after an @. It is
// taken wherever it stands, after a letter too: what comes before may end a text node of its own
// when rendered, and a mention at a node's start is notified ("_x_@a" renders as <em>x</em>@a,
// "b@c.d@a" as an e-mail link to b@c.d, then @a). An e-mail address is shown as code with it.
var mentionRE = regexp.MustCompile(`(@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]+)?)`)

// bareKeyword is a closing keyword, with its colon, that ends a line or stands before anything
// but a word: GitHub reads a reference on the next line as its issue ("Fixes\n#12"), and one
// after code or a tag as following the keyword, since neither is text ("Fixes `x` #12",
// "Fixes <b></b>#12", or the code a mention becomes in "Fixes @a#12"). Before a word it is
// prose ("fixes the bug") and stays as it is.
var bareKeyword = regexp.MustCompile(`(?i)\b((?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?:\s*:)?)(?:\s*$|\s*[^\s\w])`)

// entity is a character reference, which a browser shows as the character: "&#64;a" is a
// mention, "Closes&#32;#9" a closing reference.
var entity = regexp.MustCompile(`&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// blockHTML is a "<" where an HTML block can start: first on a line, after the markers of block
// quotes and list items. GitHub reads what follows as HTML up to a blank line, fences and code
// spans included, and notifies a mention in it, which ticks cannot make code there.
var blockHTML = regexp.MustCompile(`^((?:[ \t]*(?:>|[-*+]|\d{1,9}[.)]))*[ \t]*)<`)

// autolink is a URI autolink, which CommonMark reads before a tag: "<https://…>", "<A0:x>".
var autolink = regexp.MustCompile(`^<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>`)

// inlineHTML escapes each "<" of line that could open a tag, a comment or a declaration, which
// GitHub keeps as raw HTML: a tag inside a word hides it from Inert's patterns and not from the
// reader's ("Fi<a>xes #9" shows as "Fixes #9"). An autolink is left a link.
func inlineHTML(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '<' && i+1 < len(line) && !autolink.MatchString(line[i:]) {
			if n := line[i+1]; n == '/' || n == '!' || n == '?' || 'a' <= n|0x20 && n|0x20 <= 'z' {
				b.WriteString("&lt;")
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Inert makes Markdown that the agent or a stranger wrote safe to post as part of a pull request
// or comment the action writes: as Sanitize, without what a person cannot see, and with each
// closing reference ("Fixes #12", "closes owner/repo#3", an issue's URL) and @mention shown as
// code, so that merging the pull request closes no issue the run did not name itself and
// nobody is notified. Fenced code blocks stay as they are: GitHub acts on nothing in them.
// Outside them, no HTML block starts (its "<" becomes "&lt;") and no character reference is
// read (its "&" becomes "&amp;"), so the text shows them as written: inside a code span of the
// text that shows the escape, which is harmless.
//
// Each reference becomes a code span of its own, delimited by a run of backticks longer than any
// in the text outside fenced blocks, so no backtick of the text can pair with it: a stray one before it ("`Fixes #1"),
// or one that opens a span on an earlier line, leaves it code either way. What is code already
// is wrapped again all the same, since whether a backtick of the text opens a span depends on
// what surrounds it (the paragraph, escapes); the doubled backticks then show, which is harmless.
func Inert(s string) string { return InertBut(s, 0) }

// InertBut is Inert, but a closing reference to issue (#N, in this repository), the one the
// run was started for, stays live, so that merging the pull request closes it; 0 keeps none.
func InertBut(s string, issue int) string {
	keep := strconv.Itoa(issue)
	lines := strings.SplitAfter(Sanitize(s), "\n")
	var prose []int // the lines outside fenced blocks
	fence := ""
	for i, line := range lines {
		if fence != "" {
			// Closed only where CommonMark closes it: a block closed too early would take the
			// next fence of the text for an opening one, and what follows that for code.
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if fence = fenceOpener(line); fence == "" {
			prose = append(prose, i)
			line = entity.ReplaceAllStringFunc(line, func(e string) string { return "&amp;" + e[1:] })
			lines[i] = inlineHTML(blockHTML.ReplaceAllString(line, "$1&lt;"))
		}
	}
	longest := 0
	for _, i := range prose {
		longest = max(longest, longestRun(lines[i], '`'))
	}
	tick := strings.Repeat("`", longest+1)
	for _, i := range prose {
		var spans [][]int
		kept := map[int]bool{} // where the closing reference to the run's own issue starts
		for _, m := range closingRef.FindAllStringSubmatchIndex(lines[i], -1) {
			if issue != 0 && m[2] < 0 && m[4] >= 0 && lines[i][m[4]:m[5]] == keep {
				kept[m[0]] = true
				continue
			}
			spans = append(spans, m[:2])
		}
		for _, m := range bareKeyword.FindAllStringSubmatchIndex(lines[i], -1) {
			if !kept[m[2]] {
				spans = append(spans, []int{m[2], m[3]}) // its issue may be on the next line, or after code
			}
		}
		for _, m := range mentionRE.FindAllStringSubmatchIndex(lines[i], -1) {
			spans = append(spans, []int{m[2], m[3]})
		}
		lines[i] = asCode(lines[i], keywordsBefore(lines[i], union(words(lines[i], spans))), tick)
	}
	return strings.Join(lines, "")
}

// fenceOpener is the opening of a fenced code block line starts, as CommonMark reads one: at
// most three spaces, then three or more backticks (with none after them on the line) or
// tildes; "" when line opens none. The run is returned whole: only a run as long closes it.
func fenceOpener(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "" // indented code, one line of it: what follows is Markdown again
	}
	for _, c := range []byte{'`', '~'} {
		run := len(t) - len(strings.TrimLeft(t, string(c)))
		if run >= 3 && (c == '~' || !strings.Contains(t[run:], "`")) {
			return t[:run]
		}
	}
	return ""
}

// closesFence says whether line closes the block fence opened, as CommonMark reads it: at most
// three spaces, a run of the fence's character at least as long, then nothing but spaces.
func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	rest := strings.TrimLeft(t, fence[:1])
	return len(t)-len(rest) >= len(fence) && strings.Trim(rest, " \t\r\n") == ""
}

// words widens each span of line over the word characters and @ that touch it, so that the
// ticks put around it never make a reference or a mention of what stands next to them: a tick
// is a word boundary, which "fixes #1fixes #2" and "@a@b" lack.
func words(line string, spans [][]int) [][]int {
	joins := func(c byte) bool {
		return c == '_' || c == '@' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for _, s := range spans {
		for s[0] > 0 && joins(line[s[0]-1]) {
			s[0]--
		}
		for s[1] < len(line) && joins(line[s[1]]) {
			s[1]++
		}
	}
	return spans
}

// keywordBefore is a closing keyword, with its colon, that ends the text before a span: once the
// span is code, GitHub may read the keyword with what follows the code ("fix 0@0#0" becomes
// "fix `0@0`#0", which reads as "fix #0").
var keywordBefore = regexp.MustCompile(`(?i)\b((?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?:\s*:)?)\s*$`)

// keywordsBefore adds to the sorted, disjoint spans of line each closing keyword that stands
// right before one of them, and the keyword before that one, and so on.
func keywordsBefore(line string, spans [][]int) [][]int {
	for added := true; added; {
		added = false
		for _, s := range spans {
			if m := keywordBefore.FindStringSubmatchIndex(line[:s[0]]); m != nil && !covered(spans, m[2]) {
				spans = union(append(spans, []int{m[2], m[3]}))
				added = true
				break
			}
		}
	}
	return spans
}

// covered says whether i falls in one of spans.
func covered(spans [][]int, i int) bool {
	for _, s := range spans {
		if s[0] <= i && i < s[1] {
			return true
		}
	}
	return false
}

// union sorts spans and joins those that overlap or touch, so that a mention and a closing reference
// sharing characters ("@o/fix #1") become one piece of code rather than one cutting the other.
func union(spans [][]int) [][]int {
	slices.SortFunc(spans, func(a, b []int) int { return a[0] - b[0] })
	var out [][]int
	for _, s := range spans {
		if n := len(out); n > 0 && s[0] <= out[n-1][1] { // touching ones too: their ticks would merge
			out[n-1][1] = max(out[n-1][1], s[1])
			continue
		}
		out = append(out, []int{s[0], s[1]})
	}
	return out
}

// asCode puts each of the sorted, disjoint spans of line between tick, with a space between
// tick and a backtick of the line next to it, so that the two never make one longer run, and
// between a backslash and the opening tick, which it would escape.
func asCode(line string, spans [][]int, tick string) string {
	if len(spans) == 0 {
		return line
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(line[last:s[0]])
		if s[0] > 0 && (line[s[0]-1] == '`' || line[s[0]-1] == '\\') { // a backslash would escape tick
			b.WriteByte(' ')
		}
		b.WriteString(tick + line[s[0]:s[1]] + tick)
		if s[1] < len(line) && line[s[1]] == '`' {
			b.WriteByte(' ')
		}
		last = s[1]
	}
	b.WriteString(line[last:])
	return b.String()
}
