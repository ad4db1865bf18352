package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"
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
		e.hint = forbidden(err, "the token may not look up collaborator permissions: the job's token is read-only in a pull_request run from a fork, whatever permissions: asks (start such runs from a label or comment instead, with pull_request_target or issue_comment); otherwise give the job the permissions a run needs, contents: write, issues: write and pull-requests: write (a permissions: block sets each one it leaves out to none); a GitHub App or fine-grained token needs the Metadata repository permission (read), a classic token the repo scope")
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

// forbidden is the hint for err when GitHub refused the request for the token's permissions
// (403; statusOf sees only GitHub's error answers, so a rate limit gets none): the permissions
// GitHub names in its X-Accepted-GitHub-Permissions header ("contents=read;
// issues=write,pull_requests=read": any one set will do), which it sends to Apps and
// fine-grained tokens, or else fallback; "" for any other error.
func forbidden(err error, fallback string) string {
	var resp *github.ErrorResponse
	if statusOf(err) != http.StatusForbidden || !errors.As(err, &resp) {
		return ""
	}
	var sets []string
	for _, set := range strings.Split(strings.TrimSpace(resp.Response.Header.Get("X-Accepted-GitHub-Permissions")), ";") {
		var perms []string
		for _, kv := range strings.Split(set, ",") {
			if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
				// The workflow's permissions: keys spell with "-" what Apps spell with "_".
				perms = append(perms, "`"+strings.ReplaceAll(k, "_", "-")+": "+v+"`")
			}
		}
		if len(perms) > 0 {
			sets = append(sets, strings.Join(perms, " and "))
		}
	}
	if len(sets) > 0 {
		return "GitHub says the look-up needs " + strings.Join(sets, ", or ") + "; grant it to github-token (for the job's token, in the workflow's permissions: block)"
	}
	return fallback
}
