package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

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
	// DraftRefused: the repository does not support drafts (GitHub allows them in private
	// repositories on the Team and Enterprise plans only), so it was opened ready for review.
	DraftRefused bool
	// Adopted: someone else opened it from the run's branch; their title and body were kept,
	// and the run's text added below them.
	Adopted bool
}

// headRetries are the waits before retrying a creation GitHub refuses because it has not seen
// the head branch yet, which happens for a moment after the push.
var headRetries = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}

// UpsertPR updates the open pull request from s.Head whose body carries s.Marker, or creates
// one. created reports which happened. Re-runs therefore never open a second pull request.
// A pull request someone else opened from s.Head is adopted: its title and body stay theirs,
// and s.Body goes into a section of its own below them, which later runs replace.
func (c *Client) UpsertPR(ctx context.Context, s PRSpec) (pr PR, created bool, err error) {
	repo := s.Owner + "/" + s.Repo
	s.Title, s.Body = c.gate.pr(s.Title), c.gate.pr(s.Body)
	if _, err := markerTag(s.Marker); err != nil {
		return PR{}, false, fmt.Errorf("githubapi: upsert pull request in %s: %w", repo, err)
	}
	head := s.Head
	if !strings.Contains(head, ":") {
		head = s.Owner + ":" + head
	}

	found, err := c.findOpenPR(ctx, s.Owner, s.Repo, head, s.Marker)
	if err != nil {
		return PR{}, false, err
	}
	if found != nil {
		pr, err := c.updatePR(ctx, s, found)
		return pr, false, err
	}

	p, draftRefused, err := c.createPR(ctx, s, head)
	if err == nil {
		return PR{Number: p.GetNumber(), URL: p.GetHTMLURL(), DraftRefused: draftRefused}, true, nil
	}
	// Someone opened a pull request from this head without our marker: adopt it rather
	// than fail, since the head branch is the run's own.
	if statusOf(err) == http.StatusUnprocessableEntity && mentions(err, "already exists") {
		if found, ferr := c.findOpenPR(ctx, s.Owner, s.Repo, head, ""); ferr == nil && found != nil {
			pr, err := c.updatePR(ctx, s, found)
			return pr, false, err
		}
	}
	e := wrap("create pull request in "+repo, err)
	if statusOf(err) == http.StatusForbidden && mentions(err, "not permitted to create or approve pull requests") {
		e.hint = "allow it in the repository's Settings > Actions > General > Workflow permissions: \"Allow GitHub Actions to create and approve pull requests\" (an organization's repository needs the organization to allow it first), or give github-token a personal access token or an App token"
	}
	return PR{}, false, e
}

// createPR opens the pull request. A repository that does not support drafts gets a ready one,
// which draftRefused reports; a head GitHub has not seen yet is tried again for a few seconds.
func (c *Client) createPR(ctx context.Context, s PRSpec, head string) (p *github.PullRequest, draftRefused bool, err error) {
	tag, _ := markerTag(s.Marker)
	body := withTag(s.Body, tag)
	draft := s.Draft
	for waits := headRetries; ; {
		p, _, err = c.gh.PullRequests.Create(ctx, s.Owner, s.Repo, &github.NewPullRequest{
			Title: &s.Title, Head: &head, Base: &s.Base, Body: &body, Draft: &draft,
		})
		switch {
		case err == nil:
			return p, draftRefused, nil
		case draft && statusOf(err) == http.StatusUnprocessableEntity && mentions(err, "draft pull requests are not supported"):
			draft, draftRefused = false, true
		case len(waits) > 0 && unknownHead(err):
			if err := c.sleep(ctx, waits[0]); err != nil {
				return nil, draftRefused, err
			}
			waits = waits[1:]
		default:
			return nil, draftRefused, err
		}
	}
}

// unknownHead reports GitHub's 422 for a head branch it does not know (yet).
func unknownHead(err error) bool {
	var resp *github.ErrorResponse
	if statusOf(err) != http.StatusUnprocessableEntity || !errors.As(err, &resp) {
		return false
	}
	for _, d := range resp.Errors {
		if d.Field == "head" && d.Code == "invalid" {
			return true
		}
	}
	return false
}

// openPR is an open pull request as findOpenPR returns it.
type openPR struct {
	number int
	body   string
}

// findOpenPR returns the newest open pull request from head whose body carries marker (any,
// when marker is empty), or nil.
func (c *Client) findOpenPR(ctx context.Context, owner, repo, head, marker string) (*openPR, error) {
	opts := &github.PullRequestListOptions{State: "open", Head: head, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		pulls, resp, err := c.gh.PullRequests.List(ctx, owner, repo, opts)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list pull requests from %s in %s/%s", head, owner, repo), err)
		}
		for _, p := range pulls {
			// The head filter is GitHub's; checking again guards against a server that
			// ignores it.
			if label := p.GetHead().GetLabel(); label != "" && !strings.EqualFold(label, head) {
				continue
			}
			if marker == "" || Marked(p.GetBody(), marker) {
				return &openPR{number: p.GetNumber(), body: p.GetBody()}, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// updatePR writes s to the open pull request found. One the run opened gets its title, body
// and base; one someone else opened keeps theirs, and the run's text goes into its own section
// of the body, between a start tag and the marker, which is all a later run replaces.
func (c *Client) updatePR(ctx context.Context, s PRSpec, found *openPR) (PR, error) {
	tag, _ := markerTag(s.Marker)
	start := sectionStart(s.Marker)
	update := &github.PullRequest{}
	before, rest, adopted := strings.Cut(found.body, start)
	_, after, _ := strings.Cut(rest, tag)
	if !adopted && !Marked(found.body, s.Marker) {
		adopted, before = true, found.body // adopted now: the whole body is theirs
	}
	if adopted {
		body := start + "\n" + s.Body + "\n\n" + tag + after
		if b := strings.TrimRight(before, "\n"); b != "" {
			body = b + "\n\n" + body
		}
		update.Body = &body
	} else {
		body := withTag(s.Body, tag)
		update.Title, update.Body = &s.Title, &body
		if s.Base != "" {
			update.Base = &github.PullRequestBranch{Ref: &s.Base}
		}
	}
	p, _, err := c.gh.PullRequests.Edit(ctx, s.Owner, s.Repo, found.number, update)
	if err != nil {
		return PR{}, wrap(fmt.Sprintf("update pull request %s/%s#%d", s.Owner, s.Repo, found.number), err)
	}
	return PR{Number: p.GetNumber(), URL: p.GetHTMLURL(), Adopted: adopted}, nil
}
