package githubfake

import (
	"encoding/json"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// The fake's GraphQL is a small executor over plain values: an object is a map whose keys are
// field names, each a value or a resolver (a func of the field's arguments); "__typename" names
// its type for fragments. A field the object does not have is null, as a lenient server would
// answer, so documents written for the real schema run unchanged; no schema validates them.

// gqlObject is a GraphQL object.
type gqlObject = map[string]any

// gqlResolver computes a field from its arguments.
type gqlResolver = func(args map[string]any) any

// execGraphQL runs the request body against root and returns the JSON answer.
func execGraphQL(body []byte, root gqlObject) (any, bool) {
	var req struct {
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
		OperationName string         `json:"operationName"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return map[string]any{"message": "Problems parsing JSON"}, false
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil {
		return gqlErrors(err.Error()), true
	}
	var op *ast.OperationDefinition
	for _, o := range doc.Operations {
		if req.OperationName == "" || o.Name == req.OperationName {
			op = o
			break
		}
	}
	if op == nil {
		return gqlErrors("no operation " + strconv.Quote(req.OperationName)), true
	}
	if op.Operation != ast.Query {
		// The fake serves reads: a write reaching it is what the tests look for.
		return gqlErrors("the fake GitHub serves no GraphQL " + string(op.Operation)), true
	}
	x := &gqlExec{doc: doc, vars: req.Variables}
	for _, d := range op.VariableDefinitions {
		if _, ok := x.vars[d.Variable]; !ok && d.DefaultValue != nil {
			if x.vars == nil {
				x.vars = map[string]any{}
			}
			x.vars[d.Variable], _ = d.DefaultValue.Value(nil)
		}
	}
	return map[string]any{"data": x.object(op.SelectionSet, root)}, true
}

func gqlErrors(msg string) map[string]any {
	return map[string]any{"errors": []map[string]any{{"message": msg}}}
}

type gqlExec struct {
	doc  *ast.QueryDocument
	vars map[string]any
}

// object resolves set on obj into an ordered-enough map (JSON objects need no order).
func (x *gqlExec) object(set ast.SelectionSet, obj gqlObject) map[string]any {
	out := map[string]any{}
	x.into(out, set, obj)
	return out
}

func (x *gqlExec) into(out map[string]any, set ast.SelectionSet, obj gqlObject) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			v := obj[s.Name]
			if r, ok := v.(gqlResolver); ok {
				args := map[string]any{}
				for _, a := range s.Arguments {
					args[a.Name], _ = a.Value.Value(x.vars)
				}
				v = r(args)
			}
			out[key] = x.value(s.SelectionSet, v)
		case *ast.InlineFragment:
			if s.TypeCondition == "" || s.TypeCondition == obj["__typename"] {
				x.into(out, s.SelectionSet, obj)
			}
		case *ast.FragmentSpread:
			if f := x.doc.Fragments.ForName(s.Name); f != nil && (f.TypeCondition == obj["__typename"] || f.TypeCondition == "") {
				x.into(out, f.SelectionSet, obj)
			}
		}
	}
}

func (x *gqlExec) value(set ast.SelectionSet, v any) any {
	switch v := v.(type) {
	case gqlObject:
		if len(set) == 0 {
			return v
		}
		return x.object(set, v)
	case []gqlObject:
		out := make([]any, len(v))
		for i, o := range v {
			out[i] = x.value(set, o)
		}
		return out
	}
	return v
}

// gqlConnection is a connection of nodes, paged by first and after as GitHub does.
func gqlConnection(nodes []gqlObject, args map[string]any) gqlObject {
	start := 0
	if after, ok := args["after"].(string); ok && after != "" {
		if n, err := strconv.Atoi(after); err == nil {
			start = min(n, len(nodes))
		}
	}
	end := len(nodes)
	if first, ok := gqlInt(args["first"]); ok && first >= 0 {
		end = min(start+first, len(nodes))
	}
	if last, ok := gqlInt(args["last"]); ok && last >= 0 && args["first"] == nil {
		start = max(0, end-last)
	}
	page := nodes[start:end]
	return gqlObject{
		"totalCount": len(nodes),
		"nodes":      page,
		"edges": func() []gqlObject {
			edges := make([]gqlObject, len(page))
			for i, n := range page {
				edges[i] = gqlObject{"node": n, "cursor": strconv.Itoa(start + i + 1)}
			}
			return edges
		}(),
		"pageInfo": gqlObject{"hasNextPage": end < len(nodes), "hasPreviousPage": start > 0, "endCursor": strconv.Itoa(end), "startCursor": strconv.Itoa(start)},
	}
}

// gqlInt reads an Int argument: int64 when written in the document, float64 from the JSON of
// the variables.
func gqlInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case float64:
		return int(n), true
	}
	return 0, false
}
