package inputs

import (
	_ "embed" // the built-in prompts
	"slices"
	"strconv"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// Mode names: what the mode input takes.
const (
	ModeRun       = "run"
	ModeImplement = "implement"
	ModePR        = "pr"
	ModeReview    = "review"
	ModeTriage    = "triage"
	ModePlan      = "plan"
)

// Mode is one row of the mode table: what a mode sets for the inputs a workflow leaves out, so
// that a step with only mode: and credentials does its job.
type Mode struct {
	Name string
	// Started says, for the docs, which events the mode answers.
	Started string
	// Settings are the values the mode gives inputs, in the order the docs show them, as a
	// workflow would write them. An input the workflow sets wins, unless the setting says why
	// the mode cannot work with another value.
	Settings []Setting
	// Subjects are what the mode answers: an event about anything else is skipped. None
	// answers every event.
	Subjects []event.Subject
	// NotBefore are words after a trigger phrase that ask another mode, so that this one
	// leaves the comment to it.
	NotBefore []string
	// IssueBranch names the branch after the event's issue: IssueBranch(number, title).
	IssueBranch bool
	// OnPullRequest runs on the event's pull request's own branch (GitHubConfig.OnPullRequest).
	OnPullRequest bool
	// Replies quotes the agent's answer in the progress comment (GitHubConfig.Reply).
	Replies bool
	// Prompt is the built-in prompt template, used when neither prompt nor prompt-file is set;
	// "" = none, so a prompt is required.
	Prompt string
	// Args are the values of the built-in prompt's own placeholders, made from what the run
	// was given, so that the prompt says what the run does; nil = none. prompt-args wins.
	Args func(GitHubConfig) map[string]string
}

// Setting is the value a mode gives one input.
type Setting struct {
	Input, Value string
	// Needed says why the mode cannot work with any other value; "" = the workflow may change it.
	Needed string
}

// Why the modes that read the structured output need what they set.
const (
	changesNoBranch = "it changes no branch"
)

// Modes is the mode table, in the order the docs show it.
var Modes = []Mode{
	{
		Name:    ModeRun,
		Started: "anything the workflow starts it on",
	},
	{
		Name:        ModeImplement,
		Started:     "an issue labelled `sandcastle`, or a comment with `/sandcastle` on an issue",
		Subjects:    []event.Subject{event.SubjectIssue},
		IssueBranch: true,
		Prompt:      implementPrompt,
		Settings: []Setting{
			{Input: InputBranchStrategy, Value: string(StrategyBranch)},
			{Input: InputPush, Value: string(PushAuto)},
			{Input: InputOpenPR, Value: "true"},
			{Input: InputPRDraft, Value: "true"},
			{Input: InputProgressComment, Value: "true"},
			{Input: InputTriggerLabel, Value: "sandcastle"},
			{Input: InputInProgressLabel, Value: "sandcastle:in-progress"},
			{Input: InputBlockedLabel, Value: "sandcastle:blocked"},
			{Input: InputMaxIterations, Value: "5"},
			{Input: InputOutputAction, Value: OutputActionNone, Needed: "its work is the commits and the pull request"},
		},
	},
	{
		Name:          ModePR,
		Started:       "a comment with `/sandcastle` on a pull request, or on a line of its diff (not `/sandcastle review`)",
		Subjects:      []event.Subject{event.SubjectPullRequest},
		NotBefore:     []string{ModeReview},
		OnPullRequest: true,
		Replies:       true, // its prompt asks the agent for a reply to the comment
		Prompt:        prPrompt,
		Settings: []Setting{
			{Input: InputBranchStrategy, Value: string(StrategyHead)},
			{Input: InputPush, Value: string(PushLease)},
			{Input: InputOpenPR, Value: "false"},
			{Input: InputProgressComment, Value: "true"},
			{Input: InputMaxIterations, Value: "5"},
			{Input: InputOutputAction, Value: OutputActionNone, Needed: "its work is the commits on the pull request"},
		},
	},
	{
		Name:          ModeReview,
		Started:       "a pull request opened, reopened, pushed to or marked ready, or a comment with `/sandcastle review` on one",
		Subjects:      []event.Subject{event.SubjectPullRequest},
		OnPullRequest: true,
		Prompt:        reviewPrompt,
		Settings: []Setting{
			{Input: InputBranchStrategy, Value: string(StrategyHead)},
			{Input: InputPush, Value: string(PushNone), Needed: changesNoBranch},
			{Input: InputOpenPR, Value: "false", Needed: changesNoBranch},
			{Input: InputProgressComment, Value: "false"},
			{Input: InputTriggerPhrases, Value: phrasesFollowedBy(ModeReview)},
			{Input: InputMaxIterations, Value: "1"},
			{Input: InputOutputAction, Value: OutputActionReview, Needed: "the review is what it does"},
		},
	},
	{
		Name:     ModeTriage,
		Started:  "a schedule, or a run started by hand (`workflow_dispatch`)",
		Subjects: []event.Subject{event.SubjectWorkflow},
		Prompt:   triagePrompt,
		Args:     triageArgs,
		Settings: onTheCheckout(
			Setting{Input: InputOutputAction, Value: OutputActionTriage, Needed: "carrying out the triage is what it does"},
			Setting{Input: InputAllowedLabels, Value: "bug\ndocumentation\nduplicate\nenhancement\ngood first issue\nhelp wanted\ninvalid\nquestion\nwontfix"},
		),
	},
	{
		Name:     ModePlan,
		Started:  "a schedule, or a run started by hand (`workflow_dispatch`)",
		Subjects: []event.Subject{event.SubjectWorkflow},
		Prompt:   planPrompt,
		Args:     planArgs,
		Settings: onTheCheckout(
			Setting{Input: InputOutputAction, Value: OutputActionPlan, Needed: "the list of tasks is what it makes"},
		),
	},
}

// onTheCheckout are the settings of a mode whose agent answers once, on the checkout, and changes
// no branch (triage, plan), followed by more.
func onTheCheckout(more ...Setting) []Setting {
	return append([]Setting{
		{Input: InputBranchStrategy, Value: string(StrategyHead)},
		{Input: InputPush, Value: string(PushNone), Needed: changesNoBranch},
		{Input: InputOpenPR, Value: "false", Needed: changesNoBranch},
		{Input: InputProgressComment, Value: "false"},
		{Input: InputMaxIterations, Value: "1"},
	}, more...)
}

// phrasesFollowedBy is each default trigger phrase followed by word, one per line: the phrases
// of a mode that another mode's phrases, not followed by its name, leave to it (NotBefore).
func phrasesFollowedBy(word string) string {
	var lines []string
	for _, p := range defaultTriggerPhrases() {
		lines = append(lines, p+" "+word)
	}
	return strings.Join(lines, "\n")
}

// modeNames lists the mode input's choices, in the table's order.
func modeNames() []string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = m.Name
	}
	return names
}

// LookupMode returns the row of the mode called name.
func LookupMode(name string) (Mode, bool) {
	for _, m := range Modes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// setting returns what m gives input, and whether it gives it anything.
func (m Mode) setting(input string) (Setting, bool) {
	for _, s := range m.Settings {
		if s.Input == input {
			return s, true
		}
	}
	return Setting{}, false
}

// The built-in prompt templates.
var (
	//go:embed prompts/implement.md
	implementPrompt string
	//go:embed prompts/pr.md
	prPrompt string
	//go:embed prompts/review.md
	reviewPrompt string
	//go:embed prompts/triage.md
	triagePrompt string
	//go:embed prompts/plan.md
	planPrompt string
)

// planArgs tell the plan prompt how many tasks it may give.
func planArgs(GitHubConfig) map[string]string {
	return map[string]string{"MAX_TASKS": strconv.Itoa(fanout.MaxTasks)}
}

// subjects are what the run answers: its mode's, and for a mode that names its branch after the
// event's issue, also a run started by hand or by a schedule that gives the branch and the prompt
// itself, as each job of a plan's matrix does (no stranger's event starts one of those).
func (l *loader) subjects() []event.Subject {
	_, branch := l.given(InputBranch)
	_, inline := l.given(InputPrompt)
	_, file := l.given(InputPromptFile)
	if l.mode.IssueBranch && branch && (inline || file) {
		return append(slices.Clone(l.mode.Subjects), event.SubjectWorkflow)
	}
	return l.mode.Subjects
}

// triageArgs tell the triage prompt the labels it may ask for and how an issue triaged before
// is marked.
func triageArgs(g GitHubConfig) map[string]string {
	labels := "none"
	if len(g.Triage.AllowedLabels) > 0 {
		labels = strings.Join(g.Triage.AllowedLabels, ", ")
	}
	triaged := "that an earlier triage commented on"
	if g.Triage.TriagedLabel != "" {
		triaged = "labelled " + g.Triage.TriagedLabel + ", or " + triaged
	}
	return map[string]string{"ALLOWED_LABELS": labels, "TRIAGED": triaged}
}

// modeArgs adds to c's prompt-args the values its mode's built-in prompt takes from the other
// inputs, where prompt-args gives none.
func (l *loader) modeArgs(c *Config) {
	if !c.BuiltInPrompt || l.mode.Args == nil {
		return
	}
	for k, v := range l.mode.Args(c.GitHub) {
		if _, given := c.PromptArgs[k]; !given {
			if c.PromptArgs == nil {
				c.PromptArgs = map[string]string{}
			}
			c.PromptArgs[k] = v
		}
	}
}

// IssueBranchPrefix begins the name of an implement run's branch.
const IssueBranchPrefix = "sandcastle/issue-"

// maxSlug bounds the part of a branch name taken from an issue's title.
const maxSlug = 40

// IssueBranch is the branch a mode with IssueBranch works on for issue number titled title:
// sandcastle/issue-<number>-<slug of the title>, a valid branch name whatever the title.
func IssueBranch(number int, title string) string {
	name := IssueBranchPrefix + strconv.Itoa(number)
	if slug := gitref.Slug(title, maxSlug); slug != "" {
		name += "-" + slug
	}
	return name
}

// applyMode makes the row of the mode called name the defaults of what the workflow left out.
// A value the mode cannot work with is a problem naming both, and is dropped, so that the
// checks that follow see the mode's value and do not report it again.
func (l *loader) applyMode(name string) {
	m, ok := LookupMode(name)
	if !ok {
		return // the mode input's problem says enough
	}
	l.mode = m
	for _, s := range m.Settings {
		v, given := l.given(s.Input)
		if !given || s.Needed == "" || sameValue(s.Input, v, s.Value) {
			continue
		}
		l.problem(s.Input, "mode %s needs %s, since %s, but it is %q; remove %s, or use another mode", m.Name, strconv.Quote(s.Value), s.Needed, strings.TrimSpace(v), KeyName(s.Input))
		delete(l.raw, s.Input)
	}
}

// sameValue reports whether a and b are the same value of input: booleans and numbers by what
// they mean, as Load reads them, anything else as trimmed text.
func sameValue(input, a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	d, _ := Lookup(input)
	switch d.Kind {
	case KindBool:
		x, okA := parseBool(a)
		y, okB := parseBool(b)
		return okA && okB && x == y
	case KindNumber:
		x, errA := strconv.ParseInt(a, 10, 64)
		y, errB := strconv.ParseInt(b, 10, 64)
		return errA == nil && errB == nil && x == y
	}
	return a == b
}

// issueBranch is the branch of a mode that names it after the event's issue.
func (l *loader) issueBranch() string {
	switch e := l.env.Event; {
	case e != nil && e.Issue != nil: // an issue, or a pull request through the issues API
		return IssueBranch(e.Issue.Number, e.Issue.Title)
	case l.env.EventUnread:
		// The event's own problem says enough.
	case e == nil:
		l.problem(InputBranch, "mode %s names the branch after the issue that started the run, and no event started this one (it runs outside GitHub Actions); set branch", l.mode.Name)
	case !e.About(l.mode.Subjects):
		// The run skips the event (event.Decide), and needs no branch.
	default:
		l.problem(InputBranch, "mode %s names the branch after the issue that started the run, and the %s event is about no issue; set branch, or start the run from an issue", l.mode.Name, e.Name)
	}
	return ""
}
