package event

import (
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// hidden are texts in which GitHub finds a mention or a closing reference where a reader of the
// Markdown line by line sees none, or sees it as code: inside HTML blocks (which Markdown does
// not reach, so ticks are no code there), behind entities, after another @, in an autolink.
var hidden = []string{
	"<div>\n@octocat\n</div>",
	"<div>Fixes #9</div>",
	"<details>\n<summary>x</summary>\n@octocat and Fixes #9\n</details>",
	"<details>\n```\n@octocat\n```\n</details>",
	"> <div>\n> @octocat\n> </div>",
	"- <details>\n  @octocat\n  </details>",
	"&#64;octocat",
	"&#x40;octocat and &commat;hubot",
	"Closes&#32;#9 and Fixes&nbsp;#8",
	"Clos&#101;s #9",
	"@@octocat",
	"Fixes <https://github.com/o/r/issues/9>",
	"Fixes: <https://github.com/o/r/issues/9>",
	"fixes https://github.com/o/r/issues/9",
	"Fixes\nhttps://github.com/o/r/issues/9",
	"<span>@octocat</span> <b>Fixes #9</b>",
}

// TestInertRendered: rendered as GitHub renders Markdown (goldmark, CommonMark with GFM and raw
// HTML), what Inert makes of each hidden text shows no mention or closing reference outside code.
func TestInertRendered(t *testing.T) {
	for _, s := range hidden {
		if live := testkit.LiveReferences(Inert(s)); len(live) > 0 {
			t.Errorf("Inert(%q) = %q: live %q", s, Inert(s), live)
		}
	}
}

// TestInert: what GitHub would act on in a pull request body (closing an issue on merge,
// notifying someone) is shown as code; the rest of the Markdown, code blocks, e-mail addresses,
// what is code already and mere mentions of issues stay as written.
func TestInert(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Fixed the redirect.", "Fixed the redirect."},
		{"Fixes #1, closes #2, resolves acme/other#3", "`Fixes #1`, `closes #2`, `resolves acme/other#3`"},
		{"Closes: #7 and FIXED https://github.com/o/r/issues/9.", "`Closes: #7` and `FIXED https://github.com/o/r/issues/9`."},
		{"See #4 for context", "See #4 for context"},
		{"ping @acme/everyone and @octocat, and me@example.com", "ping `@acme/everyone` and `@octocat`, and `me@example`.com"}, // an e-mail link may end a node before an @,
		{"@octocat first", "`@octocat` first"},
		// What is code already is wrapped again, in longer ticks: whether a backtick opens a
		// span depends on more than the line.
		{"already `@octocat` and `fixes #3`", "already ` ``@octocat`` ` and ` ``fixes #3`` `"},
		{"`Fixes #1 (a stray backtick)", "` ``Fixes #1`` (a stray backtick)"},
		{"``x`` then fixes #2", "``x`` then ```fixes #2```"},
		{"@0/fiX #0", "`@0/fiX #0`"},
		{`\@octocat`, "\\ `@octocat`"},
		{"@a@b and fixes #1fixes #2", "`@a@b` and `fixes` #1fixes #2"},
		{"fiX @0#0", "`fiX` `@0`#0"},
		{"Fixes `x` #12 and fixes <b></b>#3, but fixes the bug", "``Fixes`` `x` #12 and ``fixes`` &lt;b>&lt;/b>#3, but fixes the bug"},
		{"Fi<a>xes #9 <https://x.example/a> <!-- c -->", "Fi&lt;a>xes #9 <https://x.example/a> "},
		{"It fixes\n#3, and Closes:\n#4", "It `fixes`\n#3, and `Closes:`\n#4"},
		{"    ```\nFixes #1", "    ```\n````Fixes #1````"},     // indented code, no fence
		{"```x`\nFixes #1 `y`", "```x`\n````Fixes #1```` `y`"}, // a code span, no fence
		{"~~~\nFixes #1\n~~~\nfixes #2", "~~~\nFixes #1\n~~~\n`fixes #2`"},
		{"hidden <!-- <!-- sandcastle:pr --> -->marker", "hidden  -->marker"},
		{"```\nFixes #1 @octocat\n```\nFixes #2", "```\nFixes #1 @octocat\n```\n`Fixes #2`"},
	} {
		if got := Inert(tt.in); got != tt.want {
			t.Errorf("Inert(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzInert: whatever the text, Inert leaves no closing reference and no mention outside code,
// as GitHub renders it (testkit.LiveReferences), and as CommonMark reads code: a fenced block, or a span between two runs of backticks of one
// length. Spans are paired over the whole text outside fences, which is what a reader of one
// paragraph sees and more.
func FuzzInert(f *testing.F) {
	for _, s := range []string{"Fixes #1", "@a", "x @b/c fixes o/r#2", "```\n@a\n```\n@b", "closes\t#3", "`x` @y", "```\n~~~\n@a",
		"@0/fiX #0", "`Fixes #1", "Close\n#0", "\\@0", "@0@0", "a `\nb ` fixes #2", "    ```\nFixes #1", "```x`\nFixes #1"} {
		f.Add(s)
	}
	for _, s := range hidden {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Inert(s)
		if live := testkit.LiveReferences(out); len(live) > 0 {
			t.Fatalf("rendered, %q shows %q outside code (from %q)", out, live, s)
		}
		text := outsideFences(out)
		code := codeSpans(text)
		inCode := func(start, end int) bool {
			for _, c := range code {
				if c[0] <= start && end <= c[1] {
					return true
				}
			}
			return false
		}
		for _, m := range closingRef.FindAllStringIndex(text, -1) {
			if !inCode(m[0], m[1]) {
				t.Fatalf("closing reference %q outside code in %q (from %q)", text[m[0]:m[1]], out, s)
			}
		}
		for _, m := range mentionRE.FindAllStringSubmatchIndex(text, -1) {
			if !inCode(m[2], m[3]) {
				t.Fatalf("mention %q outside code in %q (from %q)", text[m[2]:m[3]], out, s)
			}
		}
	})
}

// outsideFences is md without its fenced code blocks, as CommonMark opens them (at most three
// spaces, three or more backticks with none after them, or tildes) and closes them (at most
// three spaces and a run at least as long, nothing after it but spaces), each block replaced by
// an empty line.
func outsideFences(md string) string {
	var b strings.Builder
	char, length := byte(0), 0
	for line := range strings.Lines(md) {
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		run := 0
		if indent <= 3 && t != "" && (t[0] == '`' || t[0] == '~') {
			run = len(t) - len(strings.TrimLeft(t, t[:1]))
		}
		if length > 0 {
			if run >= length && t[0] == char && strings.TrimRight(t[run:], " \n") == "" {
				length = 0
			}
			b.WriteString("\n")
			continue
		}
		if run >= 3 && (t[0] == '~' || !strings.Contains(t[run:], "`")) {
			char, length = t[0], run
			b.WriteString("\n")
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// codeSpans are the code spans of text as CommonMark pairs them: a run of backticks (not
// escaped by a backslash) opens one that the next run of the same length closes; a run with no
// such partner is text.
func codeSpans(text string) [][]int {
	var spans [][]int
	for i := 0; i < len(text); {
		if text[i] != '`' {
			if text[i] == '\\' && i+1 < len(text) && text[i+1] == '`' {
				i += 2
				continue
			}
			i++
			continue
		}
		n := runAt(text, i)
		closed := false
		for j := i + n; j < len(text); {
			if text[j] != '`' {
				j++
				continue
			}
			m := runAt(text, j)
			if m == n {
				spans = append(spans, []int{i, j + m})
				i, closed = j+m, true
				break
			}
			j += m
		}
		if !closed {
			i += n
		}
	}
	return spans
}

func runAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}
