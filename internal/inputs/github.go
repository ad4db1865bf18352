package inputs

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// defaultTriggerPhrases are the phrases that start a run when trigger-phrases is empty; this is
// their one home.
func defaultTriggerPhrases() []string { return []string{"/sandcastle", "@sandcastle"} }

// Limits GitHub sets, checked here so a typo fails before the run instead of at its end.
const (
	maxTriggerPhrase = 100 // characters; longer is surely a pasted paragraph, not a phrase
	maxLabel         = 50  // characters in a GitHub label name
)

var (
	// loginRe is a GitHub login: letters, digits and hyphens, up to 39, not starting with a
	// hyphen. Old accounts may have double or trailing hyphens, so those are allowed.
	loginRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}$`)
	// botRe is a bot's login: an App's slug, with or without the "[bot]" suffix GitHub shows.
	botRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\[bot\])?$`)
)

// github reads the inputs of the GitHub side. strategy is "" when branch-strategy is invalid.
func (l *loader) github(strategy BranchStrategy) GitHubConfig {
	openPR, openPROK := l.flag(InputOpenPR)
	draft, draftOK := l.flag(InputPRDraft)
	g := GitHubConfig{
		Token:            l.token(),
		Push:             PushMode(l.choice(InputPush)),
		OpenPR:           openPR,
		PRDraft:          draft,
		PRBase:           l.prBase(),
		PRTitle:          l.single(InputPRTitle),
		ProgressComment:  l.boolean(InputProgressComment),
		TriggerPhrases:   l.triggerPhrases(),
		TriggerLabel:     l.label(InputTriggerLabel),
		InProgressLabel:  l.label(InputInProgressLabel),
		BlockedLabel:     l.label(InputBlockedLabel),
		AllowedUsers:     l.logins(InputAllowedUsers, false),
		AllowedBots:      l.logins(InputAllowedBots, true),
		RefuseIfOpenPR:   l.boolean(InputRefuseIfOpenPR),
		AllowForks:       l.boolean(InputAllowForks),
		OutputAction:     l.choice(InputOutputAction),
		OnPullRequest:    l.mode.OnPullRequest,
		Reply:            l.mode.Replies,
		Subjects:         l.subjects(),
		TriggerNotBefore: l.mode.NotBefore,
		Relay:            l.boolean(InputGitHubRelay),
	}
	// "*" among the bots lets any bot start runs.
	if i := slices.Index(g.AllowedBots, anyBot); i >= 0 {
		g.AllowBots, g.AllowedBots = true, slices.Delete(g.AllowedBots, i, i+1)
	}
	g.Triage = l.triage(g.OutputAction)
	// The body is Markdown: its blank lines and indentation are kept as given.
	g.PRBody, _ = l.given(InputPRBody)
	l.distinctLabels(g)

	switch {
	case !openPROK:
		// The open-pr problem says enough; what depends on it cannot be judged.
	case openPR:
		if g.Push == PushNone {
			l.problem(InputOpenPR, "push is none, but a pull request needs the branch on GitHub; set push to auto, force or lease, or remove open-pr")
		}
		if strategy == StrategyHead && g.Push == PushAuto {
			l.problem(InputOpenPR, "push auto pushes only branch-strategy branch, so with branch-strategy head no branch would reach GitHub for a pull request; set push to lease (or force), or use branch-strategy branch")
		}
		if strategy == StrategyMergeToHead {
			l.problem(InputOpenPR, "branch-strategy merge-to-head merges its branch into the current one and deletes it, so no branch is left for a pull request; use branch-strategy branch, or remove open-pr")
		}
	default:
		for _, name := range []string{InputPRBase, InputPRTitle, InputPRBody} {
			if _, given := l.given(name); given {
				l.problem(name, "is used only with open-pr: true; set open-pr: true or remove %s", name)
			}
		}
		// pr-draft is true by default; only a changed value shows an intent that open-pr lacks.
		if draftOK && !draft {
			l.problem(InputPRDraft, "is used only with open-pr: true; set open-pr: true or remove pr-draft")
		}
	}
	return g
}

// token reads github-token. Its value is a secret, so no message repeats it, not even in part.
func (l *loader) token() string {
	v := strings.TrimSpace(l.text(InputGitHubToken))
	if strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		l.problem(InputGitHubToken, "the value holds a space or line break (not shown, since it is a secret); give the token alone, on one line")
		return ""
	}
	return v
}

func (l *loader) prBase() string {
	v := l.single(InputPRBase)
	if v == "" {
		return ""
	}
	if err := gitref.Check(v); err != nil {
		l.problem(InputPRBase, "%v; give the name of the branch the pull request merges into, like main", err)
		return ""
	}
	return v
}

// triggerPhrases returns the phrases of trigger-phrases without case-insensitive repeats (the
// match ignores case), or the defaults when none are given.
func (l *loader) triggerPhrases() []string {
	var out []string
	for _, p := range l.list(InputTriggerPhrases) {
		switch {
		case strings.ContainsAny(p, "\r\n"):
			// list splits on \n, so only a lone \r can be left inside a phrase.
			l.problem(InputTriggerPhrases, "%q holds a line break; give one phrase per line", p)
		case utf8.RuneCountInString(p) > maxTriggerPhrase:
			l.problem(InputTriggerPhrases, "%q is %d characters long; use at most %d", abbreviate(p), utf8.RuneCountInString(p), maxTriggerPhrase)
		case !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, p) }):
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return defaultTriggerPhrases()
	}
	return out
}

// label reads a label input; "" means the state is off.
func (l *loader) label(name string) string {
	v := l.single(name)
	switch {
	case strings.Contains(v, ","):
		// The label API takes comma-separated lists in places, so a comma would split it.
		l.problem(name, "%q holds a comma; give one label name without commas, or leave it empty", v)
	case utf8.RuneCountInString(v) > maxLabel:
		l.problem(name, "%q is %d characters long; GitHub labels have at most %d", v, utf8.RuneCountInString(v), maxLabel)
	default:
		return v
	}
	return ""
}

// distinctLabels refuses one label for two states: a blocked label equal to the trigger label
// would start a new run after every failure, and the in-progress label would be removed by the
// very run it marks. GitHub compares label names without regard to case, and so does this.
func (l *loader) distinctLabels(g GitHubConfig) {
	same := func(a, b string) bool { return a != "" && strings.EqualFold(a, b) }
	if same(g.InProgressLabel, g.TriggerLabel) {
		l.problem(InputInProgressLabel, "%q is also trigger-label; use a different label, or leave it empty for none", g.InProgressLabel)
	}
	if same(g.BlockedLabel, g.TriggerLabel) {
		l.problem(InputBlockedLabel, "%q is also trigger-label, so every failed run would start another; use a different label, or leave it empty for none", g.BlockedLabel)
	}
	if same(g.BlockedLabel, g.InProgressLabel) {
		l.problem(InputBlockedLabel, "%q is also in-progress-label; use a different label, or leave it empty for none", g.BlockedLabel)
	}
}

// logins reads a list of GitHub logins, one per line or separated by commas, without
// case-insensitive repeats (GitHub logins ignore case). bots allows the "[bot]" suffix.
func (l *loader) logins(name string, bots bool) []string {
	var out []string
	for _, line := range l.list(name) {
		for _, login := range strings.Split(line, ",") {
			login = strings.TrimSpace(login)
			switch {
			case login == "" || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, login) }):
			case bots && login == anyBot:
				out = append(out, login)
			case bots && !botRe.MatchString(login):
				l.problem(name, "%q is not a bot's login; use letters, digits and -, up to 39, optionally followed by [bot], like dependabot[bot]", login)
			case !bots && strings.HasSuffix(login, "[bot]"):
				l.problem(name, "%q is a bot; list it in allowed-bots instead", login)
			case !bots && !loginRe.MatchString(login):
				l.problem(name, "%q is not a GitHub login; use letters, digits and -, up to 39, not starting with -", login)
			default:
				out = append(out, login)
			}
		}
	}
	return out
}

// anyBot in allowed-bots lets any bot start runs.
const anyBot = "*"

// abbreviate shortens a long value for a message: its first 40 characters and "...".
func abbreviate(s string) string {
	const keep = 40
	if utf8.RuneCountInString(s) <= keep {
		return s
	}
	return string([]rune(s)[:keep]) + "..."
}

// triage reads the inputs of a triage run, which no other run may set.
func (l *loader) triage(action string) TriageConfig {
	t := TriageConfig{
		MaxActions:   int(l.number(InputMaxActions, 1, 1000)),
		TriagedLabel: l.label(InputTriagedLabel),
		PullRequests: l.boolean(InputTriagePullRequests),
	}
	for _, v := range l.list(InputAllowedLabels) {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "":
			case utf8.RuneCountInString(name) > maxLabel:
				l.problem(InputAllowedLabels, "%q is %d characters long; GitHub labels have at most %d", name, utf8.RuneCountInString(name), maxLabel)
			case !slices.ContainsFunc(t.AllowedLabels, func(o string) bool { return strings.EqualFold(o, name) }):
				t.AllowedLabels = append(t.AllowedLabels, name)
			}
		}
	}
	if action == OutputActionTriage {
		return t
	}
	for _, name := range []string{InputAllowedLabels, InputMaxActions, InputTriagedLabel, InputTriagePullRequests} {
		if v, given := l.given(name); given && v != defaultOf(name) {
			l.problem(name, "is used only with output-action triage; set output-action: triage or remove %s", KeyName(name))
		}
	}
	return TriageConfig{}
}
