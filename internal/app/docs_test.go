package app

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps the README a front page: what the action is, one workflow, the modes,
// what the sandbox holds, two commands and links. The rest is in docs/ and CONTRIBUTING.md.
const readmeMaxLines = 250

// TestREADMEIsAFrontPage: the README stays within readmeMaxLines lines.
func TestREADMEIsAFrontPage(t *testing.T) {
	t.Parallel()
	readme := readFile(t, filepath.Join("..", "..", "README.md"))
	if n := strings.Count(strings.TrimSuffix(readme, "\n"), "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move what a user finds by task to docs/", n, readmeMaxLines)
	}
}

// TestDocsLinksResolve: every relative link of README.md, CONTRIBUTING.md and docs/*.md names a
// file of the repository and, with #anchor, a heading of that Markdown file, so that a section
// moved or renamed fails here rather than leaving a reader at the top of a page.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, pages...)
	links := 0
	for _, page := range pages {
		for _, l := range markdownLinks(readFile(t, page)) {
			if regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`).MatchString(l.target) {
				continue // a URL, not a file of the repository
			}
			links++
			file, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			where := filepath.ToSlash(strings.TrimPrefix(page, root+string(filepath.Separator))) + ":" + strconv.Itoa(l.line)
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: the link %q names no file: %v", where, l.target, err)
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: the link %q has an anchor into a file that is not Markdown", where, l.target)
				continue
			}
			if !headingAnchors(readFile(t, target))[anchor] {
				t.Errorf("%s: the link %q names no heading of %s", where, l.target, file)
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links in the docs, want the pages linked to each other", links)
	}
}

// TestHeadingAnchors: anchors are made as GitHub makes them.
func TestHeadingAnchors(t *testing.T) {
	t.Parallel()
	got := headingAnchors("# The repository's .git\n## `sandcastle init`\n### run: every input spelled out\n" +
		"## Labels\n## Labels\n```sh\n# not a heading\n```\n## Runners beyond GitHub's\n## [Link](x.md) and *em*\n")
	for _, want := range []string{"the-repositorys-git", "sandcastle-init", "run-every-input-spelled-out", "labels", "labels-1", "runners-beyond-githubs", "link-and-em"} {
		if !got[want] {
			t.Errorf("no anchor %q among %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block made an anchor")
	}
}

// mdLink is a link of a Markdown page, its target and the line it starts on.
type mdLink struct {
	target string
	line   int
}

var (
	fence      = regexp.MustCompile("(?m)^ *```")
	codeSpan   = regexp.MustCompile("``[^`]*``|`[^`\n]*`")
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
)

// markdownLinks returns the inline links of a Markdown page outside code.
func markdownLinks(page string) []mdLink {
	var links []mdLink
	text := codeSpan.ReplaceAllStringFunc(withoutFences(page), func(s string) string {
		return strings.Repeat(" ", len(s)-strings.Count(s, "\n")) + strings.Repeat("\n", strings.Count(s, "\n"))
	})
	for _, m := range inlineLink.FindAllStringSubmatchIndex(text, -1) {
		links = append(links, mdLink{target: text[m[2]:m[3]], line: strings.Count(text[:m[0]], "\n") + 1})
	}
	return links
}

// withoutFences blanks the lines of fenced code blocks, keeping the line count.
func withoutFences(page string) string {
	lines := strings.Split(page, "\n")
	in := false
	for i, line := range lines {
		if fence.MatchString(line) {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// headingAnchors are the anchors GitHub gives a page's headings: the heading's text, links and
// emphasis taken off, in lower case, with every space a hyphen and other punctuation dropped;
// a repeated anchor gets -1, -2 and so on.
func headingAnchors(page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	linkText := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	for _, line := range strings.Split(withoutFences(page), "\n") {
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") || len(line)-len(strings.TrimLeft(line, "#")) > 6 {
			continue
		}
		text = linkText.ReplaceAllString(strings.TrimSpace(text), "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor += "-" + strconv.Itoa(n)
		} else {
			seen[anchor] = 1
		}
		anchors[anchor] = true
	}
	return anchors
}
