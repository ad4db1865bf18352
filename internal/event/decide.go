package event

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Policy is who and what may start a run.
type Policy struct {
	// Subjects are what the run answers (the mode's); an event about anything else is skipped.
	// None answers every event.
	Subjects []Subject
	// TriggerPhrases are matched case-insensitively in comment bodies, as whole words, outside
	// quoted lines and hidden text. The caller supplies them (the trigger-phrases input, with
	// its defaults); with none, no comment starts a run.
	TriggerPhrases []string
	// NotBefore are words that make a trigger phrase right before them no trigger, since they
	// ask another mode: the pr mode leaves "/sandcastle review" to the review mode.
	NotBefore []string
	// TriggerLabel is the only label whose labeled event starts a run; "" lets any label.
	TriggerLabel string
	// AllowedUsers may trigger without write permission. Logins match case-insensitively.
	AllowedUsers []string
	// AllowedBots are bots trusted to trigger, with or without the "[bot]" suffix; they need no
	// permission look-up.
	AllowedBots []string
	// AllowBots lets any bot start runs. A bot is a GitHub App's (or GitHub's own), and an App is
	// installed on a repository, never a collaborator of it: no permission look-up can speak for
	// it. That it acted on the repository at all shows it is installed there with the permission
	// it used, so AllowBots admits it on that, without a look-up.
	AllowBots bool
	// RefuseIfLinkedPR refuses an issue that already has an open pull request by a
	// collaborator that would close it, so a second run does not duplicate a person's work.
	RefuseIfLinkedPR bool
	// OnPullRequest is a run that works on the event's pull request, on its own branch: an event
	// about no pull request is not addressed to it, and one about a pull request from a fork is
	// refused unless AllowForks. The caller must have looked the pull request up (Event.PR), which
	// a comment's payload does not carry.
	OnPullRequest bool
	// AllowForks lets an OnPullRequest run work on a pull request whose head is in a fork: code
	// a stranger wrote, whose commits the run never pushes back.
	AllowForks bool
	// OwnLabels are the labels the action adds and removes itself (in-progress-label,
	// blocked-label): a labeled or unlabeled event for one of them is its own doing.
	OwnLabels []string
	// Written reports whether a comment or pull request body is one the action wrote (it
	// carries one of the action's hidden markers); nil means none is. Events about them, the
	// progress comment posted, a pull request opened, edited or pushed to, are the action's
	// own doing. With a token whose events start workflows (a personal access token, an App's),
	// each would otherwise start another run, without end.
	Written func(body string) bool
}

func (p Policy) written(body string) bool { return p.Written != nil && p.Written(body) }

// Permissions answers the questions Decide must ask GitHub.
type Permissions interface {
	// Permission is user's permission on the repository: "admin", "maintain", "write",
	// "triage", "read" or "none". A user who is not a collaborator is "none", not an error.
	Permission(ctx context.Context, user string) (string, error)
	// OpenLinkedPRs lists the open pull requests that reference issue.
	OpenLinkedPRs(ctx context.Context, issue int) ([]LinkedPR, error)
}

// LinkedPR is an open pull request that references an issue.
type LinkedPR struct {
	Number            int
	URL               string
	Author            string
	AuthorAssociation string
	Body              string // its description, where a closing keyword would be
}

// Decision is whether a run goes ahead.
type Decision struct {
	Run bool
	// Skip marks an event that was not addressed to the action at all (a comment without a
	// trigger phrase, another label), as opposed to a refused request: the caller should stay
	// quiet rather than report a refusal on the issue.
	Skip bool
	// Reason says in one sentence why the run was refused or skipped; empty when Run.
	Reason string
}

func proceed() Decision { return Decision{Run: true} }

func skip(format string, a ...any) Decision {
	return Decision{Skip: true, Reason: fmt.Sprintf(format, a...)}
}

func refuse(format string, a ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, a...)}
}

// Decide applies p to e. An event about what the run does not answer (p.Subjects) is skipped,
// and so is one about no pull request for an OnPullRequest run. Events a
// workflow author starts on purpose (schedule, workflow_dispatch, push) always run. A comment
// must be newly created and hold a trigger phrase; a labeled event must carry the trigger
// label. Then the actor must be trusted: a bot only when allowed, a user when listed in
// AllowedUsers or holding write, maintain or admin permission. Then an OnPullRequest run
// refuses a closed pull request, and one from a fork unless AllowForks. Last, with RefuseIfLinkedPR, an issue
// with an open pull request by a collaborator that would close it is refused. Events the action
// itself caused (its own labels, comments and pull request) are skipped before anything is
// looked up. An event of any other kind is
// refused, since nothing says who may trigger it. A failed look-up is an error, never a refusal.
func Decide(ctx context.Context, e *Event, p Policy, perms Permissions) (Decision, error) {
	if e == nil {
		return Decision{}, errors.New("decide: no event")
	}
	if d, no := p.unanswered(e); no {
		return d, nil
	}
	if StartedByWorkflow(e.Name) {
		return proceed(), nil
	}
	switch e.Name {
	case IssueComment, PullRequestReviewComment:
		if e.Comment == nil {
			return Decision{}, fmt.Errorf("decide %s: event has no comment", e.Name)
		}
		// An edit of a comment that already triggered would run the same request again.
		if e.Action != "" && e.Action != "created" {
			return skip("comment was %s, not created", e.Action), nil
		}
		if p.written(e.Comment.Body) {
			return skip("the comment is the action's own"), nil
		}
		if !hasTrigger(e.Comment.Body, p.TriggerPhrases, p.NotBefore) {
			return skip("comment has no trigger phrase"), nil
		}
	case Issues, PullRequest, PullRequestTarget:
		switch {
		case e.Action == "unlabeled":
			// Taking a label off asks for nothing; it is what a run itself does on start.
			return skip("label %q was removed, not added", e.Label), nil
		case e.Action == "labeled" && slices.ContainsFunc(p.OwnLabels, func(l string) bool { return l != "" && strings.EqualFold(l, e.Label) }):
			return skip("label %q is one the action moves itself", e.Label), nil
		case e.PR != nil && runChangesPR(e.Action) != "" && p.written(e.PR.Body):
			return skip("the pull request is the action's own, and was %s by it", runChangesPR(e.Action)), nil
		case p.TriggerLabel == "":
		case e.Action == "labeled" && !strings.EqualFold(e.Label, p.TriggerLabel):
			return skip("label %q is not the trigger label %q", e.Label, p.TriggerLabel), nil
		}
	default:
		return refuse("event %q is not supported", e.Name), nil
	}

	if d, err := checkActor(ctx, e, p, perms); err != nil || !d.Run {
		return d, err
	}
	if p.OnPullRequest {
		switch pr := e.PR; {
		case pr == nil:
			return Decision{}, fmt.Errorf("decide: pull request #%d was not looked up", e.PRNumber())
		case pr.Closed:
			return refuse("pull request #%d is closed, so its branch takes no more commits; reopen it, or ask on an open one", pr.Number), nil
		case pr.Fork && !p.AllowForks:
			from := "a fork"
			if pr.HeadRepo != "" {
				from = "the fork " + pr.HeadRepo
			}
			return refuse("pull request #%d comes from %s, whose code a stranger wrote, and runs on forks are off; "+
				"set allow-forks: true to run on it anyway (the commits then go to a branch of this repository, never to the fork)", pr.Number, from), nil
		}
	}
	if p.RefuseIfLinkedPR && e.Issue != nil && !e.Issue.IsPR {
		return checkLinkedPRs(ctx, e.Repository, e.Issue.Number, perms)
	}
	return proceed(), nil
}

// Answers reports whether a run under p answers e at all, whoever sent it: Decide skips an
// event about what p.Subjects leave out, and for an OnPullRequest run one about no pull request,
// before it looks at anything else. What such a run would need of the event (a branch named
// after its issue, the prompt's keys) need not be checked for one it skips.
func (p Policy) Answers(e *Event) bool {
	_, no := p.unanswered(e)
	return !no
}

// unanswered is the skip of an event a run under p does not answer (see Answers); false when
// it answers e.
func (p Policy) unanswered(e *Event) (Decision, bool) {
	if !e.About(p.Subjects) {
		return skip("the %s event is about %s, and this run answers %s", e.Name, e.Subject(), SubjectNames(p.Subjects)), true
	}
	if p.OnPullRequest && e.PRNumber() == 0 {
		what := "the " + e.Name + " event"
		if e.Issue != nil {
			what = fmt.Sprintf("#%d, an issue", e.Issue.Number)
		}
		return skip("the run works on a pull request's own branch, and %s is no pull request", what), true
	}
	return Decision{}, false
}

// runChangesPR says what a run does to its own pull request that GitHub reports with action:
// it opens it, edits its title and body, and pushes to its branch; "" for anything else.
func runChangesPR(action string) string {
	switch action {
	case "opened", "edited":
		return action
	case "synchronize":
		return "pushed to"
	}
	return ""
}

// StartedByWorkflow reports whether the event named name is one the workflow's author starts
// (schedule, workflow_dispatch, push): it runs without any check of who acted.
func StartedByWorkflow(name string) bool {
	switch name {
	case Schedule, WorkflowDispatch, Push:
		return true
	}
	return false
}

func checkActor(ctx context.Context, e *Event, p Policy, perms Permissions) (Decision, error) {
	actor := e.Actor
	if actor == "" {
		return refuse("event has no sender to check permissions for"), nil
	}
	if e.IsBot() {
		// An App's bot has no collaborator permission to look up: it is admitted by name, or
		// by AllowBots on the evidence of its installation.
		if containsBot(p.AllowedBots, actor) || p.AllowBots {
			return proceed(), nil
		}
		return refuse("actor %s is a bot, and bots may trigger only when listed in allowed-bots, or when it lists *", actor), nil
	}
	if containsLogin(p.AllowedUsers, actor) {
		return proceed(), nil
	}
	if perms == nil {
		return Decision{}, fmt.Errorf("decide: permission of %s: no permission checker", actor)
	}
	perm, err := perms.Permission(ctx, actor)
	if err != nil {
		return Decision{}, fmt.Errorf("decide: permission of %s: %w", actor, err)
	}
	switch strings.ToLower(perm) {
	case "admin", "maintain", "write":
		return proceed(), nil
	case "":
		perm = "none"
	}
	return refuse("actor %s has %s permission on the repository, and triggering needs write, maintain or admin", actor, perm), nil
}

func checkLinkedPRs(ctx context.Context, repository string, issue int, perms Permissions) (Decision, error) {
	if perms == nil {
		return Decision{}, fmt.Errorf("decide: open pull requests of issue #%d: no permission checker", issue)
	}
	prs, err := perms.OpenLinkedPRs(ctx, issue)
	if err != nil {
		return Decision{}, fmt.Errorf("decide: open pull requests of issue #%d: %w", issue, err)
	}
	for _, pr := range prs {
		if !closes(pr.Body, repository, issue) {
			continue // a mention, not a pull request that would close the issue
		}
		switch strings.ToUpper(pr.AuthorAssociation) {
		case "OWNER", "MEMBER", "COLLABORATOR":
			where := ""
			if pr.URL != "" {
				where = " (" + pr.URL + ")"
			}
			return refuse("issue #%d already has open pull request #%d%s by collaborator %s; close it to run again",
				issue, pr.Number, where, pr.Author), nil
		}
	}
	return proceed(), nil
}

// IsBot reports whether a bot acted. It takes either signal: user logins cannot contain
// brackets, so a "[bot]" login is never a person, whatever type the payload claims. The suffix
// only ever marks a bot as untrusted; what trusts one is its name in AllowedBots.
func (e *Event) IsBot() bool {
	return strings.EqualFold(e.ActorType, "Bot") || strings.HasSuffix(strings.ToLower(e.Actor), "[bot]")
}

// containsLogin matches logins case-insensitively, as GitHub does.
func containsLogin(list []string, login string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), login) })
}

// containsBot is containsLogin ignoring a "[bot]" suffix on either side, so "renovate" and
// "renovate[bot]" name the same bot.
func containsBot(list []string, login string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "[bot]") }
	return slices.ContainsFunc(list, func(s string) bool { return norm(s) == norm(login) })
}

// hasTrigger reports whether body holds one of phrases as a whole word, not followed by one of
// the words notBefore. The body is sanitized first, so a phrase inside a hidden HTML comment
// does not count, and quoted lines ("> …") are skipped, so replying to a comment that triggered
// a run does not trigger another.
func hasTrigger(body string, phrases, notBefore []string) bool {
	var res, others []*regexp.Regexp
	for _, ph := range phrases {
		if ph = strings.TrimSpace(ph); ph == "" {
			continue
		}
		res = append(res, phraseRE(ph))
		for _, w := range notBefore {
			others = append(others, phraseRE(ph+" "+w))
		}
	}
	for line := range strings.Lines(Sanitize(body)) {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), ">") {
			continue
		}
		line = strings.TrimSuffix(line, "\n")
		// Another mode's phrase is blanked out first, so that the shorter phrase inside it
		// does not count, while one elsewhere on the line still does. A match takes the
		// character on each side of it, which the next one may need: blank until none is left.
		for _, re := range others {
			for loc := re.FindStringIndex(line); loc != nil; loc = re.FindStringIndex(line) {
				line = line[:loc[0]] + strings.Repeat(" ", loc[1]-loc[0]) + line[loc[1]:]
			}
		}
		if slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(line) }) {
			return true
		}
	}
	return false
}

// phraseRE matches phrase, its words apart by any spaces, between a line edge, space or opening
// punctuation and a line edge, space or closing punctuation; a "." counts only when it ends a
// sentence. Word characters, "-", "/" and "@" around it are no boundary: "@sandcastle-bot"
// names another user, "src/sandcastle" is a path and "/sandcastle.yml" a file.
func phraseRE(phrase string) *regexp.Regexp {
	const before = "(?:^|[\\s(\\[{\"'`*~])"
	const after = "(?:$|[\\s,!?;:)\\]}\"'`*~]|\\.(?:$|\\s))"
	words := strings.Fields(phrase)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile("(?i)" + before + strings.Join(words, `\s+`) + after)
}
