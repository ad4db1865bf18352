package githubapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// AddLabels adds labels to owner/repo#issue; labels it already has are kept.
func (c *Client) AddLabels(ctx context.Context, owner, repo string, issue int, labels ...string) error {
	if len(labels) == 0 {
		return nil
	}
	if _, _, err := c.gh.Issues.AddLabelsToIssue(ctx, owner, repo, issue, labels); err != nil {
		return wrap(fmt.Sprintf("add labels %q to %s/%s#%d", labels, owner, repo, issue), err)
	}
	return nil
}

// RemoveLabel removes label from owner/repo#issue; a label that is not there is no error,
// so the label state machine can always ask for the state it wants.
func (c *Client) RemoveLabel(ctx context.Context, owner, repo string, issue int, label string) error {
	// go-github v62 puts the label into the path unescaped; "needs review" or "a/b" would
	// address another resource.
	path := fmt.Sprintf("repos/%s/%s/issues/%d/labels/%s", owner, repo, issue, url.PathEscape(label))
	err := c.do(ctx, http.MethodDelete, path, nil, nil)
	if err == nil || statusOf(err) == http.StatusNotFound {
		return nil
	}
	return wrap(fmt.Sprintf("remove label %q from %s/%s#%d", label, owner, repo, issue), err)
}
