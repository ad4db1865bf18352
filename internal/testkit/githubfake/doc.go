// Package githubfake is a stateful fake of the GitHub REST API under /api/v3 and of the GraphQL
// queries Sandcastle makes, in the style of go-github's own tests: the one fake of the suite,
// since the real API cannot run in tests. NewGitHub starts it for one token and repository; a
// test seeds issues, pull requests, comments and reviews (AddIssue, AddPR, AddComment, ...),
// injects failures (FailNext, RateLimitNext, ForbidNext, ...) and reads back what the client
// wrote (Writes, Bodies, Calls).
package githubfake
