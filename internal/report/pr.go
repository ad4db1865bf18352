package report

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
)

// maxPRTitle is GitHub's limit on a pull request title, in characters.
const maxPRTitle = 256

// PRTemplates are the pr-title and pr-body inputs: {{KEY}} templates, "" for the built-in ones.
type PRTemplates struct {
	Title, Body string
}

// PRTemplateError is a template with placeholders no value fills. The caller names the input.
type PRTemplateError struct {
	Body    bool // the body's template; else the title's
	Missing *prompt.MissingKeysError
	Known   []string // the keys a template may use, sorted
}

func (e *PRTemplateError) Error() string {
	return fmt.Sprintf("%v; use the keys %s", e.Missing, strings.Join(e.Known, ", "))
}

func (e *PRTemplateError) Unwrap() error { return e.Missing }

// CheckPRTemplates checks, before the run, that every placeholder of t names a key the
// templates will have: one of event, the event's built-ins, or one the run sets.
func CheckPRTemplates(t PRTemplates, event map[string]string) error {
	_, _, err := t.render(Outcome{}.prValues("", event), "")
	return err
}

// PR renders the title and body of the pull request that merges o's branch into base, from t
// or the built-in templates, with the event's built-ins and the run's keys: BRANCH, BASE,
// COMMITS (a Markdown list), COMMIT_COUNT, SUMMARY (the agent's final message), OUTPUT (the
// structured output) and STATUS. Commands are never run: a !`cmd` block stays text. The title
// is one line of at most 256 characters. Its error is a *PRTemplateError.
func (o Outcome) PR(t PRTemplates, base string, event map[string]string) (title, body string, err error) {
	onlySubject := ""
	if len(o.Commits) == 1 {
		onlySubject = o.Commits[0].Subject
	}
	return t.render(o.prValues(base, event), onlySubject)
}

// prValues are the values of the keys pr-title and pr-body may use.
func (o Outcome) prValues(base string, event map[string]string) map[string]string {
	vals := maps.Clone(event)
	if vals == nil {
		vals = map[string]string{}
	}
	var commits strings.Builder
	for _, c := range o.Commits {
		fmt.Fprintf(&commits, "- %s %s\n", gitref.ShortSHA(c.SHA), c.Subject)
	}
	output := ""
	if o.Output != nil {
		output = o.Output.Text
	}
	for k, v := range map[string]string{
		"BRANCH":       o.Branch,
		"BASE":         base,
		"COMMITS":      strings.TrimRight(commits.String(), "\n"),
		"COMMIT_COUNT": strconv.Itoa(len(o.Commits)),
		"SUMMARY":      o.Final,
		"OUTPUT":       output,
		"STATUS":       string(o.Status),
	} {
		vals[k] = v
	}
	return vals
}

// render fills the templates, or the built-in ones. onlySubject is the subject of the run's
// one commit, "" unless it made exactly one: the default title without an issue.
func (t PRTemplates) render(vals map[string]string, onlySubject string) (title, body string, err error) {
	title, body = defaultPRTitle(vals, onlySubject), defaultPRBody(vals)
	if t.Title != "" {
		if title, err = fill(t.Title, vals, false); err != nil {
			return "", "", err
		}
	}
	if t.Body != "" {
		if body, err = fill(t.Body, vals, true); err != nil {
			return "", "", err
		}
	}
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) > maxPRTitle {
		title = string([]rune(title)[:maxPRTitle-1]) + "…"
	}
	if title == "" {
		title = "Sandcastle: " + vals["BRANCH"]
	}
	return title, body, nil
}

func fill(text string, vals map[string]string, isBody bool) (string, error) {
	out, err := prompt.Fill(text, vals)
	var mk *prompt.MissingKeysError
	if errors.As(err, &mk) {
		return "", &PRTemplateError{Body: isBody, Missing: mk, Known: slices.Sorted(maps.Keys(vals))}
	}
	return out, err
}

func defaultPRTitle(vals map[string]string, onlySubject string) string {
	if n, ok := vals["ISSUE_NUMBER"]; ok && vals["PR_NUMBER"] == "" {
		return "Fix #" + n + ": " + vals["ISSUE_TITLE"]
	}
	if onlySubject != "" {
		return onlySubject
	}
	return "Sandcastle: " + vals["BRANCH"]
}

func defaultPRBody(vals map[string]string) string {
	var b strings.Builder
	if n, ok := vals["ISSUE_NUMBER"]; ok && vals["PR_NUMBER"] == "" {
		fmt.Fprintf(&b, "Closes #%s\n\n", n)
	}
	if s := vals["SUMMARY"]; s != "" {
		b.WriteString(s + "\n\n")
	}
	if c := vals["COMMITS"]; c != "" {
		b.WriteString("### Commits\n\n" + c + "\n\n")
	}
	b.WriteString("_Opened by Sandcastle._")
	return b.String()
}
