package githubapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// Trigger is the comment that started a run: its reactions say the run saw it and how it
// ended, and a review comment's thread is where the run answers.
type Trigger struct {
	ID int64 // the comment; 0 when no comment started the run
	// Thread is, for a pull request review comment, the first comment of its review thread (the
	// comment itself, or the one it replies to: GitHub takes replies to that one only). The run's
	// comments then go into that thread. 0 for an issue comment, whose run answers in the
	// conversation of its issue or pull request.
	Thread int64
}

// review says the trigger is a review comment.
func (t Trigger) review() bool { return t.Thread != 0 }

// upsert edits the run's comment that carries marker where the run answers, or posts it: in the
// review thread of a review comment that started the run, else on the issue or pull request.
func (r *Repo) upsert(ctx context.Context, marker, body string) (Comment, error) {
	if r.Trigger.review() {
		c, _, err := r.Client.UpsertReply(ctx, r.Owner, r.Name, r.Issue, r.Trigger.Thread, marker, body)
		return c, err
	}
	c, _, err := r.Client.UpsertComment(ctx, r.Owner, r.Name, r.Issue, marker, body)
	return c, err
}

// edit replaces the body of the run's comment id, posted by upsert, keeping marker in it.
func (r *Repo) edit(ctx context.Context, id int64, marker, body string) (Comment, error) {
	if r.Trigger.review() {
		return r.Client.EditReply(ctx, r.Owner, r.Name, id, marker, body)
	}
	return r.Client.EditComment(ctx, r.Owner, r.Name, id, marker, body)
}

// UpsertReply edits the reply in the review thread that starts with comment thread, on
// owner/repo#number, that carries marker, or posts one; created reports which happened. As
// UpsertComment does, it searches every page and takes the newest match written by a bot or a
// member of the repository, so a re-run edits its reply instead of adding another.
func (c *Client) UpsertReply(ctx context.Context, owner, repo string, number int, thread int64, marker, body string) (comment Comment, created bool, err error) {
	object := fmt.Sprintf("the review thread of comment %d on %s/%s#%d", thread, owner, repo, number)
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, false, fmt.Errorf("githubapi: upsert a reply in %s: %w", object, err)
	}
	body = withTag(body, tag)

	var found int64
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := c.gh.PullRequests.ListComments(ctx, owner, repo, number, opts)
		if err != nil {
			return Comment{}, false, wrap(fmt.Sprintf("list review comments of %s/%s#%d", owner, repo, number), err)
		}
		for _, cm := range comments {
			if cm.GetInReplyTo() == thread && Marked(cm.GetBody(), marker) && ours(cm.GetUser().GetType(), cm.GetAuthorAssociation()) {
				found = cm.GetID()
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if found != 0 {
		comment, err := c.editReply(ctx, owner, repo, found, body)
		return comment, false, err
	}
	// go-github has no method for this endpoint.
	var cm github.PullRequestComment
	path := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", owner, repo, number, thread)
	if err := c.do(ctx, http.MethodPost, path, map[string]string{"body": body}, &cm); err != nil {
		return Comment{}, false, wrap("reply in "+object, err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, true, nil
}

// EditReply replaces the body of review comment id in owner/repo, keeping marker in it as
// UpsertReply does.
func (c *Client) EditReply(ctx context.Context, owner, repo string, id int64, marker, body string) (Comment, error) {
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, fmt.Errorf("githubapi: edit review comment %d in %s/%s: %w", id, owner, repo, err)
	}
	return c.editReply(ctx, owner, repo, id, withTag(body, tag))
}

func (c *Client) editReply(ctx context.Context, owner, repo string, id int64, body string) (Comment, error) {
	cm, _, err := c.gh.PullRequests.EditComment(ctx, owner, repo, id, &github.PullRequestComment{Body: &body})
	if err != nil {
		return Comment{}, wrap(fmt.Sprintf("edit review comment %d in %s/%s", id, owner, repo), err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
}

// React puts the reaction content ("eyes", "rocket", "confused", ...) on the comment that
// started the run and returns its id, for Unreact; 0 and no error when no comment started it.
// GitHub answers a reaction the token's user already made with that one.
func (r *Repo) React(ctx context.Context, content string) (int64, error) {
	t := r.Trigger
	if t.ID == 0 {
		return 0, nil
	}
	var (
		x   *github.Reaction
		err error
	)
	if t.review() {
		x, _, err = r.Client.gh.Reactions.CreatePullRequestCommentReaction(ctx, r.Owner, r.Name, t.ID, content)
	} else {
		x, _, err = r.Client.gh.Reactions.CreateIssueCommentReaction(ctx, r.Owner, r.Name, t.ID, content)
	}
	if err != nil {
		return 0, wrap(fmt.Sprintf("react %s to comment %d in %s/%s", content, t.ID, r.Owner, r.Name), err)
	}
	return x.GetID(), nil
}

// Unreact takes reaction id, one React made, off the comment that started the run.
func (r *Repo) Unreact(ctx context.Context, id int64) error {
	t := r.Trigger
	if t.ID == 0 || id == 0 {
		return nil
	}
	var err error
	if t.review() {
		_, err = r.Client.gh.Reactions.DeletePullRequestCommentReaction(ctx, r.Owner, r.Name, t.ID, id)
	} else {
		_, err = r.Client.gh.Reactions.DeleteIssueCommentReaction(ctx, r.Owner, r.Name, t.ID, id)
	}
	if err != nil && statusOf(err) != http.StatusNotFound { // someone took it off already
		return wrap(fmt.Sprintf("take reaction %d off comment %d in %s/%s", id, t.ID, r.Owner, r.Name), err)
	}
	return nil
}
