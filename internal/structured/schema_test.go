package structured

import (
	"errors"
	"strings"
	"testing"
)

const personSchema = `{
  "type": "object",
  "required": ["name", "age"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "age": {"type": "integer", "minimum": 0},
    "email": {"type": "string", "format": "email"},
    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
    "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
  },
  "$defs": {"tag": {"type": "string", "enum": ["a", "b"]}}
}`

func TestSchemaValid(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		text   string
	}{
		{name: "all_fields", schema: personSchema, text: `<o>{"name":"Ann","age":3,"email":"ann@example.com","tags":["a"],"id":7}</o>`},
		{name: "required_only", schema: personSchema, text: "<o>```json\n{\"name\":\"Ann\",\"age\":0}\n```</o>"},
		{name: "big_integer", schema: `{"type":"integer"}`, text: `<o>12345678901234567890</o>`},
		{name: "true_schema", schema: `true`, text: `<o>"anything"</o>`},
		{name: "draft7_definitions", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"number"}},"items":{"$ref":"#/definitions/n"}}`, text: `<o>[1, 2.5]</o>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CompileSchema([]byte(tt.schema))
			if err != nil {
				t.Fatalf("CompileSchema: %v", err)
			}
			if _, err := Extract(tt.text, Spec{Tag: "o", Kind: Object, Schema: s}); err != nil {
				t.Errorf("Extract: %v", err)
			}
		})
	}
}

func TestSchemaInvalid(t *testing.T) {
	tests := []struct {
		name       string
		schema     string
		text       string
		wantDetail string
	}{
		{
			name:       "missing_and_wrong_type",
			schema:     personSchema,
			text:       `<o>{"age":"3"}</o>`,
			wantDetail: "(root): missing property 'name'\n/age: got string, want integer",
		},
		{
			name:       "additional_property",
			schema:     personSchema,
			text:       `<o>{"name":"Ann","age":1,"nick":"A"}</o>`,
			wantDetail: "(root): additional properties 'nick' not allowed",
		},
		{
			name:       "format_asserted",
			schema:     personSchema,
			text:       `<o>{"name":"Ann","age":1,"email":"not-mail"}</o>`,
			wantDetail: "/email: 'not-mail' is not valid email: missing @",
		},
		{
			name:       "through_ref",
			schema:     personSchema,
			text:       `<o>{"name":"Ann","age":1,"tags":["a","z"]}</o>`,
			wantDetail: "/tags/1: value must be one of 'a', 'b'",
		},
		{
			name:       "any_of_indents_alternatives",
			schema:     personSchema,
			text:       `<o>{"name":"Ann","age":1,"id":true}</o>`,
			wantDetail: "/id: 'anyOf' failed\n  /id: got boolean, want string\n  /id: got boolean, want integer",
		},
		{
			name:       "pointer_escaping",
			schema:     `{"properties":{"a/b~c":{"type":"string"}}}`,
			text:       `<o>{"a/b~c":1}</o>`,
			wantDetail: "/a~1b~0c: got number, want string",
		},
		{
			name:       "draft7_format_and_type",
			schema:     `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":{"type":"string","format":"date"}}`,
			text:       `<o>["2024-02-30"]</o>`,
			wantDetail: "/0: '2024-02-30' is not valid date",
		},
		{
			name:       "not_an_object",
			schema:     personSchema,
			text:       `<o>[]</o>`,
			wantDetail: "(root): got array, want object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CompileSchema([]byte(tt.schema))
			if err != nil {
				t.Fatalf("CompileSchema: %v", err)
			}
			_, err = Extract(tt.text, Spec{Tag: "o", Kind: Object, Schema: s})
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Extract error = %v, want *Error", err)
			}
			if got, want := e.Problem, "tag <o> failed schema validation"; got != want {
				t.Errorf("Problem = %q, want %q", got, want)
			}
			if !strings.HasPrefix(e.Detail, tt.wantDetail) {
				t.Errorf("Detail =\n%s\nwant it to start with\n%s", e.Detail, tt.wantDetail)
			}
		})
	}
}

func TestSchemaDetailIsBounded(t *testing.T) {
	s, err := CompileSchema([]byte(`{"type":"array","items":{"type":"string"}}`))
	if err != nil {
		t.Fatalf("CompileSchema: %v", err)
	}
	items := make([]string, 50)
	for i := range items {
		items[i] = "1"
	}
	_, err = Extract("<o>["+strings.Join(items, ",")+"]</o>", Spec{Tag: "o", Kind: Object, Schema: s})
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("Extract error = %v, want *Error", err)
	}
	lines := strings.Split(e.Detail, "\n")
	if got, want := len(lines), maxDetailLines+1; got != want {
		t.Fatalf("Detail has %d lines, want %d:\n%s", got, want, e.Detail)
	}
	if got, want := lines[len(lines)-1], "... and 30 more"; got != want {
		t.Errorf("last line = %q, want %q", got, want)
	}
}

func TestSchemaDetailClipsLongLines(t *testing.T) {
	s, err := CompileSchema([]byte(`{"const":"x"}`))
	if err != nil {
		t.Fatalf("CompileSchema: %v", err)
	}
	_, err = Extract(`<o>"`+strings.Repeat("y", 5000)+`"</o>`, Spec{Tag: "o", Kind: Object, Schema: s})
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("Extract error = %v, want *Error", err)
	}
	if got, limit := len([]rune(e.Detail)), maxLineLen+3; got > limit {
		t.Errorf("Detail is %d characters, want at most %d", got, limit)
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{name: "invalid_json", schema: `{"type": "object",}`, want: []string{`invalid JSON: line 1, column 19`}},
		{name: "empty", schema: ``, want: []string{`invalid JSON`}},
		{name: "bad_type_value", schema: `{"type": "objec"}`, want: []string{"not a valid JSON Schema:\n/type: 'anyOf' failed\n  /type: value must be one of"}},
		{name: "bad_keyword_type", schema: `{"minLength": "3"}`, want: []string{"not a valid JSON Schema:\n/minLength: got string, want integer"}},
		{name: "unknown_local_ref", schema: `{"$ref": "#/$defs/missing"}`, want: []string{`"output-schema#/$defs/missing" not found`}},
		{name: "remote_ref", schema: `{"$ref": "https://example.com/s.json"}`, want: []string{"https://example.com/s.json", "remote references are not loaded"}},
		{name: "relative_ref", schema: `{"properties": {"a": {"$ref": "other.json"}}}`, want: []string{"file:///other.json", "remote references are not loaded"}},
		{name: "local_file_ref", schema: `{"$ref": "file:///etc/passwd"}`, want: []string{"remote references are not loaded"}},
		{name: "unknown_metaschema", schema: `{"$schema": "https://example.com/meta"}`, want: []string{"remote references are not loaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileSchema([]byte(tt.schema))
			if err == nil {
				t.Fatal("CompileSchema succeeded, want an error")
			}
			if strings.Contains(err.Error(), "output-schema\"") {
				t.Errorf("error %q names the input, which is its caller's to name", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, ok := errors.AsType[*SchemaError](err); !ok {
				t.Errorf("error %T is not a *SchemaError", err)
			}
		})
	}
}
