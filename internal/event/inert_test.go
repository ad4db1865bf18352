package event

import (
	"strings"
	"testing"
)

// TestInert: what GitHub would act on in a pull request body (closing an issue on merge,
// notifying someone) is shown as code; the rest of the Markdown, code blocks, e-mail addresses,
// what is code already and mere mentions of issues stay as written.
func TestInert(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Fixed the redirect.", "Fixed the redirect."},
		{"Fixes #1, closes #2, resolves acme/other#3", "`Fixes #1`, `closes #2`, `resolves acme/other#3`"},
		{"Closes: #7 and FIXED https://github.com/o/r/issues/9.", "`Closes: #7` and `FIXED https://github.com/o/r/issues/9`."},
		{"See #4 for context", "See #4 for context"},
		{"ping @acme/everyone and @octocat, not me@example.com", "ping `@acme/everyone` and `@octocat`, not me@example.com"},
		{"@octocat first", "`@octocat` first"},
		{"already `@octocat` and `fixes #3`", "already `@octocat` and `fixes #3`"},
		{"hidden <!-- <!-- sandcastle:pr --> -->marker", "hidden  -->marker"},
		{"```\nFixes #1 @octocat\n```\nFixes #2", "```\nFixes #1 @octocat\n```\n`Fixes #2`"},
	} {
		if got := Inert(tt.in); got != tt.want {
			t.Errorf("Inert(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Inert(Inert(tt.in)); got != tt.want {
			t.Errorf("Inert twice on %q = %q, want it as once", tt.in, got)
		}
	}
}

// FuzzInert: whatever the text, Inert leaves no closing reference and no mention outside code,
// fenced blocks aside.
func FuzzInert(f *testing.F) {
	for _, s := range []string{"Fixes #1", "@a", "x @b/c fixes o/r#2", "```\n@a\n```\n@b", "closes\t#3", "`x` @y", "```\n~~~\n@a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fence := "" // a block opened by ``` ends at ```, one by ~~~ at ~~~
		for line := range strings.Lines(Inert(s)) {
			tr := strings.TrimLeft(line, " ")
			switch {
			case fence != "":
				if strings.HasPrefix(tr, fence) {
					fence = ""
				}
				continue
			case strings.HasPrefix(tr, "```") || strings.HasPrefix(tr, "~~~"):
				fence = tr[:3]
				continue
			}
			for _, m := range closingRef.FindAllStringIndex(line, -1) {
				if m[0] == 0 || line[m[0]-1] != '`' {
					t.Fatalf("closing reference outside code in %q (from %q)", line, s)
				}
			}
			for _, m := range mentionRE.FindAllStringSubmatchIndex(line, -1) {
				if m[2] == 0 || line[m[2]-1] != '`' {
					t.Fatalf("mention outside code in %q (from %q)", line, s)
				}
			}
		}
	})
}
