package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// Review is the pull request review a review run posted.
type Review struct {
	PR       int
	URL      string // "" when nothing new was posted
	Inline   int    // comments on their lines
	Moved    int    // comments outside the diff, in the body
	Repeated int    // made by an earlier run, left out
}

// actionsJSON is the actions output: a JSON object of what a triage run applied and what it
// refused or failed to do, each [] when empty.
func actionsJSON(o Outcome) string {
	lists := struct {
		Applied []triage.Action `json:"applied"`
		Refused []triage.Action `json:"refused"`
	}{Applied: []triage.Action{}, Refused: []triage.Action{}}
	for _, a := range o.Actions {
		if a.Refused == "" && a.Failed == "" {
			lists.Applied = append(lists.Applied, a)
		} else {
			lists.Refused = append(lists.Refused, a)
		}
	}
	b, _ := json.Marshal(lists) // actions are strings and numbers, which always encode
	return string(b)
}

// reviewRow is the summary's row of the review.
func (r *Review) row() string {
	var parts []string
	if r.URL != "" {
		parts = append(parts, link(fmt.Sprintf("posted on #%d", r.PR), r.URL))
	} else {
		parts = append(parts, fmt.Sprintf("nothing new for #%d", r.PR))
	}
	parts = append(parts, fmt.Sprintf("%d on their lines, %d in the body (outside the diff), %d made before", r.Inline, r.Moved, r.Repeated))
	return strings.Join(parts, "; ")
}

// triageTable is the summary's table of a triage run's actions: what was done, refused or
// failed, and why. The agent's values are its text: escaped, clipped.
func triageTable(b *strings.Builder, actions []triage.Action) {
	b.WriteString("\n### Triage\n\n| Issue | Action | Value | Result |\n| ---: | --- | --- | --- |\n")
	for _, a := range actions {
		result := "done"
		switch {
		case a.Refused != "":
			result = "**refused**: " + cellText(a.Refused)
		case a.Failed != "":
			result = "**failed**: " + cellText(a.Failed)
		}
		value := a.Value
		if r := []rune(value); len(r) > 60 {
			value = string(r[:60]) + "…"
		}
		fmt.Fprintf(b, "| #%d | %s | %s | %s |\n", a.Issue, a.Kind, cell(cellText(value)), cell(result))
	}
}
