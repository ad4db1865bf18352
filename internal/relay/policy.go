package relay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
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
// or without GitHub Enterprise Server's /api/v3 prefix.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   []byte // GraphQL's JSON document; ignored for REST
}

// Refusal is a request the policy does not let through, and why.
type Refusal struct {
	Method, Path string
	Reason       string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("relay: %s %s refused: %s", r.Method, r.Path, r.Reason)
}

// deniedSegments are parts of a repository's API that hold credentials or their settings:
// readable with some tokens, and never the agent's business.
var deniedSegments = []string{"secrets", "variables", "hooks", "keys", "invitations", "secret-scanning"}

// searches are the REST searches that can be scoped to one repository with repo:.
var searches = []string{"issues", "code", "commits"}

// Check returns the API r is for and the path to send upstream (without a prefix), or a
// *Refusal saying why it may not pass.
func (p Policy) Check(r Request) (Kind, string, error) {
	refuse := func(format string, args ...any) (Kind, string, error) {
		return 0, "", &Refusal{Method: r.Method, Path: r.Path, Reason: fmt.Sprintf(format, args...)}
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
		if err := p.checkGraphQL(r.Body); err != nil {
			return refuse("%v", err)
		}
		return GraphQL, "/graphql", nil
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return refuse("only reads pass (GET, HEAD, and GraphQL queries); %s writes", r.Method)
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case path == "/rate_limit":
		return REST, path, nil
	case len(segs) == 2 && segs[0] == "search" && slices.Contains(searches, segs[1]):
		if err := p.checkSearch(r.Query.Get("q")); err != nil {
			return refuse("%v", err)
		}
		return REST, path, nil
	case len(segs) >= 3 && segs[0] == "repos" && p.ours(segs[1], segs[2]):
		for _, s := range segs[3:] {
			if slices.Contains(deniedSegments, strings.ToLower(s)) {
				return refuse("the repository's %s are not readable from the sandbox", s)
			}
		}
		return REST, path, nil
	}
	return refuse("only %s/%s's own resources, searches scoped to it with repo:%[1]s/%[2]s, and rate_limit are readable", p.Owner, p.Name)
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
func (p Policy) checkGraphQL(body []byte) error {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("the body is not a GraphQL request (a JSON object with a query): %v", err)
	}
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
