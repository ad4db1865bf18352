package report

import (
	"fmt"
	"strings"
)

// Comment is what the progress comment on the triggering issue or pull request shows.
type Comment struct {
	// Phase is "working" while the run goes, then "done", "failed" or "refused".
	Phase         string
	Iteration     int
	MaxIterations int
	LastTool      string // the latest tool call, as the log shows it; agent text
	Commits       int
	Status        string // the status output, once the run ended
	Reason        string // why the run failed or was refused
	Branch        string
	Pushed        bool
	Recovery      string // the remote branch that took the commits instead of Branch; Reason says why
	KeptBranch    string // the local branch that holds the commits after a failed merge
	PRNumber      int
	PRURL         string
	PRNote        string // said of the pull request after its link: why it is not a draft, whose it is
	RunURL        string // the workflow run, for the logs
}

// Comment phases.
const (
	PhaseWorking = "working"
	PhaseDone    = "done"
	PhaseFailed  = "failed"
	PhaseRefused = "refused"
)

// CommentBody renders c as markdown. Agent text (the tool call) is shown as code, so it can
// neither format the comment nor mention anyone.
func CommentBody(c Comment) string {
	var b strings.Builder
	switch c.Phase {
	case PhaseRefused:
		fmt.Fprintf(&b, "**Sandcastle** did not run: %s\n", inline(c.Reason))
	case PhaseFailed:
		fmt.Fprintf(&b, "**Sandcastle** stopped: %s.\n\n> %s\n", inline(c.Status), inline(c.Reason))
	case PhaseDone:
		fmt.Fprintf(&b, "**Sandcastle** finished: %s after %s.\n", inline(c.Status), iterations(c.Iteration))
	default:
		if c.Iteration == 0 {
			b.WriteString("**Sandcastle** is starting.\n")
		} else {
			fmt.Fprintf(&b, "**Sandcastle** is working: iteration %d of %d.\n", c.Iteration, c.MaxIterations)
		}
		if c.LastTool != "" {
			fmt.Fprintf(&b, "\nLast tool call: %s\n", code(c.LastTool))
		}
	}
	if c.Phase != PhaseRefused {
		var items []string
		if c.Commits > 0 {
			what := fmt.Sprintf("%d commit%s", c.Commits, plural(c.Commits))
			switch {
			case c.Recovery != "":
				what += " pushed to the recovery branch " + code(c.Recovery) + " instead of " + code(c.Branch)
			case c.Pushed:
				what += " pushed to " + code(c.Branch)
			case c.KeptBranch != "":
				what += " kept on the branch " + code(c.KeptBranch) + " of the runner"
			case c.Branch != "" && c.Phase != PhaseWorking:
				what += " on " + code(c.Branch) + ", not pushed"
			}
			items = append(items, what)
		} else if c.Phase != PhaseWorking {
			items = append(items, "no commits")
		}
		if c.PRURL != "" {
			pr := "pull request " + link(fmt.Sprintf("#%d", c.PRNumber), c.PRURL)
			if c.PRNote != "" {
				pr += ", " + inline(c.PRNote)
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
	if c.RunURL != "" {
		b.WriteString("\n" + link("Workflow run", c.RunURL) + "\n")
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
