package review

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
)

// Schema is the JSON Schema of a review run's structured output.
const Schema = `{
  "type": "object",
  "required": ["summary"],
  "additionalProperties": false,
  "properties": {
    "summary": {"type": "string", "minLength": 1, "maxLength": 60000, "description": "The review's body."},
    "comments": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["path", "line", "body"],
        "additionalProperties": false,
        "properties": {
          "path": {"type": "string", "minLength": 1, "description": "The file's path in the repository."},
          "line": {"type": "integer", "minimum": 1, "description": "The line the comment is on: in the new file for RIGHT, in the old one for LEFT."},
          "side": {"enum": ["LEFT", "RIGHT"], "description": "RIGHT (the default) for added or unchanged lines, LEFT for removed ones."},
          "body": {"type": "string", "minLength": 1, "maxLength": 60000},
          "suggestion": {"type": "string", "description": "The line's replacement, shown as a suggested change."}
        }
      }
    }
  }
}`

// Output is a review agent's structured output.
type Output struct {
	Summary  string    `json:"summary"`
	Comments []Comment `json:"comments"`
}

// Comment is one comment the agent wants on a line.
type Comment struct {
	Path       string  `json:"path"`
	Line       int     `json:"line"`
	Side       string  `json:"side,omitempty"` // LEFT or RIGHT; "" is RIGHT
	Body       string  `json:"body"`
	Suggestion *string `json:"suggestion,omitempty"`
}

// Parse reads a review output, already checked against Schema.
func Parse(output []byte) (Output, error) {
	var o Output
	if err := json.Unmarshal(output, &o); err != nil {
		return o, fmt.Errorf("review: the structured output is not a review output: %w", err)
	}
	for i := range o.Comments {
		if o.Comments[i].Side == "" {
			o.Comments[i].Side = "RIGHT"
		}
	}
	return o, nil
}

// File is a file the pull request changes, with GitHub's patch of it.
type File struct {
	Path  string
	Patch string // the hunks; "" for a binary or too large a file, which has no line to comment on
}

// Lines are the lines of the diff a comment can be on, as GitHub allows them: every line of
// every hunk, a removed one on the LEFT (by its number in the old file), an added one on the
// RIGHT (in the new file), an unchanged one on both.
type Lines map[string]bool

func lineKey(path, side string, line int) string {
	return path + "\x00" + side + "\x00" + strconv.Itoa(line)
}

// Has reports whether c is on a line of the diff.
func (l Lines) Has(c Comment) bool { return l[lineKey(c.Path, c.Side, c.Line)] }

var hunk = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// DiffLines maps the files' patches to the lines a comment can be on.
func DiffLines(files []File) Lines {
	lines := Lines{}
	for _, f := range files {
		old, new := 0, 0
		in := false
		for _, l := range strings.Split(f.Patch, "\n") {
			if m := hunk.FindStringSubmatch(l); m != nil {
				old, _ = strconv.Atoi(m[1])
				new, _ = strconv.Atoi(m[2])
				in = true
				continue
			}
			if !in || l == "" {
				continue
			}
			switch l[0] {
			case '-':
				lines[lineKey(f.Path, "LEFT", old)] = true
				old++
			case '+':
				lines[lineKey(f.Path, "RIGHT", new)] = true
				new++
			case ' ':
				lines[lineKey(f.Path, "LEFT", old)] = true
				lines[lineKey(f.Path, "RIGHT", new)] = true
				old++
				new++
			}
			// "\ No newline at end of file" takes no number.
		}
	}
	return lines
}

// Family starts the markers of a review run's comments and summary.
const Family = "sandcastle:review"

// marker is a comment's: its place and text, so that the same comment made again is found.
func (c Comment) marker() string {
	s := ""
	if c.Suggestion != nil {
		s = *c.Suggestion
	}
	return Family + ":" + digest(c.Path, c.Side, strconv.Itoa(c.Line), c.Body, s)
}

func summaryMarker(summary string) string { return Family + ":summary:" + digest(summary) }

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func tag(marker string) string { return "<!-- " + marker + " -->" }

// Plan is the review to post: the comments on their lines, those moved into the body, and how
// many an earlier run made already.
type Plan struct {
	Summary  string
	Inline   []Comment // on lines of the diff
	Moved    []Comment // outside it: in the body
	Repeated int       // made by an earlier run: left out
	// SummaryPosted says an earlier review of the run's has this summary.
	SummaryPosted bool
}

// Build plans the review of out on the diff of files. posted are the bodies of the reviews and
// review comments the pull request has already, which an earlier run's markers are found in.
func Build(out Output, files []File, posted []string) Plan {
	lines := DiffLines(files)
	all := strings.Join(posted, "\n")
	p := Plan{Summary: out.Summary, SummaryPosted: strings.Contains(all, tag(summaryMarker(out.Summary)))}
	seen := map[string]bool{}
	for _, c := range out.Comments {
		m := c.marker()
		switch {
		case seen[m] || strings.Contains(all, tag(m)):
			p.Repeated++
		case lines.Has(c):
			p.Inline = append(p.Inline, c)
		default:
			p.Moved = append(p.Moved, c)
		}
		seen[m] = true
	}
	return p
}

// Nothing says there is nothing new to post: the summary and every comment were posted before.
func (p Plan) Nothing() bool {
	return p.SummaryPosted && len(p.Inline) == 0 && len(p.Moved) == 0
}

// Flat is the plan with every comment in the body: what is posted when GitHub refuses a
// comment on its line after all (the diff changed since it was read).
func (p Plan) Flat() Plan {
	p.Moved = append(append([]Comment(nil), p.Inline...), p.Moved...)
	p.Inline = nil
	return p
}

// Inline is a comment as the review posts it on its line.
type Inline struct {
	Path, Side string
	Line       int
	Body       string
}

// Comments are the plan's comments on their lines, rendered with their suggestions and
// markers.
func (p Plan) Comments() []Inline {
	out := make([]Inline, len(p.Inline))
	for i, c := range p.Inline {
		out[i] = Inline{Path: c.Path, Side: c.Side, Line: c.Line, Body: c.text() + "\n\n" + tag(c.marker())}
	}
	return out
}

// text is a comment's body with its suggestion as a suggested change.
func (c Comment) text() string {
	body := strings.TrimRight(c.Body, "\n")
	if c.Suggestion == nil {
		return body
	}
	f := event.Fence(*c.Suggestion)
	return body + "\n\n" + f + "suggestion\n" + strings.TrimRight(*c.Suggestion, "\n") + "\n" + f
}

// Body is the review's body: the summary, then the comments outside the diff with where they
// were meant to go, and the markers.
func (p Plan) Body() string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(p.Summary, "\n"))
	if len(p.Moved) > 0 {
		b.WriteString("\n\n**Comments on lines outside this pull request's diff**, where GitHub takes no review comment:\n")
		for _, c := range p.Moved {
			fmt.Fprintf(&b, "\n---\n\n%s, line %d (%s):\n\n%s\n", code(c.Path), c.Line, strings.ToLower(c.Side), c.text())
		}
	}
	out := strings.TrimRight(b.String(), "\n")
	b.Reset()
	b.WriteString(out + "\n\n" + tag(summaryMarker(p.Summary)))
	for _, c := range p.Moved {
		b.WriteString("\n" + tag(c.marker()))
	}
	return b.String()
}

// code is s as an inline code span that s cannot end, on one line.
func code(s string) string {
	return event.CodeSpan(strings.NewReplacer("\r", " ", "\n", " ").Replace(s))
}
