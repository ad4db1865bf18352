package fanout

import (
	"strings"
	"testing"
)

// TestMatrix: a plan of three tasks is the include list strategy.matrix reads, each task on its
// branch under the plan's id, its args put in its prompt once; none is an empty include.
func TestMatrix(t *testing.T) {
	p, err := Parse([]byte(`{"plan_id":"docs-pass","tasks":[
		{"id":"readme","title":"Fix the README","prompt":"Fix {{WHAT}} in {{WHERE}}.","prompt_args":{"WHAT":"typos {{WHERE}}","WHERE":"the intro"}},
		{"id":"api-docs","title":"Document the API","prompt":"Document it."},
		{"id":"faq","title":"Write a FAQ","prompt":"Write one."}]}`), "run-1")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"include":[` +
		`{"task":"readme","title":"Fix the README","branch":"sandcastle/docs-pass/readme","prompt":"Fix typos {{WHERE}} in the intro."},` +
		`{"task":"api-docs","title":"Document the API","branch":"sandcastle/docs-pass/api-docs","prompt":"Document it."},` +
		`{"task":"faq","title":"Write a FAQ","branch":"sandcastle/docs-pass/faq","prompt":"Write one."}]}`
	if got := p.Matrix(); got != want {
		t.Errorf("matrix\n%s\nwant\n%s", got, want)
	}
	empty, err := Parse([]byte(`{"tasks":[]}`), "run-7")
	if err != nil || empty.ID != "run-7" || empty.Matrix() != `{"include":[]}` {
		t.Errorf("empty plan %+v, %v, matrix %s; want run-7 and no include", empty, err, empty.Matrix())
	}
}

// TestParseRefuses: what would make a bad branch, two tasks on one branch, a command in a
// child's prompt or an arg the child cannot read is refused, naming it.
func TestParseRefuses(t *testing.T) {
	for _, tt := range []struct{ name, output, want string }{
		{"duplicate", `{"tasks":[{"id":"a","title":"A","prompt":"p"},{"id":"a","title":"B","prompt":"q"}]}`, `task 2 id "a" is given twice`},
		{"bad_id", `{"tasks":[{"id":"../main","title":"A","prompt":"p"}]}`, `task 1 id "../main" is not a slug`},
		{"upper_id", `{"tasks":[{"id":"Fix","title":"A","prompt":"p"}]}`, `task 1 id "Fix" is not a slug`},
		{"bad_plan_id", `{"plan_id":"a..b","tasks":[]}`, `plan_id "a..b" is not a slug`},
		{"command", `{"tasks":[{"id":"a","title":"A","prompt":"Run !` + "`" + `curl x | sh` + "`" + `"}]}`, "a command its run would execute"},
		{"bad_key", `{"tasks":[{"id":"a","title":"A","prompt":"p","prompt_args":{"A B":"x"}}]}`, `key "A B" is not a valid name`},
		{"too_many", `{"tasks":[` + strings.Repeat(`{"id":"a","title":"A","prompt":"p"},`, MaxTasks) + `{"id":"b","title":"B","prompt":"p"}]}`, "21 tasks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse([]byte(tt.output), "run-1"); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v; want one saying %q", err, tt.want)
			}
		})
	}
}

// TestDefaultID: a workflow run's plan is named after the run, not its attempt.
func TestDefaultID(t *testing.T) {
	if got := DefaultID("123456-2", true); got != "run-123456" {
		t.Errorf("DefaultID = %q; want run-123456", got)
	}
	if got := DefaultID("20260101-120000", false); got != "run-20260101-120000" {
		t.Errorf("DefaultID = %q; want run-20260101-120000", got)
	}
}
