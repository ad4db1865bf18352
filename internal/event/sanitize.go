package event

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize removes from s what a person reading it on GitHub cannot see but an agent would:
// HTML comments (an unterminated one runs to the end, as in a browser), invisible characters
// (see Invisible) and control characters other than newline and tab. Line endings become "\n"
// ("\r\n" and a lone "\r" alike) and bytes that are not UTF-8 are dropped.
//
// The result is never longer than s, and sanitizing it again changes nothing: removing text can
// join "<!" and "--" into a new comment opener, so openers are looked for in the output as it
// grows, never in the input.
func Sanitize(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue
			}
			r = '\n'
		case Invisible(r):
			continue
		}
		out = utf8.AppendRune(out, r)
		if !bytes.HasSuffix(out, []byte("<!--")) {
			continue
		}
		out = out[:len(out)-len("<!--")]
		// The closer is searched in the raw text: a browser does not end a comment at
		// "-\u200b->", so neither may we, or text it hides would reach the agent.
		end := strings.Index(s[i:], "-->")
		if end < 0 {
			break
		}
		i += end + len("-->")
	}
	return string(out)
}

// Invisible reports whether r is a character Sanitize removes because it draws nothing or
// changes how the text around it is drawn: control characters other than "\n" and "\t", format
// characters (Unicode category Cf: zero-width space and joiners, BOM, soft hyphen, bidi
// embeddings, overrides and isolates, tag characters, …), variation selectors (which can carry
// hidden data after any character) and the other default-ignorable code points (Hangul fillers,
// the combining grapheme joiner, unassigned tag-block code points).
func Invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r >= 0xE0000 && r <= 0xE007F: // the tag block, assigned or not
		return true
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
