package githubapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// Comment identifies an issue or pull request comment.
type Comment struct {
	ID  int64
	URL string
}

// ours reports whether a comment, by a user of userType with association to the repository,
// can be one a run wrote: one by a bot (the job's token writes as github-actions[bot], an App as
// its own bot) or by someone with a standing role in the repository (whose personal token a
// workflow may use). A stranger who copies a marker into a comment of their own must not have it
// taken over, their name on the run's status.
func ours(userType, association string) bool {
	if userType == "Bot" {
		return true
	}
	switch association {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}

// UpsertComment edits the comment on owner/repo#issue that carries marker, or creates one;
// created reports which happened. All pages of comments are searched, and the newest match
// written by a bot or a member of the repository (see ours) wins, so a progress comment is
// edited in place across re-runs instead of repeated.
func (c *Client) UpsertComment(ctx context.Context, owner, repo string, issue int, marker, body string) (comment Comment, created bool, err error) {
	object := fmt.Sprintf("%s/%s#%d", owner, repo, issue)
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, false, fmt.Errorf("githubapi: upsert comment on %s: %w", object, err)
	}
	body = withTag(body, tag)

	var found int64
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := c.gh.Issues.ListComments(ctx, owner, repo, issue, opts)
		if err != nil {
			return Comment{}, false, wrap("list comments on "+object, err)
		}
		for _, cm := range comments {
			if Marked(cm.GetBody(), marker) && ours(cm.GetUser().GetType(), cm.GetAuthorAssociation()) {
				found = cm.GetID()
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if found != 0 {
		comment, err := c.edit(ctx, owner, repo, found, body)
		return comment, false, err
	}

	cm, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, issue, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, false, wrap("create comment on "+object, err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, true, nil
}

// EditComment replaces the body of comment id in owner/repo, keeping marker in it as
// UpsertComment does, so the comment is still found on the next run.
func (c *Client) EditComment(ctx context.Context, owner, repo string, id int64, marker, body string) (Comment, error) {
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, fmt.Errorf("githubapi: edit comment %d in %s/%s: %w", id, owner, repo, err)
	}
	return c.edit(ctx, owner, repo, id, withTag(body, tag))
}

// edit replaces the body of comment id in owner/repo with body, sent as given.
func (c *Client) edit(ctx context.Context, owner, repo string, id int64, body string) (Comment, error) {
	cm, _, err := c.gh.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, wrap(fmt.Sprintf("edit comment %d in %s/%s", id, owner, repo), err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
}
