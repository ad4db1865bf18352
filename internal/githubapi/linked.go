package githubapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
)

// LinkedPR is an open pull request that references an issue.
type LinkedPR struct {
	Number int
	URL    string
	Author string
	// AuthorAssociation is GitHub's relation of the author to the repository: OWNER,
	// MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, NONE, ...
	AuthorAssociation string
	// Body is the pull request's description, where a run's marker would be.
	Body string
}

// OpenLinkedPRs returns the open pull requests of owner/repo that reference issue, found
// through the cross-referenced events of its timeline, oldest reference first.
func (c *Client) OpenLinkedPRs(ctx context.Context, owner, repo string, issue int) ([]LinkedPR, error) {
	var linked []LinkedPR
	seen := map[int]bool{}
	opts := &github.ListOptions{PerPage: 100}
	for {
		events, resp, err := c.gh.Issues.ListIssueTimeline(ctx, owner, repo, issue, opts)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list timeline of %s/%s#%d", owner, repo, issue), err)
		}
		for _, ev := range events {
			src := ev.GetSource().GetIssue()
			if ev.GetEvent() != "cross-referenced" || src == nil || !src.IsPullRequest() ||
				src.GetState() != "open" || !sameRepo(src, owner, repo) || seen[src.GetNumber()] {
				continue
			}
			seen[src.GetNumber()] = true
			linked = append(linked, LinkedPR{
				Number:            src.GetNumber(),
				URL:               src.GetHTMLURL(),
				Author:            src.GetUser().GetLogin(),
				AuthorAssociation: src.GetAuthorAssociation(),
				Body:              src.GetBody(),
			})
		}
		if resp.NextPage == 0 {
			return linked, nil
		}
		opts.Page = resp.NextPage
	}
}

// sameRepo reports whether issue belongs to owner/repo. Pull requests from forks into this
// repository belong to it; a pull request in another repository does not compete.
func sameRepo(issue *github.Issue, owner, repo string) bool {
	want := owner + "/" + repo
	if name := issue.GetRepository().GetFullName(); name != "" {
		return strings.EqualFold(name, want)
	}
	return strings.HasSuffix(strings.ToLower(issue.GetRepositoryURL()), "/repos/"+strings.ToLower(want))
}
