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
// review thread of a review comment that started the run, else on its issue or pull request.
func (r *Repo) upsert(ctx context.Context, marker, body string) (Comment, error) {
	if r.Trigger.review() {
		c, _, err := upsertIn(ctx, r.reviewThread(), marker, body)
		return c, err
	}
	c, _, err := r.Client.UpsertComment(ctx, r.Owner, r.Name, r.Issue, marker, body)
	return c, err
}

// edit replaces the body of the run's comment id, posted by upsert, keeping marker in it.
func (r *Repo) edit(ctx context.Context, id int64, marker, body string) (Comment, error) {
	if r.Trigger.review() {
		return editIn(ctx, r.reviewThread(), id, marker, body)
	}
	return r.Client.EditComment(ctx, r.Owner, r.Name, id, marker, body)
}

func (r *Repo) reviewThread() reviewThread {
	return reviewThread{c: r.Client, owner: r.Owner, repo: r.Name, number: r.Issue, first: r.Trigger.Thread}
}

// reviewThread is the replies to review comment first on owner/repo#number.
type reviewThread struct {
	c           *Client
	owner, repo string
	number      int
	first       int64 // the comment that starts the thread
}

func (t reviewThread) where() string {
	return fmt.Sprintf("the review thread of comment %d on %s/%s#%d", t.first, t.owner, t.repo, t.number)
}

// page lists the replies of the thread among a page of the pull request's review comments.
func (t reviewThread) page(ctx context.Context, n int) ([]posted, int, error) {
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: n}}
	comments, resp, err := t.c.gh.PullRequests.ListComments(ctx, t.owner, t.repo, t.number, opts)
	if err != nil {
		return nil, 0, wrap(fmt.Sprintf("list review comments of %s/%s#%d", t.owner, t.repo, t.number), err)
	}
	var list []posted
	for _, cm := range comments {
		if cm.GetInReplyTo() == t.first {
			list = append(list, posted{id: cm.GetID(), body: cm.GetBody(), userType: cm.GetUser().GetType(), association: cm.GetAuthorAssociation()})
		}
	}
	return list, resp.NextPage, nil
}

func (t reviewThread) client() *Client { return t.c }

func (t reviewThread) create(ctx context.Context, body string) (Comment, error) {
	// go-github has no method for this endpoint.
	var cm github.PullRequestComment
	path := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", t.owner, t.repo, t.number, t.first)
	if err := t.c.do(ctx, http.MethodPost, path, map[string]string{"body": body}, &cm); err != nil {
		return Comment{}, wrap("reply in "+t.where(), err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
}

func (t reviewThread) edit(ctx context.Context, id int64, body string) (Comment, error) {
	cm, _, err := t.c.gh.PullRequests.EditComment(ctx, t.owner, t.repo, id, &github.PullRequestComment{Body: &body})
	if err != nil {
		return Comment{}, wrap(fmt.Sprintf("edit review comment %d in %s/%s", id, t.owner, t.repo), err)
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
