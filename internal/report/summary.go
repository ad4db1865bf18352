package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// maxSummaryCommits and maxSummaryOutput keep the job summary well under the runner's 1 MiB
// limit per step; the full values are in the outputs.
const (
	maxSummaryCommits = 100
	maxSummaryOutput  = 64 << 10
)

// Summary renders the job summary. Text from the agent (commit subjects, the output, branch
// and signal) is escaped or fenced so it cannot break out of the place it is shown in.
func (o Outcome) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Sandcastle: %s\n\n", inline(string(o.Status)))

	iterations := strconv.Itoa(len(o.Iterations))
	if o.MaxIterations > 0 {
		iterations += " / " + strconv.Itoa(o.MaxIterations)
	}
	b.WriteString("| | |\n| --- | --- |\n")
	if o.RefusalReason != "" {
		label := "Refused"
		if o.Status == StatusSkipped {
			label = "Skipped"
		}
		row(&b, label, cellText(o.RefusalReason))
		return b.String()
	}
	row(&b, "Iterations", iterations)
	row(&b, "Completion signal", codeOr(o.Signal, "none"))
	if v := verifyRow(o.Iterations); v != "" {
		row(&b, "Verify", v)
	}
	if o.Status == StatusBudgetExhausted && o.Failure != "" {
		row(&b, "Stopped by", cellText(o.Failure))
	}
	row(&b, "Branch", codeOr(o.Branch, "none"))
	row(&b, "Commits", strconv.Itoa(len(o.Commits)))
	if o.Pushed {
		row(&b, "Pushed", "yes")
	}
	if o.RecoveryBranch != "" {
		row(&b, "Recovery branch", code(o.RecoveryBranch))
	}
	if o.PRURL != "" {
		row(&b, "Pull request", link("#"+strconv.Itoa(o.PRNumber), o.PRURL))
	}
	if o.CommentURL != "" {
		row(&b, "Comment", link("progress comment", o.CommentURL))
	}
	if o.LogFile != "" {
		row(&b, "Log file", code(o.LogFile))
	}
	if o.Review != nil {
		row(&b, "Review", o.Review.row())
	}
	if o.GitGuarded {
		state := "as it was"
		if n := len(o.RestoredGit); n > 0 {
			state = fmt.Sprintf("**put back**: the agent changed %d path(s)", n)
		}
		row(&b, "Git directory", state)
	}

	if len(o.Commits) > 0 {
		b.WriteString("\n### Commits\n\n")
		for i, c := range o.Commits {
			if i == maxSummaryCommits {
				fmt.Fprintf(&b, "- ... and %d more\n", len(o.Commits)-i)
				break
			}
			fmt.Fprintf(&b, "- %s %s\n", code(gitref.ShortSHA(c.SHA)), inline(c.Subject))
		}
	}

	if len(o.Iterations) > 0 {
		b.WriteString("\n### Usage\n\n")
		b.WriteString("| Iteration | Signal | Input tokens | Output tokens | Cache read | Cache write | Cost (USD) |\n")
		b.WriteString("| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n")
		var total agent.Usage
		costs := true // every iteration reported its cost
		for _, it := range o.Iterations {
			usageRow(&b, strconv.Itoa(it.Number), codeOr(it.Signal, ""), it.Usage, costKnown(it.Usage))
			total.Add(it.Usage)
			costs = costs && costKnown(it.Usage)
		}
		usageRow(&b, "**Total**", "", total, costs)
	}

	if len(o.Actions) > 0 {
		triageTable(&b, o.Actions)
	}

	if o.Plan != nil {
		fmt.Fprintf(&b, "\n### Plan %s: %d task(s)\n\n", code(o.Plan.ID), len(o.Plan.Tasks))
		for _, t := range o.Plan.Tasks {
			fmt.Fprintf(&b, "- %s %s\n", code(fanout.Branch(o.Plan.ID, t.ID)), inline(t.Title))
		}
	}

	if o.Output != nil {
		b.WriteString("\n### Output\n\n")
		b.WriteString(fenced(prettyJSON(string(o.Output.JSON)), "json"))
	}

	if o.PreservedWorktree != "" {
		fmt.Fprintf(&b, "\n> **Uncommitted work was preserved** in the worktree %s.\n", code(o.PreservedWorktree))
	}
	if len(o.RestoredGit) > 0 {
		paths := make([]string, len(o.RestoredGit))
		for i, p := range o.RestoredGit {
			paths[i] = code(p)
		}
		fmt.Fprintf(&b, "\n> **The agent changed the repository's git directory**, where git on the runner finds its hooks, config and attributes; the run put back %s.\n", strings.Join(paths, ", "))
	}
	return b.String()
}

// verifyRow is how verify-command ended after each iteration it ran after: "1 failed, 2 passed";
// "" when it never ran.
func verifyRow(its []Iteration) string {
	var ends []string
	for _, it := range its {
		if it.Verify != VerifyNone {
			ends = append(ends, fmt.Sprintf("%d %s", it.Number, it.Verify))
		}
	}
	return strings.Join(ends, ", ")
}

func row(b *strings.Builder, key, value string) {
	fmt.Fprintf(b, "| %s | %s |\n", key, cell(value))
}

func usageRow(b *strings.Builder, label, signal string, it agent.Usage, known bool) {
	cost := formatCost(it.CostUSD, known)
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
func code(s string) string { return event.CodeSpan(oneLine(s)) }

func codeOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return code(s)
}

// fenced writes s as a fenced code block whose fence is longer than any backtick run in s.
func fenced(s, info string) string {
	fence := event.Fence(s)
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
