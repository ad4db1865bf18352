package githubapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
)

// PRSpec is the pull request a run wants to exist.
type PRSpec struct {
	Owner, Repo string
	// Head is "owner:branch"; a bare branch is taken from Owner.
	Head        string
	Base        string
	Title, Body string
	// Draft applies only when the pull request is created.
	Draft bool
	// Marker finds the pull request again on re-runs; it is hidden in the body.
	Marker string
}

// PR identifies a pull request.
type PR struct {
	Number int
	URL    string
}

// UpsertPR updates the open pull request from s.Head whose body carries s.Marker, or creates
// one. created reports which happened. Re-runs therefore never open a second pull request.
func (c *Client) UpsertPR(ctx context.Context, s PRSpec) (pr PR, created bool, err error) {
	repo := s.Owner + "/" + s.Repo
	tag, err := markerTag(s.Marker)
	if err != nil {
		return PR{}, false, fmt.Errorf("githubapi: upsert pull request in %s: %w", repo, err)
	}
	head := s.Head
	if !strings.Contains(head, ":") {
		head = s.Owner + ":" + head
	}
	body := withTag(s.Body, tag)

	found, err := c.findOpenPR(ctx, s.Owner, s.Repo, head, s.Marker)
	if err != nil {
		return PR{}, false, err
	}
	if found != 0 {
		pr, err := c.editPR(ctx, s, found, body)
		return pr, false, err
	}

	p, _, err := c.gh.PullRequests.Create(ctx, s.Owner, s.Repo, &github.NewPullRequest{
		Title: &s.Title, Head: &head, Base: &s.Base, Body: &body, Draft: &s.Draft,
	})
	if err == nil {
		return PR{Number: p.GetNumber(), URL: p.GetHTMLURL()}, true, nil
	}
	// Someone opened a pull request from this head without our marker: adopt it rather
	// than fail, since the head branch is the run's own.
	if statusOf(err) == http.StatusUnprocessableEntity && mentions(err, "already exists") {
		if found, ferr := c.findOpenPR(ctx, s.Owner, s.Repo, head, ""); ferr == nil && found != 0 {
			pr, err := c.editPR(ctx, s, found, body)
			return pr, false, err
		}
	}
	return PR{}, false, wrap("create pull request in "+repo, err)
}

// findOpenPR returns the number of the newest open pull request from head whose body carries
// marker (any, when marker is empty), or 0.
func (c *Client) findOpenPR(ctx context.Context, owner, repo, head, marker string) (int, error) {
	opts := &github.PullRequestListOptions{State: "open", Head: head, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		pulls, resp, err := c.gh.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return 0, wrap(fmt.Sprintf("list pull requests from %s in %s/%s", head, owner, repo), err)
		}
		for _, p := range pulls {
			// The head filter is GitHub's; checking again guards against a server that
			// ignores it.
			if label := p.GetHead().GetLabel(); label != "" && !strings.EqualFold(label, head) {
				continue
			}
			if marker == "" || Marked(p.GetBody(), marker) {
				return p.GetNumber(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *Client) editPR(ctx context.Context, s PRSpec, number int, body string) (PR, error) {
	update := &github.PullRequest{Title: &s.Title, Body: &body}
	if s.Base != "" {
		update.Base = &github.PullRequestBranch{Ref: &s.Base}
	}
	p, _, err := c.gh.PullRequests.Edit(ctx, s.Owner, s.Repo, number, update)
	if err != nil {
		return PR{}, wrap(fmt.Sprintf("update pull request %s/%s#%d", s.Owner, s.Repo, number), err)
	}
	return PR{Number: p.GetNumber(), URL: p.GetHTMLURL()}, nil
}
