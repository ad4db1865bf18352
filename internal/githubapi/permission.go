package githubapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Permission returns user's role on owner/repo: admin, maintain, write, triage, read or
// none. A user GitHub does not know as a collaborator (404) has none.
func (c *Client) Permission(ctx context.Context, owner, repo, user string) (string, error) {
	path := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", owner, repo, url.PathEscape(user))
	// go-github v62 drops role_name, the only field that tells maintain from write and
	// triage from read.
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &level); err != nil {
		if statusOf(err) == http.StatusNotFound {
			return "none", nil
		}
		e := wrap(fmt.Sprintf("get permission of %s in %s/%s", user, owner, repo), err)
		// statusOf sees only GitHub's error answers, so a rate-limit 403 gets no hint.
		if statusOf(err) == http.StatusForbidden {
			e.hint = "the token may not read collaborator permissions: a GitHub App or fine-grained token needs the \"Metadata\" repository permission (read), a classic token the repo scope"
		}
		return "", e
	}
	switch level.RoleName {
	case "admin", "maintain", "write", "triage", "read":
		return level.RoleName, nil
	}
	// A custom role is reported by name; its base role is in the legacy field.
	switch level.Permission {
	case "admin", "write", "read":
		return level.Permission, nil
	}
	return "none", nil
}
