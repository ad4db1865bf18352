package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/push"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// maxPRTitle is GitHub's limit on a pull request title, in characters.
const maxPRTitle = 256

// pushDecision says whether the branch holding the commits is pushed, and how; "" = not.
func (p *plan) pushDecision(o report.Outcome) (mode inputs.PushMode, why string) {
	g := p.cfg.GitHub
	switch {
	case g.Push == inputs.PushNone:
		return "", "push is none"
	case len(o.Commits) == 0:
		return "", "the run made no commits"
	case o.Branch == "":
		return "", "the commits are on a detached HEAD; check out a branch or use branch-strategy branch"
	case p.cfg.BranchStrategy == inputs.StrategyMergeToHead:
		return "", "merge-to-head merged the commits into " + o.Branch + " on the runner; push it in a later step, or use branch-strategy branch"
	case g.Push == inputs.PushAuto && !p.gh.actions:
		return "", "push auto pushes only in GitHub Actions; use push force or lease"
	case g.Push == inputs.PushAuto && p.cfg.BranchStrategy != inputs.StrategyBranch:
		return "", "push auto pushes only branch-strategy branch; use push lease to push the checked-out branch"
	case g.Push == inputs.PushAuto:
		return inputs.PushAuto, ""
	case g.Push == inputs.PushForce:
		return inputs.PushForce, ""
	default:
		return inputs.PushLease, ""
	}
}

// lease is where the push expects the remote branch: where it was when the run started (the
// remote-tracking branch the checkout fetched, else the head of the event's pull request), as
// long as the run started from it or from a descendant of it. When the run started elsewhere,
// behind or beside the remote, the lease is the run's own start, which the remote does not
// have, so the push is refused and nobody's commits are overwritten. "" means the branch did
// not exist on the remote.
func (p *plan) lease(ctx context.Context, branch, start string) string {
	if branch == "" {
		return ""
	}
	g := p.hostGit(p.cfg.WorkingDirectory)
	remote, err := g.Resolve(ctx, "refs/remotes/origin/"+branch)
	if err != nil {
		remote = ""
		if e := p.gh.event; e != nil && e.PR != nil && e.PR.HeadRef == branch && !e.PR.Fork {
			remote = e.PR.HeadSHA
		}
	}
	if remote == "" || remote == start {
		return remote
	}
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", remote, start); err != nil {
		return start
	}
	return remote
}

// publish pushes the branch and opens or updates the pull request, filling their fields of o,
// the PR note included: what the comment adds about the pull request, why it is not a draft or
// whose it is. The error is what the user must act on; a moved branch sets the status
// branch-moved. top is the checkout, where a bundle keeps commits that reach no branch on
// GitHub.
func (p *plan) publish(ctx context.Context, o *report.Outcome, lease, top string, ok bool, log *report.Log) error {
	mode, why := p.pushDecision(*o)
	if mode == "" {
		switch {
		case len(o.Commits) > 0 && p.cfg.GitHub.OpenPR && ok:
			log.Warning("open-pr: no pull request, because %s was not pushed: %s", orDetached(o.Branch), why)
		case len(o.Commits) > 0:
			log.Status("Not pushing %s: %s", orDetached(o.Branch), why)
		}
		return nil
	}
	r, err := push.Push(ctx, push.Options{
		Dir:            p.cfg.WorkingDirectory,
		Env:            p.gitEnv,
		GitConfig:      p.gitConfig(),
		Branch:         o.Branch,
		Mode:           mode,
		Lease:          lease,
		Token:          p.gh.gitToken(),
		ServerURL:      p.gh.server,
		URL:            p.gh.pushURL,
		RecoveryBranch: p.recoveryBranch(o.Branch),
		Bundle:         p.bundlePath(top, o.Branch),
		Since:          o.BaseSHA,
	})
	o.Pushed, o.RecoveryBranch = r.Pushed, r.Recovery
	if r.Bundle != "" {
		// Written as root in the Action: a later step, as the runner's user, uploads it.
		uid, gid := ownerOf(top)
		if err := giveBack(filepath.Dir(r.Bundle), uid, gid, os.Geteuid); err != nil {
			log.Warning("handing the bundle to the workspace owner: %v", err)
		}
	}
	var moved *push.BranchMovedError
	switch {
	case errors.As(err, &moved):
		if ok { // a failed or cancelled run keeps saying so
			o.Status = report.StatusBranchMoved
		}
		return err
	case err != nil:
		return err
	case r.Skipped != "":
		log.Status("Not pushed: %s", r.Skipped)
	default:
		log.Status("Pushed %s (%s)", o.Branch, gitref.ShortSHA(r.SHA))
	}
	if !p.cfg.GitHub.OpenPR || !ok {
		return nil
	}
	pr, created, err := p.upsertPR(ctx, *o)
	if err != nil {
		return err
	}
	o.PRNumber, o.PRURL = pr.Number, pr.URL
	verb := "Updated"
	if created {
		verb = "Opened"
	}
	switch {
	case pr.DraftRefused:
		o.PRNote = "opened ready for review, since this repository does not support draft pull requests"
	case pr.Adopted:
		o.PRNote = "opened by someone else from this branch; their title and description are kept"
	}
	if o.PRNote != "" {
		log.Status("%s pull request #%d (%s): %s", verb, pr.Number, o.PRNote, pr.URL)
	} else {
		log.Status("%s pull request #%d: %s", verb, pr.Number, pr.URL)
	}
	return nil
}

// recoveryBranch names the branch that takes the commits when branch moved on the remote, or
// its rules refused them.
func (p *plan) recoveryBranch(branch string) string {
	return "sandcastle/recovery/" + branch + "-" + p.runTag()
}

// bundlePath is where the commits of branch are kept when they reach no branch on GitHub:
// beside the run logs, which git status does not show and a later step can upload.
func (p *plan) bundlePath(top, branch string) string {
	return filepath.Join(top, ".sandcastle", "logs", fileSafe(branch)+"-"+p.runTag()+".bundle")
}

// runTag tells this run's recovery branch and bundle from other runs': the workflow run and
// attempt, else the time.
func (p *plan) runTag() string {
	if id := p.gh.runID; id != "" {
		return id
	}
	return time.Now().UTC().Format("20060102-150405")
}

func (p *plan) upsertPR(ctx context.Context, o report.Outcome) (githubapi.PR, bool, error) {
	base := p.prBase(o.Branch)
	if base == "" {
		return githubapi.PR{}, false, &inputs.RuntimeError{Input: inputs.InputPRBase, Err: fmt.Errorf("no branch to merge %s into: the run started on it (or on a detached HEAD) and no pull request names a base; set pr-base", o.Branch)}
	}
	vals := p.prValues(o, base)
	onlySubject := ""
	if len(o.Commits) == 1 {
		onlySubject = o.Commits[0].Subject
	}
	title, body, err := renderPR(p.cfg.GitHub, vals, onlySubject)
	if err != nil {
		return githubapi.PR{}, false, err
	}
	red := p.red.Redact
	pr, created, err := p.gh.api.UpsertPR(ctx, githubapi.PRSpec{
		Owner: p.gh.owner, Repo: p.gh.repo,
		Head:  o.Branch,
		Base:  base,
		Title: red(title), Body: red(body),
		Draft:  p.cfg.GitHub.PRDraft,
		Marker: prMarker(o.Branch),
	})
	if err != nil {
		compare := p.gh.server + "/" + p.gh.owner + "/" + p.gh.repo + "/compare/" + url.PathEscape(base) + "..." + url.PathEscape(o.Branch) + "?expand=1"
		return pr, created, fmt.Errorf("%w; %s is pushed: open the pull request by hand at %s", err, o.Branch, compare)
	}
	return pr, created, nil
}

// prMarker finds the pull request of branch again. Branch names may hold "--", which a marker
// may not, so two names can share one: they are told apart by the head branch too.
func prMarker(branch string) string { return cleanMarker(markerFamily + ":pr:" + branch) }

// prBase is the branch the pull request merges into: pr-base, else the branch the run started
// from, else, for a run on a pull request's own branch, that pull request's base.
func (p *plan) prBase(branch string) string {
	if p.cfg.GitHub.PRBase != "" {
		return p.cfg.GitHub.PRBase
	}
	if p.startBranch != "" && p.startBranch != branch {
		return p.startBranch
	}
	if e := p.gh.event; e != nil && e.PR != nil {
		return e.PR.BaseRef
	}
	return ""
}

// prValues are the keys pr-title and pr-body may use.
func (p *plan) prValues(o report.Outcome, base string) map[string]string {
	vals := p.gh.eventArgs()
	if vals == nil {
		vals = map[string]string{}
	}
	var commits strings.Builder
	for _, c := range o.Commits {
		fmt.Fprintf(&commits, "- %s %s\n", gitref.ShortSHA(c.SHA), c.Subject)
	}
	vals["BRANCH"] = o.Branch
	vals["BASE"] = base
	vals["COMMITS"] = strings.TrimRight(commits.String(), "\n")
	vals["COMMIT_COUNT"] = strconv.Itoa(len(o.Commits))
	vals["SUMMARY"] = o.Final
	vals["OUTPUT"] = ""
	if o.Output != nil {
		vals["OUTPUT"] = o.Output.Text
	}
	vals["STATUS"] = string(o.Status)
	return vals
}

// prRunKeys are the keys pr-title and pr-body get from the run, beside the event's; a test
// keeps them equal to what prValues sets.
func prRunKeys() []string {
	return []string{"BRANCH", "BASE", "COMMITS", "COMMIT_COUNT", "SUMMARY", "OUTPUT", "STATUS"}
}

// prKeys are the keys of prValues, with stand-in values, to check templates before a run.
func prKeys(eventArgs map[string]string) map[string]string {
	vals := map[string]string{}
	for k, v := range eventArgs {
		vals[k] = v
	}
	for _, k := range prRunKeys() {
		vals[k] = k
	}
	return vals
}

// summaryText is the agent's final message without its completion signal.
func summaryText(final string, signals []string) string {
	for _, s := range signals {
		final = strings.ReplaceAll(final, s, "")
	}
	return strings.TrimSpace(final)
}

// renderPR fills the title and body templates, or the built-in ones. onlySubject is the subject
// of the run's one commit, "" unless it made exactly one: the default title without an issue.
func renderPR(g inputs.GitHubConfig, vals map[string]string, onlySubject string) (title, body string, err error) {
	title, body = defaultPRTitle(vals, onlySubject), defaultPRBody(vals)
	if g.PRTitle != "" {
		if title, err = fill(inputs.InputPRTitle, g.PRTitle, vals); err != nil {
			return "", "", err
		}
	}
	if g.PRBody != "" {
		if body, err = fill(inputs.InputPRBody, g.PRBody, vals); err != nil {
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

// fill substitutes {{KEY}} in text. Commands are never run here: a !`cmd` block stays text.
func fill(input, text string, vals map[string]string) (string, error) {
	out, err := prompt.Fill(text, vals)
	if err != nil {
		return "", &inputs.Problem{Input: input, Message: fmt.Sprintf("%v; use the keys %s", err, strings.Join(slices.Sorted(maps.Keys(vals)), ", "))}
	}
	return out, nil
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
