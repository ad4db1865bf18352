package relay

import (
	"encoding/json"
	"errors"
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
		{name: "secrets", method: "GET", path: "/repos/octo/repo/actions/secrets", why: "allow-list"},
		{name: "variables", method: "GET", path: "/repos/octo/repo/actions/variables", why: "allow-list"},
		{name: "environment secrets", method: "GET", path: "/repos/octo/repo/environments/prod/secrets", why: "allow-list"},
		{name: "hooks", method: "GET", path: "/repos/octo/repo/hooks", why: "allow-list"},
		{name: "deploy keys", method: "GET", path: "/repos/octo/repo/keys", why: "allow-list"},
		{name: "organization secrets", method: "GET", path: "/repos/octo/repo/actions/organization-secrets", why: "/repos/octo/repo/actions/organization-secrets is not on the relay's allow-list"},
		{name: "organization variables", method: "GET", path: "/repos/octo/repo/actions/organization-variables", why: "allow-list"},
		{name: "workflow logs", method: "GET", path: "/repos/octo/repo/actions/runs/1/logs", why: "allow-list"},
		{name: "branch protection", method: "GET", path: "/repos/octo/repo/branches/main/protection", why: "allow-list"},
		{name: "a resource in another case", method: "GET", path: "/repos/octo/repo/Issues", why: "allow-list"},
		{name: "an issue by a name", method: "GET", path: "/repos/octo/repo/issues/x", why: "allow-list"},
		{name: "a file", method: "GET", path: "/repos/octo/repo/contents/docs/a%20b.md", query: "ref=main", want: "/repos/octo/repo/contents/docs/a b.md"},
		{name: "a run's jobs", method: "GET", path: "/repos/octo/repo/actions/runs/12/jobs", want: "/repos/octo/repo/actions/runs/12/jobs"},
		{name: "compare", method: "GET", path: "/repos/octo/repo/compare/main...feature/x", want: "/repos/octo/repo/compare/main...feature/x"},
		{name: "a parameter twice", method: "GET", path: "/repos/octo/repo/issues", query: "state=open&state=closed", why: `"state" is given more than once`},
		{name: "a parameter in brackets", method: "GET", path: "/repos/octo/repo/issues", query: "labels[]=bug", why: "no name GitHub's API takes"},
		{name: "a read with a body", method: "GET", path: "/repos/octo/repo/issues", body: []byte("x"), why: "no body"},
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
		{name: "query and Query", method: "POST", path: "/graphql", body: []byte(`{"query":"mutation { x }","Query":"{ __typename }"}`), why: `"Query" is given twice`},
		{name: "unknown key", method: "POST", path: "/graphql", body: []byte(`{"query":"{ __typename }","extensions":{}}`), why: `"extensions" is none of these`},
		{name: "trailing", method: "POST", path: "/graphql", body: []byte(`{"query":"{ __typename }"} {"query":"mutation { x }"}`), why: "more follows"},
		{name: "graphql parameters", method: "POST", path: "/graphql", query: "query=mutation", body: gql(`{ __typename }`, nil), why: "no query parameters"},
		{name: "get graphql", method: "GET", path: "/graphql", query: "query=%7B__typename%7D", why: "takes POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := policy.Check(Request{Method: tc.method, Path: tc.path, RawQuery: tc.query, Body: tc.body})
			got := c.Path
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

// TestPolicyGraphQLContentType: a GraphQL body is JSON, said so or not said; a form is refused.
func TestPolicyGraphQLContentType(t *testing.T) {
	for ct, ok := range map[string]bool{"": true, "application/json": true, "application/json; charset=utf-8": true,
		"application/x-www-form-urlencoded": false, "text/plain": false, "multipart/form-data; boundary=x": false} {
		_, err := policy.Check(Request{Method: "POST", Path: "/graphql", ContentType: ct, Body: gql(`{ __typename }`, nil)})
		if (err == nil) != ok {
			t.Errorf("Content-Type %q: %v; want passed %v", ct, err, ok)
		}
	}
}
