package structured

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

func TestFeedbackGolden(t *testing.T) {
	schema, err := CompileSchema([]byte(personSchema))
	if err != nil {
		t.Fatalf("CompileSchema: %v", err)
	}
	tests := []struct {
		name        string
		text        string
		spec        Spec
		retriesLeft int
	}{
		{name: "not_found", text: "I updated the README.", spec: Spec{Tag: "result", Kind: Object}, retriesLeft: 2},
		{name: "invalid_json", text: "<result>\n{\"name\": \"Ann\", age: 3}\n</result>", spec: Spec{Tag: "result", Kind: Object}, retriesLeft: 1},
		{name: "schema_violation", text: `<result>{"age": "3", "id": true}</result>`, spec: Spec{Tag: "result", Kind: Object, Schema: schema}, retriesLeft: 0},
		{name: "empty_block", text: "<result>\n</result>", spec: Spec{Tag: "result", Kind: Object}, retriesLeft: 3},
		{name: "long_raw_truncated", text: "<result>" + strings.Repeat("é", 2100) + "</result>", spec: Spec{Tag: "result", Kind: Object}, retriesLeft: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract(tt.text, tt.spec)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Extract error = %v, want *Error", err)
			}
			got := e.Feedback(tt.retriesLeft)
			if !strings.Contains(got, "<"+tt.spec.Tag+">") {
				t.Errorf("feedback does not contain the literal <%s>", tt.spec.Tag)
			}
			golden(t, filepath.Join("testdata", "feedback", tt.name+".golden"), got)
		})
	}
}

func TestErrorMessage(t *testing.T) {
	e := &Error{Tag: "o", Problem: "tag <o> failed schema validation", Detail: "(root): missing property 'a'\n/b: got string, want integer"}
	if got, want := e.Error(), "tag <o> failed schema validation: (root): missing property 'a'; /b: got string, want integer"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestFeedbackNegativeRetries(t *testing.T) {
	e := &Error{Tag: "o", Problem: "tag <o> not found in the agent's final message"}
	if got := e.Feedback(-1); !strings.Contains(got, "Retries left after this one: 0.") {
		t.Errorf("Feedback(-1) = %q, want it to report 0 retries", got)
	}
}

// golden compares got with the file at path; UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, path, got string) {
	t.Helper()
	testkit.Golden(t, path, []byte(got))
}
