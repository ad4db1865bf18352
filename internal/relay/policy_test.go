package relay

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
)

var policy = Policy{Owner: "octo", Name: "repo"}

func gql(query string, vars map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return b
}

// ghIssueList is the document gh 2.23 sends for gh issue list --json number,title (abridged).
const ghIssueList = `query IssueList($owner: String!, $repo: String!, $limit: Int, $endCursor: String, $states: [IssueState!] = OPEN, $labels: [String!]) {
	repository(owner: $owner, name: $repo) {
		hasIssuesEnabled
		issues(first: $limit, after: $endCursor, orderBy: {field: CREATED_AT, direction: DESC}, states: $states, labels: $labels) {
			totalCount
			nodes { ...issue }
			pageInfo { hasNextPage endCursor }
		}
	}
}
fragment issue on Issue { number title }`

func TestPolicy(t *testing.T) {
	ours := map[string]any{"owner": "octo", "repo": "repo"}
	for _, tc := range []struct {
		name, method, path, query string
		body                      []byte
		want                      string // the upstream path; "" means refused
		why                       string // part of the refusal's reason
	}{
		{name: "issue", method: "GET", path: "/repos/octo/repo/issues/1", want: "/repos/octo/repo/issues/1"},
		{name: "enterprise prefix", method: "GET", path: "/api/v3/repos/octo/repo/pulls", want: "/repos/octo/repo/pulls"},
		{name: "any case", method: "HEAD", path: "/repos/Octo/REPO", want: "/repos/Octo/REPO"},
		{name: "rate limit", method: "GET", path: "/rate_limit", want: "/rate_limit"},
		{name: "search scoped", method: "GET", path: "/search/issues", query: "q=repo:octo/repo+is:open+label:bug", want: "/search/issues"},
		{name: "search quoted", method: "GET", path: "/search/issues", query: `q=repo:"octo/repo" "repo:other/x"`, want: "/search/issues"},

		{name: "post", method: "POST", path: "/repos/octo/repo/issues", why: "only reads pass"},
		{name: "patch close", method: "PATCH", path: "/repos/octo/repo/issues/1", why: "PATCH writes"},
		{name: "delete label", method: "DELETE", path: "/repos/octo/repo/issues/1/labels/bug", why: "DELETE writes"},
		{name: "put", method: "PUT", path: "/repos/octo/repo/pulls/1/merge", why: "PUT writes"},
		{name: "other repository", method: "GET", path: "/repos/octo/secret-repo/issues", why: "own resources"},
		{name: "repository by id", method: "GET", path: "/repositories/1/issues", why: "own resources"},
		{name: "user", method: "GET", path: "/user/repos", why: "own resources"},
		{name: "dot dot", method: "GET", path: "/repos/octo/repo/../../other/x/issues", why: ".. segment"},
		{name: "encoded slash", method: "GET", path: "/repos/octo%2Frepo/issues", why: "encoded /"},
		{name: "encoded dots", method: "GET", path: "/repos/octo/repo/%2e%2e/%2e%2e/other/x", why: ".. segment"},
		{name: "double slash", method: "GET", path: "/repos/octo/repo//issues", why: "empty"},
		{name: "secrets", method: "GET", path: "/repos/octo/repo/actions/secrets", why: "secrets"},
		{name: "variables", method: "GET", path: "/repos/octo/repo/actions/variables", why: "variables"},
		{name: "environment secrets", method: "GET", path: "/repos/octo/repo/environments/prod/secrets", why: "secrets"},
		{name: "hooks", method: "GET", path: "/repos/octo/repo/hooks", why: "hooks"},
		{name: "deploy keys", method: "GET", path: "/repos/octo/repo/keys", why: "keys"},
		{name: "search unscoped", method: "GET", path: "/search/issues", query: "q=is:open", why: "exactly one"},
		{name: "search another repo too", method: "GET", path: "/search/issues", query: "q=repo:octo/repo+repo:other/x", why: "only repo:octo/repo"},
		{name: "search or", method: "GET", path: "/search/code", query: "q=repo:octo/repo+OR+org:other", why: "only repo:octo/repo"},
		{name: "search excluded repo", method: "GET", path: "/search/issues", query: "q=repo:octo/repo+-repo:octo/repo", why: "only repo:octo/repo"},
		{name: "search users", method: "GET", path: "/search/users", query: "q=repo:octo/repo", why: "own resources"},

		{name: "gh issue list", method: "POST", path: "/api/graphql", body: gql(ghIssueList, ours), want: "/graphql"},
		{name: "introspection", method: "POST", path: "/graphql", body: gql(`query Issue_fields{Issue: __type(name: "Issue"){fields(includeDeprecated: true){name}}}`, nil), want: "/graphql"},
		{name: "literal args", method: "POST", path: "/graphql", body: gql(`{ repository(owner: "octo", name: "repo") { issue(number: 1) { title } } rateLimit { remaining } }`, nil), want: "/graphql"},
		{name: "variable default", method: "POST", path: "/graphql", body: gql(`query($o: String = "octo", $n: String = "repo") { repository(owner: $o, name: $n) { id } }`, nil), want: "/graphql"},
		{name: "scoped search", method: "POST", path: "/graphql", body: gql(`query($q: String!) { search(query: $q, type: ISSUE, first: 5) { issueCount } }`, map[string]any{"q": "repo:octo/repo is:open"}), want: "/graphql"},
		{name: "fragment at the top", method: "POST", path: "/graphql", body: gql(`query { ...top } fragment top on Query { repository(owner: "octo", name: "repo") { id } }`, nil), want: "/graphql"},

		{name: "mutation", method: "POST", path: "/graphql", body: gql(`mutation CloseIssue($input: CloseIssueInput!) { closeIssue(input: $input) { issue { id } } }`, nil), why: "mutation writes"},
		{name: "mutation after a query", method: "POST", path: "/graphql", body: gql(`query A { rateLimit { remaining } } mutation B { addComment(input: {subjectId: "x", body: "y"}) { clientMutationId } }`, nil), why: "mutation writes"},
		{name: "mutation named like a query", method: "POST", path: "/graphql", body: gql("# query\nmutation query { deleteIssue(input: {issueId: \"x\"}) { clientMutationId } }", nil), why: "mutation writes"},
		{name: "subscription", method: "POST", path: "/graphql", body: gql(`subscription { issueUpdated { id } }`, nil), why: "subscription writes"},
		{name: "mutation in a string does not count", method: "POST", path: "/graphql", body: gql(`{ repository(owner: "octo", name: "repo") { issue(number: 1) { body } } __typename }`+"\n# mutation { closeIssue }", nil), want: "/graphql"},
		{name: "another repository", method: "POST", path: "/graphql", body: gql(ghIssueList, map[string]any{"owner": "octo", "repo": "private"}), why: "not \"octo\"/\"private\""},
		{name: "repository without args", method: "POST", path: "/graphql", body: gql(`query($owner: String!) { repository(owner: $owner, name: "repo") { id } }`, nil), why: "repository(owner"},
		{name: "viewer", method: "POST", path: "/graphql", body: gql(`{ viewer { repositories(first: 100) { nodes { name } } } }`, nil), why: "not viewer"},
		{name: "node", method: "POST", path: "/graphql", body: gql(`{ node(id: "R_x") { id } }`, nil), why: "found by an earlier query"},
		{name: "aliased viewer", method: "POST", path: "/graphql", body: gql(`{ repository: viewer { login } }`, nil), why: "not viewer"},
		{name: "inline fragment hides a field", method: "POST", path: "/graphql", body: gql(`{ ... on Query { organization(login: "x") { id } } }`, nil), why: "not organization"},
		{name: "fragment cycle", method: "POST", path: "/graphql", body: gql(`{ ...a } fragment a on Query { ...a }`, nil), why: "spreads itself"},
		{name: "undefined fragment", method: "POST", path: "/graphql", body: gql(`{ ...nope }`, nil), why: "undefined fragment"},
		{name: "unscoped search", method: "POST", path: "/graphql", body: gql(`{ search(query: "is:open", type: ISSUE, first: 5) { issueCount } }`, nil), why: "exactly one"},
		{name: "not a document", method: "POST", path: "/graphql", body: gql(`mutation {`, nil), why: "does not parse"},
		{name: "not json", method: "POST", path: "/graphql", body: []byte(`query { viewer { login } }`), why: "not a GraphQL request"},
		{name: "batch", method: "POST", path: "/graphql", body: []byte(`[{"query": "{ __typename }"}]`), why: "not a GraphQL request"},
		{name: "empty", method: "POST", path: "/graphql", body: gql(``, nil), why: "no operation"},
		{name: "get graphql", method: "GET", path: "/graphql", query: "query=%7B__typename%7D", why: "takes POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := policy.Check(Request{Method: tc.method, Path: tc.path, Query: q, Body: tc.body})
			if tc.want != "" {
				if err != nil || got != tc.want {
					t.Fatalf("Check = %q, %v; want %q passed", got, err, tc.want)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("Check = %q, %v; want a refusal", got, err)
			}
			if !strings.Contains(r.Error(), tc.why) {
				t.Errorf("refusal %q does not say %q", r.Error(), tc.why)
			}
		})
	}
}
