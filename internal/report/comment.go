package report

import (
	"fmt"
	"strings"
)

// comment is what the progress comment on the triggering issue or pull request shows.
type comment struct {
	phase         phase
	iteration     int
	maxIterations int
	lastTool      string // the latest tool call, as the log shows it; agent text
	commits       int
	status        Status // once the run ended
	reason        string // why the run failed or was refused
	branch        string
	branchURL     string // branch's page: a branch of this repository in place of the pull request's
	pushed        bool
	recovery      string // the remote branch that took the commits instead of branch; reason says why
	kept          bool   // branch is the local branch that holds the commits after a failed merge
	prNumber      int
	prURL         string
	prNote        string // said of the pull request after its link: why it is not a draft, whose it is
	runURL        string // the workflow run, for the logs
	answer        string // the agent's answer to the comment that started the run; agent text
}

// phase is where a run is, as its comment tells it.
type phase int

const (
	phaseWorking phase = iota
	phaseDone
	phaseFailed
	phaseRefused
)

// Comment renders the progress comment of a run that still works. Agent text (the tool call)
// is shown as code, so it can neither format the comment nor mention anyone.
func (p Progress) Comment() string {
	return comment{phase: phaseWorking, iteration: p.Iteration, maxIterations: p.MaxIterations,
		commits: p.Commits, lastTool: p.LastTool, runURL: p.RunURL}.body()
}

// Comment renders the progress comment once the run has ended, or the answer to a refused
// event.
func (o Outcome) Comment() string { return o.comment().body() }

// Reply renders the progress comment of a run that answers the comment which started it (mode
// pr): Comment, with the agent's answer (Final) quoted below its first line.
func (o Outcome) Reply() string {
	c := o.comment()
	c.answer = o.Final
	return c.body()
}

func (o Outcome) comment() comment {
	c := comment{phase: phaseDone, iteration: len(o.Iterations), maxIterations: o.MaxIterations,
		commits: len(o.Commits), status: o.Status, branch: o.Branch, branchURL: o.BranchURL, pushed: o.Pushed,
		recovery: o.RecoveryBranch, kept: o.Kept, prNumber: o.PRNumber, prURL: o.PRURL,
		prNote: o.PRNote, runURL: o.RunURL}
	switch {
	case o.Status == StatusRefused || o.Status == StatusSkipped:
		c.phase, c.reason = phaseRefused, o.RefusalReason
	case o.Failure != "":
		c.phase, c.reason = phaseFailed, o.Failure
	}
	return c
}

// body renders c as markdown.
func (c comment) body() string {
	var b strings.Builder
	switch c.phase {
	case phaseRefused:
		fmt.Fprintf(&b, "**Sandcastle** did not run: %s\n", inline(c.reason))
	case phaseFailed:
		// The reason may quote the agent (its final message), so it is code: no mention in it
		// notifies anyone.
		fmt.Fprintf(&b, "**Sandcastle** stopped: %s.\n\n> %s\n", inline(string(c.status)), code(c.reason))
	case phaseDone:
		fmt.Fprintf(&b, "**Sandcastle** finished: %s after %s.\n", inline(string(c.status)), iterations(c.iteration))
	default:
		if c.iteration == 0 {
			b.WriteString("**Sandcastle** is starting.\n")
		} else {
			fmt.Fprintf(&b, "**Sandcastle** is working: iteration %d of %d.\n", c.iteration, c.maxIterations)
		}
		if c.lastTool != "" {
			fmt.Fprintf(&b, "\nLast tool call: %s\n", code(c.lastTool))
		}
	}
	if c.phase != phaseRefused && strings.TrimSpace(c.answer) != "" {
		b.WriteString("\n" + quote(c.answer))
	}
	if c.phase != phaseRefused {
		var items []string
		if c.commits > 0 {
			what := fmt.Sprintf("%d commit%s", c.commits, plural(c.commits))
			switch {
			case c.recovery != "":
				what += " pushed to the recovery branch " + code(c.recovery) + " instead of " + code(c.branch)
			case c.branchURL != "":
				what += " pushed to " + link(c.branch, c.branchURL) + ", a branch of this repository: the pull request's own branch is never pushed to"
			case c.pushed:
				what += " pushed to " + code(c.branch)
			case c.kept:
				what += " kept on the branch " + code(c.branch) + " of the runner"
			case c.branch != "" && c.phase != phaseWorking:
				what += " on " + code(c.branch) + ", not pushed"
			}
			items = append(items, what)
		} else if c.phase != phaseWorking {
			items = append(items, "no commits")
		}
		if c.prURL != "" {
			pr := "pull request " + link(fmt.Sprintf("#%d", c.prNumber), c.prURL)
			if c.prNote != "" {
				pr += ", " + inline(c.prNote)
			}
			items = append(items, pr)
		}
		if len(items) > 0 {
			b.WriteString("\n")
			for _, it := range items {
				b.WriteString("- " + it + "\n")
			}
		}
	}
	if c.runURL != "" {
		b.WriteString("\n" + link("Workflow run", c.runURL) + "\n")
	}
	return b.String()
}

func iterations(n int) string {
	return fmt.Sprintf("%d iteration%s", n, plural(n))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// lineEnd is what CommonMark ends a line at.
var lineEnd = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// quote makes s, Markdown of the agent's, a block quote of its own: every line of it is
// quoted, so none can end the quote and go on as the comment's own text (a list item, a
// heading), and a fence or an HTML block it opens ends with the quote. What it mentions or
// references the gate makes code (githubapi.Gate).
func quote(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.Trim(strings.TrimRight(lineEnd.Replace(s), " \t\n"), "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + l + "\n")
		}
	}
	return b.String()
}
