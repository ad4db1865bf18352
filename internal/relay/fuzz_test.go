package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// FuzzRelayForwards sends mutated requests through the relay's handler and reads back every
// request that reached GitHub's stand-in with a strict parser of its own (forwardedWrong),
// which shares no code with the policy: whatever the sandbox sends, GitHub receives only reads
// of octo/repo.
func FuzzRelayForwards(f *testing.F) {
	for _, s := range [][4]string{
		{"POST", "/graphql", "application/json", `{"query":"mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","Query":"{ rateLimit { limit } }"}`},
		{"POST", "/graphql", "application/json", `{"QUERY":"{ rateLimit { limit } }","query":"mutation { addComment(input: {subjectId: \"I_1\", body: \"x\"}) { clientMutationId } }"}`},
		{"POST", "/graphql", "application/json", `{"query":"query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }","variables":{"o":"victim","n":"x"},"Variables":{"o":"octo","n":"repo"}}`},
		{"POST", "/graphql", "application/json", `{"query":"mutation { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","query":"{ rateLimit { limit } }"}`},
		{"POST", "/api/graphql", "application/x-www-form-urlencoded", `query=mutation+%7B+closeIssue%28input%3A+%7BissueId%3A+%22I_1%22%7D%29+%7B+clientMutationId+%7D+%7D`},
		{"POST", "/graphql", "text/plain", `{"query":"{ rateLimit { limit } }","extensions":{}}`},
		{"POST", "/graphql", "application/json", `{"query":"query A { rateLimit { limit } } mutation B { closeIssue(input: {issueId: \"I_1\"}) { clientMutationId } }","operationName":"B"}`},
		{"POST", "/graphql", "application/json", `{"qu\u0065ry":"mutation { x }","query":"{ __typename }"}`},
		{"POST", "/graphql", "application/json", "{\"query\":\"{ repository(owner: \\\"octo\\\", name: \\\"repo\\\") { issue(number: 1) { title } } }\",\"variables\":null}"},
		{"GET", "/search/issues?q=repo:octo/repo&q=repo:victim/x", "", ""},
		{"GET", "/search/issues?q=repo:victim/x&Q=repo:octo/repo", "", ""},
		{"GET", "/search/issues?q=repo%3Aocto%2Frepo+is%3Aopen&per_page=5", "", ""},
		{"GET", "/search/code?q=repo:octo/repo;q=repo:victim/x", "", ""},
		{"GET", "/repos/octo/repo/issues?state=all&state=closed", "", ""},
		{"GET", "/repos/octo/repo/actions/organization-secrets", "", ""},
		{"GET", "/repos/octo/repo/actions/organization-variables", "", ""},
		{"GET", "/api/v3/repos/octo/repo/contents/a%3Fq=repo:victim%23x?ref=main", "", ""},
		{"GET", "/repos/octo/repo/contents/docs/README.md", "", "a body"},
		{"HEAD", "/repos/OCTO/Repo/pulls/1/files?page=2", "", ""},
		{"GET", "/repos/octo/repo/git/refs/heads/main", "", ""},
		{"GET", "/repos/octo/repo/actions/runs/1/logs", "", ""},
		{"GET", "/repos/octo/repo/%2e%2e/victim/issues", "", ""},
	} {
		f.Add(s[0], s[1], s[2], []byte(s[3]))
	}
	u := newUpstream(f)
	r := relayTo(f, u)
	f.Fuzz(func(t *testing.T, method, target, contentType string, body []byte) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \t\r\n#") {
			return // not a request line an HTTP client sends
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return
		}
		if !slices.Contains([]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}, method) {
			return
		}
		req, err := http.NewRequest(method, "http://api.github.com"+target, bytes.NewReader(body))
		if err != nil {
			return
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		w := &discard{header: http.Header{}}
		r.ServeHTTP(w, req)
		for _, g := range u.take() {
			if why := forwardedWrong(g); why != "" {
				t.Errorf("%s %s (%q) %q reached GitHub as %s %s (%q) %q: %s", method, target, contentType, body, g.Method, g.URI, g.ContentType, g.Body, why)
			}
		}
	})
}

// discard is a ResponseWriter that keeps nothing: the fuzz target looks at what reached GitHub.
type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// The oracle below reads a request as GitHub would, on its own terms: it is deliberately not the
// policy's code, so that a mistake in one is caught by the other.

// forwardedWrong says why a request GitHub received is not a read of octo/repo the relay means
// to let through; "" when it is one.
func forwardedWrong(g got) string {
	u, err := url.ParseRequestURI(g.URI)
	if err != nil {
		return fmt.Sprintf("the URI does not parse: %v", err)
	}
	switch g.Method {
	case http.MethodGet, http.MethodHead:
		if len(g.Body) != 0 {
			return "a read with a body"
		}
		return restWrong(u)
	case http.MethodPost:
		if u.EscapedPath() != "/graphql" || u.RawQuery != "" {
			return "a POST elsewhere than /graphql"
		}
		if mt, _, _ := mime.ParseMediaType(g.ContentType); mt != "application/json" {
			return "a GraphQL body that is not application/json"
		}
		return graphQLWrong(g.Body)
	}
	return "a method that writes"
}

// okResources are the first segments under /repos/octo/repo that the oracle lets through.
var okResources = []string{"issues", "pulls", "commits", "compare", "contents", "readme", "git", "branches", "tags",
	"labels", "milestones", "releases", "check-runs", "check-suites", "statuses", "actions", "languages", "contributors"}

func restWrong(u *url.URL) string {
	params := map[string]string{}
	for _, kv := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		k, err := url.QueryUnescape(k)
		if err != nil {
			return "a parameter's name does not decode"
		}
		v, err = url.QueryUnescape(v)
		if err != nil {
			return "a parameter's value does not decode"
		}
		for seen := range params {
			if strings.EqualFold(seen, k) {
				return fmt.Sprintf("the parameter %q is given twice", k)
			}
		}
		params[k] = v
	}
	escaped := u.EscapedPath()
	if l := strings.ToLower(escaped); strings.Contains(l, "%2f") || strings.Contains(l, "%5c") || strings.Contains(l, "%2e") {
		return "an encoded /, \\ or . in the path"
	}
	segs := strings.Split(strings.TrimPrefix(escaped, "/"), "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "an empty, . or .. segment"
		}
	}
	switch {
	case escaped == "/rate_limit":
		return ""
	case len(segs) == 2 && segs[0] == "search" && slices.Contains([]string{"issues", "code", "commits"}, segs[1]):
		return searchWrong(params["q"])
	case len(segs) < 3 || segs[0] != "repos" || !strings.EqualFold(segs[1], "octo") || !strings.EqualFold(segs[2], "repo"):
		return "not octo/repo"
	case len(segs) == 3:
		return ""
	case !slices.Contains(okResources, segs[3]):
		return fmt.Sprintf("the resource %q", segs[3])
	}
	for _, s := range segs[3:] {
		l := strings.ToLower(s)
		for _, bad := range []string{"secret", "variable", "key", "hook", "invitation", "logs", "artifact", "cache"} {
			if strings.Contains(l, bad) {
				return fmt.Sprintf("the segment %q", s)
			}
		}
	}
	if segs[3] == "actions" && (len(segs) < 5 || !slices.Contains([]string{"runs", "jobs", "workflows"}, segs[4])) {
		return "actions beyond runs, jobs and workflows"
	}
	return ""
}

func searchWrong(q string) string {
	scoped := 0
	for _, term := range strings.Fields(strings.ToLower(q)) {
		term = strings.Trim(strings.TrimLeft(term, "-"), `"`)
		for _, qual := range []string{"org:", "user:", "owner:", "repo:"} {
			if v, ok := strings.CutPrefix(term, qual); ok {
				if qual != "repo:" || strings.Trim(v, `"`) != "octo/repo" {
					return fmt.Sprintf("a search naming %s", term)
				}
				scoped++
			}
		}
	}
	if scoped != 1 {
		return "a search not scoped to repo:octo/repo once"
	}
	return ""
}

// graphQLWrong reads a GraphQL body by exact keys, as GitHub does, refusing what it cannot read
// one way only.
func graphQLWrong(body []byte) string {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "not a JSON object"
	}
	var query string
	vars := map[string]any{}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "a bad key"
		}
		k := t.(string)
		if seen[strings.ToLower(k)] {
			return fmt.Sprintf("the key %q twice", k)
		}
		seen[strings.ToLower(k)] = true
		switch k {
		case "query":
			if err := d.Decode(&query); err != nil {
				return "a query that is not a string"
			}
		case "variables":
			if err := d.Decode(&vars); err != nil {
				return "variables that are not an object"
			}
		case "operationName":
			var s *string
			if err := d.Decode(&s); err != nil {
				return "an operationName that is not a string"
			}
		default:
			return fmt.Sprintf("the key %q", k)
		}
	}
	if _, err := d.Token(); err != nil {
		return "the object does not end"
	}
	if _, err := d.Token(); err == nil {
		return "more after the object"
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil || len(doc.Operations) == 0 {
		return "a query that does not parse"
	}
	for _, op := range doc.Operations {
		if op.Operation != ast.Query {
			return fmt.Sprintf("a %s", op.Operation)
		}
		if why := topWrong(doc, op, vars, op.SelectionSet, 0); why != "" {
			return why
		}
	}
	return ""
}

// topWrong checks the top-level fields of one operation, through its fragments.
func topWrong(doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any, set ast.SelectionSet, depth int) string {
	if depth > 20 {
		return "fragments too deep"
	}
	arg := func(f *ast.Field, name string) string {
		a := f.Arguments.ForName(name)
		if a == nil {
			return ""
		}
		if a.Value.Kind == ast.Variable {
			if s, ok := vars[a.Value.Raw].(string); ok {
				return s
			}
			if d := op.VariableDefinitions.ForName(a.Value.Raw); d != nil && d.DefaultValue != nil {
				return d.DefaultValue.Raw
			}
			return ""
		}
		return a.Value.Raw
	}
	for _, sel := range set {
		var why string
		switch s := sel.(type) {
		case *ast.Field:
			switch s.Name {
			case "__typename", "__type", "__schema", "rateLimit", "node":
			case "repository":
				if !strings.EqualFold(arg(s, "owner"), "octo") || !strings.EqualFold(arg(s, "name"), "repo") {
					why = fmt.Sprintf("repository %s/%s", arg(s, "owner"), arg(s, "name"))
				}
			case "search":
				why = searchWrong(arg(s, "query"))
			default:
				why = fmt.Sprintf("the field %s", s.Name)
			}
		case *ast.InlineFragment:
			why = topWrong(doc, op, vars, s.SelectionSet, depth+1)
		case *ast.FragmentSpread:
			fr := doc.Fragments.ForName(s.Name)
			if fr == nil {
				return "an undefined fragment"
			}
			why = topWrong(doc, op, vars, fr.SelectionSet, depth+1)
		}
		if why != "" {
			return why
		}
	}
	return ""
}
