package testkit

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// liveMention is an @mention as GitHub links one: a login or org/team after a character that is
// no word character (another @ is one: "@@name" notifies name).
var liveMention = regexp.MustCompile(`(?:^|[^\w])(@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_.-]+)?)`)

// liveClosing is a closing keyword and the issue it closes: #N, owner/repo#N or an issue's URL.
var liveClosing = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?:\s*:\s*|\s+)` +
	`(?:[\w.-]+/[\w.-]+)?(?:#\d+|<?https?://[^\s/]+/[\w.-]+/[\w.-]+/issues/\d+)\b`)

// codeElements are what GitHub acts on nothing in: code spans and blocks. Raw HTML may nest
// them, which the non-greedy match then cuts short, showing more as text: never less.
var codeElements = regexp.MustCompile(`(?is)<pre[\s>].*?</pre>|<code[\s>].*?</code>`)

// links are the elements whose text GitHub's mention filter passes over, as it passes over code
// (html-pipeline's MentionFilter ignores text under a, pre, code, style and script): a mention
// in a link's text notifies nobody. A closing reference may still be one ("Fixes <a>…/issues/9</a>").
var links = regexp.MustCompile(`(?is)<a[\s>].*?</a>`)

// tags are HTML tags, raw or rendered; what is between two is a text node.
var tags = regexp.MustCompile(`<[^>]*>`)

// Render renders md to HTML as GitHub does: CommonMark with GFM, raw HTML kept.
func Render(md string) (string, error) {
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return out.String(), nil
}

// LiveReferences renders md as GitHub does (CommonMark with GFM, raw HTML kept) and returns the
// @mentions and closing references ("Fixes #9", "closes <https://…/issues/9>") a reader's
// browser shows as text outside code: what GitHub would notify or close on. Entities are read
// as the browser reads them; a mention is looked for in each text node alone outside links, as
// GitHub's filter looks, a closing reference in the text joined; a code element cut short by nesting shows more
// as text, never less.
func LiveReferences(md string) []string {
	out, err := Render(md)
	if err != nil {
		return []string{err.Error()}
	}
	prose := codeElements.ReplaceAllString(out, "<code/>") // a node boundary, as the code was
	var found []string
	for _, t := range tags.Split(links.ReplaceAllString(prose, "<a/>"), -1) {
		for _, m := range liveMention.FindAllStringSubmatch(html.UnescapeString(t), -1) {
			found = append(found, m[1])
		}
	}
	// A closing reference may span nodes: "Fixes <a href=…>…/issues/9</a>", an autolink, closes.
	joined := strings.ReplaceAll(prose, "<code/>", "\n")
	return append(found, liveClosing.FindAllString(html.UnescapeString(tags.ReplaceAllString(joined, "")), -1)...)
}
