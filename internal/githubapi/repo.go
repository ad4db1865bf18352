package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/event"
)

// Family starts every marker the action hides in its comments and pull requests, which is how
// it knows them for its own when their events come back to it.
const Family = "sandcastle"

// CommentMarker names the progress comment of one workflow job, so re-runs edit their own
// comment and other workflows keep theirs.
func CommentMarker(workflow, job, name string) string {
	parts := []string{Family}
	for _, p := range []string{workflow, job, name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return cleanMarker(strings.Join(parts, ":"))
}

// PRMarker finds the pull request of branch again. Branch names may hold "--", which a marker
// may not, so two names can share one: they are told apart by the head branch too.
func PRMarker(branch string) string { return cleanMarker(Family + ":pr:" + branch) }

// cleanMarker makes s fit in the HTML comment that hides a marker: "--", "<", ">" and line
// breaks would end or break it.
func cleanMarker(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "<", "", ">", "").Replace(s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return s
}

// Repo is the client bound to one repository and to the issue or pull request a run reports
// on: the questions a run asks GitHub and what it writes there.
type Repo struct {
	Client      *Client
	Owner, Name string
	Issue       int // the issue or pull request the run reports on; 0 = none
	Trigger     Trigger
	Marker      string // finds the progress comment again
	Branch      string // the run's branch, whose pull request is the run's own
	Server      string // GITHUB_SERVER_URL, for links
}

// Permission is user's permission on the repository (see Client.Permission).
func (r *Repo) Permission(ctx context.Context, user string) (string, error) {
	return r.Client.Permission(ctx, r.Owner, r.Name, user)
}

// OpenLinkedPRs are the open pull requests that reference issue, less the run's own: the pull
// request an earlier run opened from the branch is this work, not a competitor, and the run
// updates it; with a person's token it looks like a collaborator's.
func (r *Repo) OpenLinkedPRs(ctx context.Context, issue int) ([]event.LinkedPR, error) {
	prs, err := r.Client.OpenLinkedPRs(ctx, r.Owner, r.Name, issue)
	var out []event.LinkedPR
	for _, pr := range prs {
		if r.Branch != "" && Marked(pr.Body, PRMarker(r.Branch)) {
			continue
		}
		out = append(out, event.LinkedPR{Number: pr.Number, URL: pr.URL, Author: pr.Author, AuthorAssociation: pr.AuthorAssociation, Body: pr.Body})
	}
	return out, err
}

// Ours reports whether the action wrote body, in any run: it carries a marker of the family.
func (r *Repo) Ours(body string) bool { return MarkedBy(body, Family) }

// Labels takes labels off the issue the run reports on and puts others on.
func (r *Repo) Labels(ctx context.Context, add, remove []string) error {
	if r.Issue == 0 {
		return nil
	}
	var errs []error
	for _, l := range remove {
		errs = append(errs, r.Client.RemoveLabel(ctx, r.Owner, r.Name, r.Issue, l))
	}
	if len(add) > 0 {
		errs = append(errs, r.Client.AddLabels(ctx, r.Owner, r.Name, r.Issue, add...))
	}
	return errors.Join(errs...)
}

// Answer posts body, the answer to an event that may not start a run, in a comment of its own
// where the run answers (see LiveComment), so that it never overwrites the status of an earlier
// run; a later refusal edits it.
func (r *Repo) Answer(ctx context.Context, body string) (url string, err error) {
	c, err := r.upsert(ctx, r.Marker+":refused", body)
	return c.URL, err
}

// PullRequest is pull request number of the repository as GitHub has it now: a comment's event
// names none of its branches, and a review comment's head may have moved since.
func (r *Repo) PullRequest(ctx context.Context, number int) (*event.PR, error) {
	p, _, err := r.Client.gh.PullRequests.Get(ctx, r.Owner, r.Name, number)
	if err != nil {
		e := wrap(fmt.Sprintf("get pull request %s/%s#%d", r.Owner, r.Name, number), err)
		e.hint = forbidden(err, "the token may not read pull requests: give the job `pull-requests: read` (or write, which modes pr and review need to answer there); a permissions: block sets each one it leaves out to none")
		return nil, e
	}
	head := p.GetHead().GetRepo().GetFullName() // none once the fork is deleted
	return &event.PR{
		Number:        p.GetNumber(),
		Title:         p.GetTitle(),
		Body:          p.GetBody(),
		HeadRef:       p.GetHead().GetRef(),
		BaseRef:       p.GetBase().GetRef(),
		HeadSHA:       p.GetHead().GetSHA(),
		HeadRepo:      head,
		Fork:          event.ForkHead(head, r.Owner+"/"+r.Name),
		DefaultBranch: p.GetBase().GetRepo().GetDefaultBranch(),
		Closed:        p.GetState() == "closed",
	}, nil
}

// UpsertPR opens the pull request from head into base, or updates the one an earlier run
// opened from head. When GitHub refuses, the error says where to open it by hand.
func (r *Repo) UpsertPR(ctx context.Context, head, base, title, body string, draft bool) (PR, bool, error) {
	pr, created, err := r.Client.UpsertPR(ctx, PRSpec{Owner: r.Owner, Repo: r.Name, Head: head, Base: base,
		Title: title, Body: body, Draft: draft, Marker: PRMarker(head)})
	if err != nil {
		compare := r.Server + "/" + r.Owner + "/" + r.Name + "/compare/" + url.PathEscape(base) + "..." + url.PathEscape(head) + "?expand=1"
		return pr, created, fmt.Errorf("%w; %s is pushed: open the pull request by hand at %s", err, head, compare)
	}
	return pr, created, nil
}
