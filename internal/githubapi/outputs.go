package githubapi

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/go-github/v62/github"

	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// TriageIssue is what a triage run needs to know of issue number of the repository: whether it
// is there, a pull request, closed, and triaged before (triagedLabel on it, or a comment of the
// action's carrying triage's marker).
func (r *Repo) TriageIssue(ctx context.Context, number int, triagedLabel string) (triage.Issue, error) {
	is, _, err := r.Client.gh.Issues.Get(ctx, r.Owner, r.Name, number)
	if statusOf(err) == 404 {
		return triage.Issue{}, nil
	}
	if err != nil {
		return triage.Issue{}, wrap(fmt.Sprintf("get issue %s/%s#%d", r.Owner, r.Name, number), err)
	}
	out := triage.Issue{Found: true, PullRequest: is.IsPullRequest(), Closed: is.GetState() == "closed"}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.GetName())
		if triagedLabel != "" && triage.SameLabel(l.GetName(), triagedLabel) {
			out.Triaged = true
		}
	}
	if out.Triaged {
		return out, nil
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := r.Client.gh.Issues.ListComments(ctx, r.Owner, r.Name, number, opts)
		if err != nil {
			return out, wrap(fmt.Sprintf("list comments on %s/%s#%d", r.Owner, r.Name, number), err)
		}
		if slices.ContainsFunc(comments, func(c *github.IssueComment) bool {
			return Marked(c.GetBody(), triage.Marker) && ours(c.GetUser().GetType(), c.GetAuthorAssociation())
		}) {
			out.Triaged = true
			return out, nil
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// Triage carries out one planned action on an issue of the repository; a comment carries
// triage's marker.
func (r *Repo) Triage(ctx context.Context, a triage.Action) error {
	object := fmt.Sprintf("%s/%s#%d", r.Owner, r.Name, a.Issue)
	switch a.Kind {
	case triage.AddLabel:
		return r.Client.AddLabels(ctx, r.Owner, r.Name, a.Issue, a.Value)
	case triage.RemoveLabel:
		return r.Client.RemoveLabel(ctx, r.Owner, r.Name, a.Issue, a.Value)
	case triage.Comment:
		tag, _ := markerTag(triage.Marker)
		body := withTag(r.Client.gate.text(a.Value), tag)
		if _, _, err := r.Client.gh.Issues.CreateComment(ctx, r.Owner, r.Name, a.Issue, &github.IssueComment{Body: &body}); err != nil {
			return wrap("create comment on "+object, err)
		}
	case triage.Close:
		if _, _, err := r.Client.gh.Issues.Edit(ctx, r.Owner, r.Name, a.Issue, &github.IssueRequest{State: github.String("closed"), StateReason: github.String(a.Value)}); err != nil {
			return wrap("close "+object+" as "+a.Value, err)
		}
	default:
		return fmt.Errorf("githubapi: no triage action %q", a.Kind)
	}
	return nil
}

// PRFiles are the files pull request number changes, with GitHub's patches.
func (r *Repo) PRFiles(ctx context.Context, number int) ([]review.File, error) {
	var out []review.File
	opts := &github.ListOptions{PerPage: 100}
	for {
		files, resp, err := r.Client.gh.PullRequests.ListFiles(ctx, r.Owner, r.Name, number, opts)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list files of %s/%s#%d", r.Owner, r.Name, number), err)
		}
		for _, f := range files {
			out = append(out, review.File{Path: f.GetFilename(), Patch: f.GetPatch()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// ReviewTexts are the bodies of pull request number's reviews and review comments, where a
// re-run finds the markers of what it posted.
func (r *Repo) ReviewTexts(ctx context.Context, number int) ([]string, error) {
	var out []string
	object := fmt.Sprintf("%s/%s#%d", r.Owner, r.Name, number)
	opts := &github.ListOptions{PerPage: 100}
	for {
		reviews, resp, err := r.Client.gh.PullRequests.ListReviews(ctx, r.Owner, r.Name, number, opts)
		if err != nil {
			return nil, wrap("list reviews of "+object, err)
		}
		for _, rv := range reviews {
			out = append(out, rv.GetBody())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	copts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := r.Client.gh.PullRequests.ListComments(ctx, r.Owner, r.Name, number, copts)
		if err != nil {
			return nil, wrap("list review comments of "+object, err)
		}
		for _, c := range comments {
			out = append(out, c.GetBody())
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		copts.Page = resp.NextPage
	}
}

// PostReview posts one review of pull request number at commit ("" is its head), event COMMENT:
// body, and comments on their lines. It returns the review's URL; GitHub answers 422 when a
// comment is not on a line of the diff (see Unprocessable).
func (r *Repo) PostReview(ctx context.Context, number int, commit, body string, comments []review.Inline) (string, error) {
	body = r.Client.gate.review(body)
	req := &github.PullRequestReviewRequest{Body: &body, Event: github.String("COMMENT")}
	if commit != "" {
		req.CommitID = &commit
	}
	for _, c := range comments {
		req.Comments = append(req.Comments, &github.DraftReviewComment{Path: github.String(c.Path), Line: github.Int(c.Line), Side: github.String(c.Side), Body: github.String(r.Client.gate.review(c.Body))})
	}
	rv, _, err := r.Client.gh.PullRequests.CreateReview(ctx, r.Owner, r.Name, number, req)
	if err != nil {
		return "", wrap(fmt.Sprintf("create review of %s/%s#%d", r.Owner, r.Name, number), err)
	}
	return rv.GetHTMLURL(), nil
}

// Unprocessable says GitHub refused a request as invalid (422), as it refuses a review comment
// on a line outside the diff.
func (r *Repo) Unprocessable(err error) bool { return statusOf(err) == 422 }
