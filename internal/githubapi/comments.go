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
	return upsertIn(ctx, conversation{c, owner, repo, issue}, marker, body)
}

// EditComment replaces the body of comment id in owner/repo, keeping marker in it as
// UpsertComment does, so the comment is still found on the next run.
func (c *Client) EditComment(ctx context.Context, owner, repo string, id int64, marker, body string) (Comment, error) {
	return editIn(ctx, conversation{c: c, owner: owner, repo: repo}, id, marker, body)
}

// thread is where a run's comments go: the conversation of an issue or pull request, or a
// review thread.
type thread interface {
	// where names it in messages, as "o/r#5".
	where() string
	// page lists the comments of page n (the first is 1), oldest first, and the page after it,
	// 0 after the last.
	page(ctx context.Context, n int) (list []posted, next int, err error)
	// create and edit post body as given: upsertIn and editIn, their only callers, have passed
	// it through the gate before adding the marker.
	create(ctx context.Context, body string) (Comment, error)
	edit(ctx context.Context, id int64, body string) (Comment, error)
	client() *Client
}

// posted is a comment of a thread, as upsertIn looks at it.
type posted struct {
	id                    int64
	body                  string
	userType, association string
}

// upsertIn edits the comment of t that carries marker, or creates one; created reports which
// happened. Every page is searched, and the newest match written by a bot or a member of the
// repository (see ours) wins.
func upsertIn(ctx context.Context, t thread, marker, body string) (comment Comment, created bool, err error) {
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, false, fmt.Errorf("githubapi: upsert comment on %s: %w", t.where(), err)
	}
	body = withTag(t.client().gate.text(body), tag)
	var found int64
	for n := 1; n != 0; {
		list, next, err := t.page(ctx, n)
		if err != nil {
			return Comment{}, false, err
		}
		for _, p := range list {
			if Marked(p.body, marker) && ours(p.userType, p.association) {
				found = p.id
			}
		}
		n = next
	}
	if found != 0 {
		comment, err := t.edit(ctx, found, body)
		return comment, false, err
	}
	comment, err = t.create(ctx, body)
	return comment, err == nil, err
}

// editIn replaces the body of comment id of t, keeping marker in it as upsertIn does, so the
// comment is still found on the next run.
func editIn(ctx context.Context, t thread, id int64, marker, body string) (Comment, error) {
	tag, err := markerTag(marker)
	if err != nil {
		return Comment{}, fmt.Errorf("githubapi: edit comment %d in %s: %w", id, t.where(), err)
	}
	return t.edit(ctx, id, withTag(t.client().gate.text(body), tag))
}

// conversation is the comments of owner/repo#issue, an issue's or a pull request's.
type conversation struct {
	c           *Client
	owner, repo string
	issue       int // 0 for a conversation only edited, by a comment's id
}

func (t conversation) where() string {
	if t.issue == 0 {
		return t.owner + "/" + t.repo
	}
	return fmt.Sprintf("%s/%s#%d", t.owner, t.repo, t.issue)
}

func (t conversation) page(ctx context.Context, n int) ([]posted, int, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: n}}
	comments, resp, err := t.c.gh.Issues.ListComments(ctx, t.owner, t.repo, t.issue, opts)
	if err != nil {
		return nil, 0, wrap("list comments on "+t.where(), err)
	}
	list := make([]posted, len(comments))
	for i, cm := range comments {
		list[i] = posted{id: cm.GetID(), body: cm.GetBody(), userType: cm.GetUser().GetType(), association: cm.GetAuthorAssociation()}
	}
	return list, resp.NextPage, nil
}

func (t conversation) client() *Client { return t.c }

func (t conversation) create(ctx context.Context, body string) (Comment, error) {
	cm, _, err := t.c.gh.Issues.CreateComment(ctx, t.owner, t.repo, t.issue, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, wrap("create comment on "+t.where(), err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
}

// edit replaces the body of comment id with body.
func (t conversation) edit(ctx context.Context, id int64, body string) (Comment, error) {
	cm, _, err := t.c.gh.Issues.EditComment(ctx, t.owner, t.repo, id, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, wrap(fmt.Sprintf("edit comment %d in %s/%s", id, t.owner, t.repo), err)
	}
	return Comment{ID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
}
