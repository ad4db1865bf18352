package triage

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Schema is the JSON Schema of a triage run's structured output.
const Schema = `{
  "type": "object",
  "required": ["issues"],
  "additionalProperties": false,
  "properties": {
    "issues": {
      "type": "array",
      "description": "One entry per issue to act on.",
      "items": {
        "type": "object",
        "required": ["issue"],
        "additionalProperties": false,
        "properties": {
          "issue": {"type": "integer", "minimum": 1, "description": "The issue's number in this repository."},
          "repository": {"type": "string", "description": "owner/name; only this run's repository is acted on."},
          "add_labels": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 50}, "uniqueItems": true},
          "remove_labels": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 50}, "uniqueItems": true},
          "comment": {"type": "string", "minLength": 1, "maxLength": 60000},
          "close": {"enum": ["completed", "not_planned"], "description": "Close the issue as completed or as not planned."}
        }
      }
    }
  }
}`

// Entry is what the agent asks for one issue.
type Entry struct {
	Issue        int      `json:"issue"`
	Repository   string   `json:"repository,omitempty"`
	AddLabels    []string `json:"add_labels,omitempty"`
	RemoveLabels []string `json:"remove_labels,omitempty"`
	Comment      string   `json:"comment,omitempty"`
	Close        string   `json:"close,omitempty"`
}

// Parse reads a triage output, already checked against Schema.
func Parse(output []byte) ([]Entry, error) {
	var out struct {
		Issues []Entry `json:"issues"`
	}
	if err := json.Unmarshal(output, &out); err != nil {
		return nil, fmt.Errorf("triage: the structured output is not a triage output: %w", err)
	}
	return out.Issues, nil
}

// Kind is what an action does.
type Kind string

// The kinds of action.
const (
	AddLabel    Kind = "add-label"
	RemoveLabel Kind = "remove-label"
	Comment     Kind = "comment"
	Close       Kind = "close"
)

// Action is one thing done to one issue: a label added or removed (Value), a comment (Value,
// its text) or a close (Value, the reason: completed or not_planned).
type Action struct {
	Issue   int    `json:"issue"`
	Kind    Kind   `json:"action"`
	Value   string `json:"value"`
	Refused string `json:"reason,omitempty"` // why it is not done; "" when planned
	Failed  string `json:"error,omitempty"`  // why GitHub did not do it, once applied
}

// Issue is what the host knows of an issue an entry names.
type Issue struct {
	Found       bool // the repository has it
	PullRequest bool
	Closed      bool
	Labels      []string
	Triaged     bool // an earlier run triaged it: its label, or a comment with its marker
	// Read says the run read it: its event's issue, or one the sandbox was shown through the
	// relay. A triage acts on those alone, so that one issue's text cannot steer the agent to
	// the others.
	Read bool
}

// Policy is what a triage run may do.
type Policy struct {
	Repository    string   // owner/name
	AllowedLabels []string // labels it may add or remove; none when empty
	MaxActions    int      // actions it may do in all
	AllowPRs      bool     // entries may name pull requests
	TriagedLabel  string   // marks an issue the run acted on; "" marks by comment only
}

// Check turns the entries into actions, in their order (labels added, removed, the comment, the
// close, entry after entry), each planned or refused: issues names what the host found of each
// issue an entry names.
func Check(entries []Entry, issues map[int]Issue, p Policy) []Action {
	var out []Action
	planned := 0
	seen := map[int]bool{}
	for _, e := range entries {
		actions := e.actions()
		why := p.refuseEntry(e, issues[e.Issue], seen[e.Issue])
		seen[e.Issue] = true
		for _, a := range actions {
			a.Refused = why
			if a.Refused == "" {
				a.Refused = p.refuseAction(&a, issues[e.Issue])
			}
			if a.Refused == "" && planned >= p.MaxActions {
				a.Refused = fmt.Sprintf("over max-actions (%d)", p.MaxActions)
			}
			if a.Refused == "" {
				planned++
			}
			out = append(out, a)
		}
	}
	return out
}

func (e Entry) actions() []Action {
	var out []Action
	for _, l := range e.AddLabels {
		out = append(out, Action{Issue: e.Issue, Kind: AddLabel, Value: l})
	}
	for _, l := range e.RemoveLabels {
		out = append(out, Action{Issue: e.Issue, Kind: RemoveLabel, Value: l})
	}
	if e.Comment != "" {
		out = append(out, Action{Issue: e.Issue, Kind: Comment, Value: e.Comment})
	}
	if e.Close != "" {
		out = append(out, Action{Issue: e.Issue, Kind: Close, Value: e.Close})
	}
	return out
}

// refuseEntry says why nothing of an entry may be done; "" when its actions may be.
func (p Policy) refuseEntry(e Entry, is Issue, again bool) string {
	switch {
	case e.Repository != "" && !strings.EqualFold(e.Repository, p.Repository):
		return fmt.Sprintf("%s is not this run's repository (%s)", e.Repository, p.Repository)
	case again:
		return fmt.Sprintf("a second entry for #%d", e.Issue)
	case !is.Found:
		return fmt.Sprintf("%s has no issue #%d", p.Repository, e.Issue)
	case is.PullRequest && !p.AllowPRs:
		return fmt.Sprintf("#%d is a pull request", e.Issue)
	case is.Triaged:
		return fmt.Sprintf("#%d was triaged already", e.Issue)
	case !is.Read:
		return fmt.Sprintf("#%d was not read by this run; a triage acts only on the issues it read (its event's, and those read from GitHub in the sandbox)", e.Issue)
	}
	return ""
}

// refuseAction says why one action of an acceptable entry may not be done. A label allowed
// takes the spelling allowed-labels gives it, so GitHub never receives the agent's.
func (p Policy) refuseAction(a *Action, is Issue) string {
	switch a.Kind {
	case AddLabel, RemoveLabel:
		i := slices.IndexFunc(p.AllowedLabels, func(l string) bool { return SameLabel(l, a.Value) })
		if i < 0 {
			if len(p.AllowedLabels) == 0 {
				return "no label is allowed (allowed-labels is empty)"
			}
			return fmt.Sprintf("label %q is not in allowed-labels", a.Value)
		}
		a.Value = p.AllowedLabels[i]
	case Close:
		if is.Closed {
			return fmt.Sprintf("#%d is closed already", a.Issue)
		}
	}
	return ""
}

// SameLabel reports whether a and b name one label as GitHub compares names: ASCII letters in
// either case, everything else byte for byte. Unicode case folding (strings.EqualFold) would
// take "queſtion", with a long s, for "question", and GitHub would make it a new label.
func SameLabel(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// Touched are the issues an action is planned for, in order, each once: those the host marks as
// triaged.
func Touched(actions []Action) []int {
	var out []int
	for _, a := range actions {
		if a.Refused == "" && !slices.Contains(out, a.Issue) {
			out = append(out, a.Issue)
		}
	}
	return out
}

// Marker is hidden in the comments a triage run writes: an issue with such a comment of ours
// was triaged.
const Marker = "sandcastle:triage"
