package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// maxSummaryCommits and maxSummaryOutput keep the job summary well under the runner's 1 MiB
// limit per step; the full values are in the outputs.
const (
	maxSummaryCommits = 100
	maxSummaryOutput  = 64 << 10
)

// Run is what the job summary shows.
type Run struct {
	Status            string
	Branch            string
	Signal            string // the completion signal that ended the run; "" when none
	Iterations        []Iteration
	MaxIterations     int
	Commits           []gitref.Commit // oldest first
	Output            string          // the structured output as JSON; "" when none
	PreservedWorktree string
	LogFile           string
	RefusalReason     string // why the run did not start (status refused or skipped); "" when it did
	Pushed            bool
	RecoveryBranch    string
	PRNumber          int
	PRURL             string
	CommentURL        string
	// GitGuarded says the repository's git directory was kept from the agent (a Docker
	// sandbox); GitRestored lists what the agent changed in it and the run put back.
	GitGuarded  bool
	GitRestored []string
}

// Iteration is one agent invocation's usage.
type Iteration struct {
	Number              int
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
	CostKnown           bool
	Signal              string // the completion signal seen in this iteration; "" when none
}

// Summary renders the job summary. Text from the agent (commit subjects, the output, branch
// and signal) is escaped or fenced so it cannot break out of the place it is shown in.
func Summary(s Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Sandcastle: %s\n\n", inline(s.Status))

	iterations := strconv.Itoa(len(s.Iterations))
	if s.MaxIterations > 0 {
		iterations += " / " + strconv.Itoa(s.MaxIterations)
	}
	b.WriteString("| | |\n| --- | --- |\n")
	if s.RefusalReason != "" {
		label := "Refused"
		if s.Status == "skipped" {
			label = "Skipped"
		}
		row(&b, label, cellText(s.RefusalReason))
		return b.String()
	}
	row(&b, "Iterations", iterations)
	row(&b, "Completion signal", codeOr(s.Signal, "none"))
	row(&b, "Branch", codeOr(s.Branch, "none"))
	row(&b, "Commits", strconv.Itoa(len(s.Commits)))
	if s.Pushed {
		row(&b, "Pushed", "yes")
	}
	if s.RecoveryBranch != "" {
		row(&b, "Recovery branch", code(s.RecoveryBranch))
	}
	if s.PRURL != "" {
		row(&b, "Pull request", link("#"+strconv.Itoa(s.PRNumber), s.PRURL))
	}
	if s.CommentURL != "" {
		row(&b, "Comment", link("progress comment", s.CommentURL))
	}
	if s.LogFile != "" {
		row(&b, "Log file", code(s.LogFile))
	}
	if s.GitGuarded {
		state := "as it was"
		if n := len(s.GitRestored); n > 0 {
			state = fmt.Sprintf("**put back**: the agent changed %d path(s)", n)
		}
		row(&b, "Git directory", state)
	}

	if len(s.Commits) > 0 {
		b.WriteString("\n### Commits\n\n")
		for i, c := range s.Commits {
			if i == maxSummaryCommits {
				fmt.Fprintf(&b, "- ... and %d more\n", len(s.Commits)-i)
				break
			}
			fmt.Fprintf(&b, "- %s %s\n", code(gitref.ShortSHA(c.SHA)), inline(c.Subject))
		}
	}

	if len(s.Iterations) > 0 {
		b.WriteString("\n### Usage\n\n")
		b.WriteString("| Iteration | Signal | Input tokens | Output tokens | Cache read | Cache write | Cost (USD) |\n")
		b.WriteString("| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n")
		var total Iteration
		total.CostKnown = true
		for _, it := range s.Iterations {
			usageRow(&b, strconv.Itoa(it.Number), codeOr(it.Signal, ""), it)
			total.InputTokens += it.InputTokens
			total.OutputTokens += it.OutputTokens
			total.CacheReadTokens += it.CacheReadTokens
			total.CacheCreationTokens += it.CacheCreationTokens
			total.CostUSD += it.CostUSD
			total.CostKnown = total.CostKnown && it.CostKnown
		}
		usageRow(&b, "**Total**", "", total)
	}

	if s.Output != "" {
		b.WriteString("\n### Output\n\n")
		b.WriteString(fenced(prettyJSON(s.Output), "json"))
	}

	if s.PreservedWorktree != "" {
		fmt.Fprintf(&b, "\n> **Uncommitted work was preserved** in the worktree %s.\n", code(s.PreservedWorktree))
	}
	if len(s.GitRestored) > 0 {
		paths := make([]string, len(s.GitRestored))
		for i, p := range s.GitRestored {
			paths[i] = code(p)
		}
		fmt.Fprintf(&b, "\n> **The agent changed the repository's git directory**, where git on the runner finds its hooks, config and attributes; the run put back %s.\n", strings.Join(paths, ", "))
	}
	return b.String()
}

func row(b *strings.Builder, key, value string) {
	fmt.Fprintf(b, "| %s | %s |\n", key, cell(value))
}

func usageRow(b *strings.Builder, label, signal string, it Iteration) {
	cost := formatCost(it.CostUSD, it.CostKnown)
	if cost == "" {
		cost = "unknown"
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", label, cell(signal),
		thousands(it.InputTokens), thousands(it.OutputTokens),
		thousands(it.CacheReadTokens), thousands(it.CacheCreationTokens), cost)
}

// cell makes s safe inside a table cell: a pipe would end the cell (GFM honours \| even in
// code spans) and a newline the row.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

// inline escapes s as literal inline text in the middle of a line: the characters that open
// emphasis, code, links, images, HTML and entities, or end a table cell, are backslash-escaped.
func inline(s string) string { return escape(s, "\\`*_[]<>|~&!") }

// cellText is inline text for a table cell, whose pipes cell escapes.
func cellText(s string) string { return escape(s, "\\`*_[]<>~&!") }

func escape(s, special string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// code writes s as a code span, with a backtick run longer than any inside s.
func code(s string) string {
	s = oneLine(s)
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " " // CommonMark strips one space each side, keeping s intact
	}
	return ticks + s + ticks
}

func codeOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return code(s)
}

// fenced writes s as a fenced code block whose fence is longer than any backtick run in s.
func fenced(s, info string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + info + "\n" + strings.TrimSuffix(s, "\n") + "\n" + fence + "\n"
}

// prettyJSON indents valid JSON and bounds its size; anything else is shown as is.
func prettyJSON(s string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err == nil {
		s = buf.String()
	}
	if len(s) > maxSummaryOutput {
		cut := maxSummaryOutput
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n... (truncated; the output step output has it all)"
	}
	return s
}

// oneLine folds s onto one line, collapsing white space as Markdown would anyway.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := range len(s) {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// thousands writes n with comma separators: 1234567 → 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// link is a markdown link to url, shown as text; a URL that is not http(s) is shown as code.
func link(text, url string) string {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") || strings.ContainsAny(url, " ()<>\n") {
		return code(url)
	}
	return "[" + cellText(text) + "](" + url + ")"
}
