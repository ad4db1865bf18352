package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Policy says which requests the relay forwards: reads of one repository.
type Policy struct {
	Owner, Name string
	// Known says whether a GraphQL node id is one of the repository's issues or pull requests,
	// which the relay saw in an earlier answer; nil knows none.
	Known func(id string) bool
}

// Kind is the API a request is for.
type Kind int

// The APIs.
const (
	REST Kind = iota
	GraphQL
)

// Request is a request as the sandbox sent it: Path is the escaped path (URL.EscapedPath), with
// or without GitHub Enterprise Server's /api/v3 prefix; RawQuery the query as written.
type Request struct {
	Method      string
	Path        string
	RawQuery    string
	ContentType string
	Body        []byte
}

// Checked is a request the policy lets through, rebuilt from the values it checked: all that
// the relay sends upstream, so that GitHub reads exactly what was judged, whatever else the
// sandbox's request held.
type Checked struct {
	Kind Kind
	// Path is the unescaped path upstream, without a prefix: /graphql for GraphQL.
	Path string
	// Query are REST's parameters, each given once.
	Query url.Values
	// Body is GraphQL's request, encoded anew from its checked query, variables and operation
	// name; nil for REST.
	Body []byte
}

// Refusal is a request the policy does not let through, and why.
type Refusal struct {
	Method, Path string
	Reason       string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("relay: %s %s refused: %s", r.Method, r.Path, r.Reason)
}

// readable are the resources of the repository the sandbox may read, by the shape of their path
// under /repos/OWNER/NAME: a word matches itself, {n} a number, {x} any one segment, and a last
// * one segment or more (a file's path, a ref, base...head). Everything else is refused: the
// repository's settings, secrets, variables, keys, hooks, environments, deployments,
// collaborators, and workflow logs and artifacts, which may hold what masking missed.
var readable = []string{
	"",
	"issues", "issues/{n}", "issues/{n}/comments", "issues/{n}/events", "issues/{n}/timeline", "issues/{n}/labels",
	"issues/comments", "issues/comments/{n}", "issues/events", "issues/events/{n}",
	"pulls", "pulls/{n}", "pulls/{n}/files", "pulls/{n}/commits", "pulls/{n}/reviews", "pulls/{n}/reviews/{n}",
	"pulls/{n}/reviews/{n}/comments", "pulls/{n}/comments", "pulls/comments", "pulls/comments/{n}",
	"commits", "commits/{x}", "commits/{x}/status", "commits/{x}/statuses", "commits/{x}/check-runs",
	"commits/{x}/check-suites", "commits/{x}/pulls", "compare/*",
	"contents", "contents/*", "readme", "readme/*",
	"git/trees/{x}", "git/blobs/{x}", "git/commits/{x}", "git/tags/{x}", "git/ref/*", "git/refs", "git/refs/*", "git/matching-refs/*",
	"branches", "branches/{x}", "tags", "labels", "labels/{x}", "milestones", "milestones/{n}",
	"releases", "releases/{n}", "releases/latest", "releases/tags/{x}",
	"check-runs/{n}", "check-runs/{n}/annotations", "check-suites/{n}", "check-suites/{n}/check-runs", "statuses/{x}",
	"actions/runs", "actions/runs/{n}", "actions/runs/{n}/jobs", "actions/runs/{n}/attempts/{n}",
	"actions/runs/{n}/attempts/{n}/jobs", "actions/jobs/{n}", "actions/workflows", "actions/workflows/{x}",
	"actions/workflows/{x}/runs",
	"languages", "contributors", "topics",
}

// isReadable says whether segs, the path's segments under the repository, has a shape of
// readable.
func isReadable(segs []string) bool {
	for _, shape := range readable {
		var want []string
		if shape != "" {
			want = strings.Split(shape, "/")
		}
		if matches(want, segs) {
			return true
		}
	}
	return false
}

func matches(shape, segs []string) bool {
	for i, w := range shape {
		if w == "*" && i == len(shape)-1 {
			return len(segs) > i
		}
		if i >= len(segs) {
			return false
		}
		switch w {
		case "{x}":
		case "{n}":
			if strings.Trim(segs[i], "0123456789") != "" {
				return false
			}
		default:
			if segs[i] != w {
				return false
			}
		}
	}
	return len(segs) == len(shape)
}

// searches are the REST searches that can be scoped to one repository with repo:.
var searches = []string{"issues", "code", "commits"}

// Check returns what to send upstream for r, rebuilt from what it checked, or a *Refusal saying
// why it may not pass.
func (p Policy) Check(r Request) (Checked, error) {
	refuse := func(format string, args ...any) (Checked, error) {
		return Checked{}, &Refusal{Method: r.Method, Path: r.Path, Reason: fmt.Sprintf(format, args...)}
	}
	path, err := cleanPath(r.Path)
	if err != nil {
		return refuse("%v", err)
	}
	if rest, ok := strings.CutPrefix(path, "/api/v3"); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
		path = rest
	}
	if path == "/graphql" || path == "/api/graphql" {
		if r.Method != http.MethodPost {
			return refuse("GraphQL takes POST")
		}
		if r.RawQuery != "" {
			return refuse("GraphQL takes no query parameters")
		}
		if mt, _, err := mime.ParseMediaType(r.ContentType); r.ContentType != "" && (err != nil || mt != "application/json") {
			return refuse("a GraphQL request is JSON, not %q", r.ContentType)
		}
		req, err := decodeGraphQL(r.Body)
		if err != nil {
			return refuse("%v", err)
		}
		if err := p.checkGraphQL(req); err != nil {
			return refuse("%v", err)
		}
		body, err := json.Marshal(req)
		if err != nil {
			return refuse("the GraphQL request does not encode again: %v", err)
		}
		return Checked{Kind: GraphQL, Path: "/graphql", Body: body}, nil
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return refuse("only reads pass (GET, HEAD, and GraphQL queries); %s writes", r.Method)
	}
	if len(r.Body) > 0 {
		return refuse("a read has no body")
	}
	query, err := parseQuery(r.RawQuery)
	if err != nil {
		return refuse("%v", err)
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case path == "/rate_limit":
		return Checked{Kind: REST, Path: path, Query: query}, nil
	case len(segs) == 2 && segs[0] == "search" && slices.Contains(searches, segs[1]):
		if err := p.checkSearch(query.Get("q")); err != nil {
			return refuse("%v", err)
		}
		return Checked{Kind: REST, Path: path, Query: query}, nil
	case len(segs) >= 3 && segs[0] == "repos" && p.ours(segs[1], segs[2]):
		if !isReadable(segs[3:]) {
			return refuse("%s is not on the relay's allow-list of what the sandbox may read of the repository (issues, pull requests, commits, contents, git objects, branches, tags, labels, milestones, releases, checks, statuses, workflow runs and jobs)", path)
		}
		return Checked{Kind: REST, Path: path, Query: query}, nil
	}
	return refuse("only %s/%s's own resources, searches scoped to it with repo:%[1]s/%[2]s, and rate_limit are readable", p.Owner, p.Name)
}

// paramName is what a REST parameter's name may be: GitHub's are lower case, and a name with
// brackets or another case would be read otherwise by GitHub than here.
var paramName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// parseQuery reads a REST query strictly: each parameter once, its name one of paramName's.
// A parameter given twice is read by GitHub as its last and by url.Values.Get as its first.
func parseQuery(raw string) (url.Values, error) {
	q := url.Values{}
	if raw == "" {
		return q, nil
	}
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("the query parameter %q does not decode: %v", k, err)
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("the value of the query parameter %q does not decode: %v", name, err)
		}
		if !paramName.MatchString(name) {
			return nil, fmt.Errorf("the query parameter %q is no name GitHub's API takes (lower case, digits and _)", name)
		}
		if q.Has(name) {
			return nil, fmt.Errorf("the query parameter %q is given more than once", name)
		}
		q.Set(name, value)
	}
	return q, nil
}

// graphQLRequest is what the relay reads of a GraphQL request, and all it sends on.
type graphQLRequest struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables,omitempty"`
	OperationName string         `json:"operationName,omitempty"`
}

// decodeGraphQL reads a GraphQL request strictly: one JSON object whose keys are query,
// variables and operationName, spelt so, each once. encoding/json matches keys in any case and
// keeps the last of a key given twice, where GitHub reads the exact key.
func decodeGraphQL(body []byte) (graphQLRequest, error) {
	var req graphQLRequest
	bad := func(format string, args ...any) (graphQLRequest, error) {
		return graphQLRequest{}, fmt.Errorf("the body is not a GraphQL request (one JSON object with query, and variables and operationName if any): "+format, args...)
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber() // variables go on as they came: an ID as a number keeps its digits
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return bad("it does not start with {")
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return bad("%v", err)
		}
		key, _ := t.(string)
		if seen[strings.ToLower(key)] {
			return bad("the key %q is given twice, in some case", key)
		}
		seen[strings.ToLower(key)] = true
		var target any
		switch key {
		case "query":
			target = &req.Query
		case "variables":
			target = &req.Variables
		case "operationName":
			target = &req.OperationName
		default:
			return bad("the key %q is none of these", key)
		}
		if err := d.Decode(target); err != nil {
			return bad("%s: %v", key, err)
		}
	}
	if _, err := d.Token(); err != nil {
		return bad("%v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return bad("more follows the object")
	}
	return req, nil
}

func (p Policy) ours(owner, name string) bool {
	return strings.EqualFold(owner, p.Owner) && strings.EqualFold(name, p.Name)
}

// cleanPath unescapes an escaped path, refusing what could name another resource once a server
// decodes or cleans it: encoded slashes and backslashes, dot segments, empty segments.
func cleanPath(escaped string) (string, error) {
	lower := strings.ToLower(escaped)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(escaped, `\`) {
		return "", fmt.Errorf("an encoded / or \\ in the path")
	}
	path, err := url.PathUnescape(escaped)
	if err != nil {
		return "", fmt.Errorf("the path does not decode: %v", err)
	}
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("the path is not absolute")
	}
	for _, s := range strings.Split(path[1:], "/") {
		if s == "" || s == "." || s == ".." {
			return "", fmt.Errorf("an empty, . or .. segment in the path")
		}
	}
	return path, nil
}

// checkSearch accepts a search query scoped to the repository: exactly one repo: qualifier,
// naming it, and none that widens or changes the scope (another repo:, org:, user:, owner:).
func (p Policy) checkSearch(q string) error {
	scoped := 0
	for _, term := range searchTerms(q) {
		t := strings.ToLower(strings.TrimLeft(term, "-"))
		for _, qual := range []string{"org:", "user:", "owner:", "repo:"} {
			v, ok := strings.CutPrefix(t, qual)
			if !ok {
				continue
			}
			if qual != "repo:" || strings.HasPrefix(term, "-") || !strings.EqualFold(strings.Trim(v, `"`), p.Owner+"/"+p.Name) {
				return fmt.Errorf("the search may name only repo:%s/%s, once (found %q)", p.Owner, p.Name, term)
			}
			scoped++
		}
	}
	if scoped != 1 {
		return fmt.Errorf("a search must be scoped to this repository with exactly one repo:%s/%s", p.Owner, p.Name)
	}
	return nil
}

// searchTerms splits a search query at spaces outside double quotes, as GitHub reads it.
func searchTerms(q string) []string {
	var terms []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if cur.Len() > 0 {
				terms = append(terms, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		terms = append(terms, cur.String())
	}
	return terms
}

// topLevel are the fields of GraphQL's Query type the sandbox may read beside repository and
// search: introspection (gh asks which fields a type has) and the rate limit.
var topLevel = []string{"__typename", "__type", "__schema", "rateLimit"}

// checkGraphQL parses a GraphQL request and accepts it when every operation of the document is
// a query whose top-level fields, through fragments too, read only this repository
// (repository with its owner and name), a search scoped to it, the rate limit or the schema.
func (p Policy) checkGraphQL(req graphQLRequest) error {
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil {
		return fmt.Errorf("the GraphQL document does not parse: %v", err)
	}
	if len(doc.Operations) == 0 {
		return fmt.Errorf("the GraphQL document has no operation")
	}
	for _, op := range doc.Operations {
		if op.Operation != ast.Query {
			return fmt.Errorf("a GraphQL %s writes; only queries pass", op.Operation)
		}
		c := &gqlCheck{p: p, doc: doc, vars: req.Variables, op: op, seen: map[string]bool{}}
		if err := c.selections(op.SelectionSet); err != nil {
			return err
		}
	}
	return nil
}

// gqlCheck walks the top level of one operation.
type gqlCheck struct {
	p    Policy
	doc  *ast.QueryDocument
	vars map[string]any
	op   *ast.OperationDefinition
	seen map[string]bool // fragments entered, against cycles
}

func (c *gqlCheck) selections(set ast.SelectionSet) error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if err := c.field(s); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := c.selections(s.SelectionSet); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			f := c.doc.Fragments.ForName(s.Name)
			if f == nil {
				return fmt.Errorf("the GraphQL document spreads an undefined fragment %q", s.Name)
			}
			if c.seen[s.Name] {
				return fmt.Errorf("the GraphQL fragment %q spreads itself", s.Name)
			}
			c.seen[s.Name] = true
			if err := c.selections(f.SelectionSet); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *gqlCheck) field(f *ast.Field) error {
	switch {
	case slices.Contains(topLevel, f.Name):
		return nil
	case f.Name == "repository":
		owner, name := c.arg(f, "owner"), c.arg(f, "name")
		if !c.p.ours(owner, name) {
			return fmt.Errorf("GraphQL may read repository(owner: %q, name: %q) only, not %q/%q", c.p.Owner, c.p.Name, owner, name)
		}
		return nil
	case f.Name == "search":
		return c.p.checkSearch(c.arg(f, "query"))
	case f.Name == "node":
		if id := c.arg(f, "id"); c.p.Known != nil && c.p.Known(id) {
			return nil
		}
		return fmt.Errorf("GraphQL may read node(id:) only for an issue or pull request of %s/%s found by an earlier query", c.p.Owner, c.p.Name)
	}
	return fmt.Errorf("GraphQL may read repository(owner: %q, name: %q), a search scoped to it, rateLimit and the schema; not %s", c.p.Owner, c.p.Name, f.Name)
}

// arg is the string value of f's argument name, a literal or a variable (given or defaulted);
// "" when it has none.
func (c *gqlCheck) arg(f *ast.Field, name string) string {
	for _, a := range f.Arguments {
		if a.Name != name || a.Value == nil {
			continue
		}
		v := a.Value
		switch v.Kind {
		case ast.StringValue, ast.BlockValue:
			return v.Raw
		case ast.Variable:
			if s, ok := c.vars[v.Raw].(string); ok {
				return s
			}
			if d := c.op.VariableDefinitions.ForName(v.Raw); d != nil && d.DefaultValue != nil && d.DefaultValue.Kind == ast.StringValue {
				return d.DefaultValue.Raw
			}
		}
	}
	return ""
}
