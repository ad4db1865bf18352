package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// patch changes main.go: line 2 replaced (old 2 → new 2, 3), a line added after old 4; a second
// hunk from line 20.
const patch = `@@ -1,4 +1,5 @@
 package main
-import "fmt"
+import (
+	"fmt"
+)
 func main() {
@@ -20,3 +21,2 @@ func other() {
 	a := 1
-	b := 2
 	return
\ No newline at end of file`

func TestDiffLines(t *testing.T) {
	lines := DiffLines([]File{{Path: "main.go", Patch: patch}, {Path: "logo.png"}})
	var got []string
	for _, side := range []string{"LEFT", "RIGHT"} {
		for n := range 30 {
			if lines.Has(Comment{Path: "main.go", Side: side, Line: n}) {
				got = append(got, fmt.Sprintf("%s %d", side, n))
			}
		}
	}
	want := []string{"LEFT 1", "LEFT 2", "LEFT 3", "LEFT 20", "LEFT 21", "LEFT 22",
		"RIGHT 1", "RIGHT 2", "RIGHT 3", "RIGHT 4", "RIGHT 5", "RIGHT 21", "RIGHT 22"}
	if !slices.Equal(got, want) {
		t.Errorf("commentable lines = %v\nwant %v", got, want)
	}
	if lines.Has(Comment{Path: "logo.png", Side: "RIGHT", Line: 1}) || lines.Has(Comment{Path: "other.go", Side: "RIGHT", Line: 1}) {
		t.Error("a file without a patch, or not in the diff, has lines")
	}
}

func suggest(s string) *string { return &s }

var output = Output{
	Summary: "Two issues, one outside the diff.",
	Comments: []Comment{
		{Path: "main.go", Line: 3, Side: "RIGHT", Body: "Group the imports."},
		{Path: "main.go", Line: 2, Side: "LEFT", Body: "This import was used below."},
		{Path: "main.go", Line: 10, Side: "RIGHT", Body: "Not in the diff: rename `x`.", Suggestion: suggest("y := 1 // ``` fenced")},
		{Path: "README.md", Line: 1, Side: "RIGHT", Body: "A file the pull request does not change."},
		{Path: "main.go", Line: 3, Side: "RIGHT", Body: "Group the imports."}, // the same again
	},
}

func TestBuild(t *testing.T) {
	files := []File{{Path: "main.go", Patch: patch}}
	p := Build(output, files, nil)
	if len(p.Inline) != 2 || len(p.Moved) != 2 || p.Repeated != 1 || p.SummaryPosted || p.Nothing() {
		t.Fatalf("plan: %d inline, %d moved, %d repeated, summary posted %v; want 2, 2, 1, false", len(p.Inline), len(p.Moved), p.Repeated, p.SummaryPosted)
	}
	var rendered strings.Builder
	for _, c := range p.Comments() {
		fmt.Fprintf(&rendered, "== %s %s %d\n%s\n", c.Path, c.Side, c.Line, c.Body)
	}
	fmt.Fprintf(&rendered, "== body\n%s\n", p.Body())
	testkit.Golden(t, "testdata/review.md", []byte(rendered.String()))

	// A re-run finds its markers in what it posted and repeats nothing.
	posted := []string{p.Body()}
	for _, c := range p.Comments() {
		posted = append(posted, c.Body)
	}
	again := Build(output, files, posted)
	if !again.Nothing() || again.Repeated != 5 {
		t.Errorf("re-run: %+v; want nothing new, 5 repeated", again)
	}

	// A new comment on a re-run is posted; the old ones are not.
	more := output
	more.Comments = append(slices.Clone(output.Comments), Comment{Path: "main.go", Line: 4, Side: "RIGHT", Body: "New."})
	next := Build(more, files, posted)
	if len(next.Inline) != 1 || next.Inline[0].Body != "New." || len(next.Moved) != 0 {
		t.Errorf("re-run with a new comment: %+v", next)
	}

	flat := p.Flat()
	if len(flat.Inline) != 0 || len(flat.Moved) != 4 || !strings.Contains(flat.Body(), "Group the imports.") {
		t.Errorf("Flat: %d inline, %d moved", len(flat.Inline), len(flat.Moved))
	}
}

func TestSchemaAndParse(t *testing.T) {
	s, err := structured.CompileSchema([]byte(Schema))
	if err != nil {
		t.Fatal(err)
	}
	spec := structured.Spec{Tag: "result", Kind: structured.Object, Schema: s}
	v, err := structured.Extract(`<result>{"summary": "ok", "comments": [{"path": "a.go", "line": 3, "body": "x", "suggestion": "y"}]}</result>`, spec)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parse(v.JSON)
	if err != nil || o.Comments[0].Side != "RIGHT" || *o.Comments[0].Suggestion != "y" {
		t.Errorf("Parse = %+v, %v; want the default side RIGHT and the suggestion", o, err)
	}
	for _, bad := range []string{`{"comments": []}`, `{"summary": "x", "comments": [{"path": "a", "line": 0, "body": "b"}]}`, `{"summary": "x", "comments": [{"path": "a", "line": 1, "body": "b", "side": "UP"}]}`} {
		if _, err := structured.Extract("<result>"+bad+"</result>", spec); err == nil {
			t.Errorf("%s passed the schema", bad)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"a.go": "`a.go`", "a`b": "``a`b``", "`x": "`` `x ``", "a\nb": "`a b`"} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q; want %q", in, got, want)
		}
	}
}
