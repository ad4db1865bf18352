// Package githubapi talks to GitHub's REST API for the Action: it upserts pull requests and
// comments found again by hidden markers (on an issue's conversation, or as replies in a
// review thread), reads pull requests, collaborator permissions and linked pull requests,
// reacts to the comment that started a run, and moves labels.
//
// It is the only importer of go-github, and no go-github type leaves it. Every request goes
// through a transport that waits out rate limits and brief outages within bounds, so callers
// see either a result or one clear error naming the operation and its object. The token is
// sent only as an Authorization header and never appears in an error.
package githubapi
