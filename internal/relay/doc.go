// Package relay serves the sandbox a read-only view of the GitHub API for the run's repository,
// from the host, so that the agent and the prompt's commands can read issues and pull requests
// (gh issue list, gh api, curl) without ever holding a token.
//
// The relay listens on a Unix socket in a directory of its own, which the Docker sandbox gets
// as a read-only bind mount: no network is needed between the two (it works with network:
// none), no port is open to other containers, and TLS is not needed, since gh dials the socket
// for https URLs too (its http_unix_socket setting); curl is given an http URL. Each request is
// judged by Policy before it leaves the host: REST reads (GET, HEAD) of the resources of this
// repository on an allow-list and searches scoped to it, and GraphQL queries, parsed, whose
// every operation is a query and whose top-level fields read this repository; everything else
// is refused with 403 and logged. What passes is sent to GitHub rebuilt from what was checked
// (the path escaped anew, the parameters, a GraphQL body encoded anew), never as it came, since
// GitHub may read the sandbox's bytes otherwise than the policy did; it goes with the run's
// token, which the relay adds and the sandbox never sees (the token the sandbox's gh sends is a
// dummy, dropped here). A budget bounds how many requests one run may forward, and a reserve of
// GitHub's rate limit is kept for the run's own writes.
package relay
