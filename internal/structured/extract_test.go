package structured

import (
	"errors"
	"strings"
	"testing"
)

func TestExtractString(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{name: "single_pair", text: "before <t>hello</t> after", want: "hello"},
		{name: "trims_surrounding_whitespace", text: "<t>\n  hello world \n\n</t>", want: "hello world"},
		{name: "keeps_interior_newlines", text: "<t>\nline one\n\nline two\n</t>", want: "line one\n\nline two"},
		{name: "last_pair_wins", text: "<t>first</t> and <t>second</t>", want: "second"},
		{name: "no_nesting", text: "<t><t>x</t></t>", want: "<t>x"},
		{name: "stray_open_swallows_text", text: "<t> draft <t>real</t>", want: "draft <t>real"},
		{name: "unclosed_open_after_pair_ignored", text: "<t>done</t> then <t>never closed", want: "done"},
		{name: "close_before_open_ignored", text: "</t> <t>ok</t>", want: "ok"},
		{name: "empty_block", text: "<t></t>", want: ""},
		{name: "case_sensitive", text: "<T>upper</T> <t>lower</t>", want: "lower"},
		{name: "attributes_not_recognised", text: `<t kind="x">attr</t> <t>plain</t>`, want: "plain"},
		{name: "fence_not_unwrapped", text: "<t>\n```json\n{}\n```\n</t>", want: "```json\n{}\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Extract(tt.text, Spec{Tag: "t", Kind: String})
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if got, want := v.Text, tt.want; got != want {
				t.Errorf("Text = %q, want %q", got, want)
			}
		})
	}
}

func TestExtractStringJSON(t *testing.T) {
	v, err := Extract(`<t> say "hi" <b>&amp; </t>`, Spec{Tag: "t", Kind: String})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if got, want := string(v.JSON), `"say \"hi\" <b>&amp;"`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestExtractObject(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{name: "object", text: `<out>{"a": 1, "b": [true, null]}</out>`, want: `{"a":1,"b":[true,null]}`},
		{name: "keeps_key_order_and_numbers", text: `<out>{"z": 1.50, "a": 12345678901234567890}</out>`, want: `{"z":1.50,"a":12345678901234567890}`},
		{name: "scalar", text: `<out> 42 </out>`, want: `42`},
		{name: "json_fence", text: "<out>\n```json\n{\"a\": 1}\n```\n</out>", want: `{"a":1}`},
		{name: "bare_fence", text: "<out>```\n[1, 2]\n```</out>", want: `[1,2]`},
		{name: "fence_with_trailing_spaces", text: "<out>```json  \n  {\"a\": 1}  \n  ```  </out>", want: `{"a":1}`},
		{name: "last_pair_wins", text: `<out>{"v":1}</out> text <out>{"v":2}</out>`, want: `{"v":2}`},
		{name: "no_html_escaping", text: `<out>{"s":"<b>&"}</out>`, want: `{"s":"<b>&"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Extract(tt.text, Spec{Tag: "out", Kind: Object})
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if got, want := string(v.JSON), tt.want; got != want {
				t.Errorf("JSON = %s, want %s", got, want)
			}
			if got, want := v.Text, tt.want; got != want {
				t.Errorf("Text = %s, want %s", got, want)
			}
		})
	}
}

func TestExtractObjectInvalidJSON(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		wantDetail string
	}{
		{name: "trailing_comma", text: "<out>{\"a\": 1,}</out>", wantDetail: "line 1, column 9: invalid character '}'"},
		{name: "comment", text: "<out>{\n  // note\n  \"a\": 1\n}</out>", wantDetail: "line 2, column 3: invalid character '/'"},
		{name: "single_quotes", text: "<out>{'a': 1}</out>", wantDetail: "line 1, column 2: invalid character '\\''"},
		{name: "two_values", text: "<out>{} {}</out>", wantDetail: "line 1, column 4: invalid character '{' after top-level value"},
		{name: "empty", text: "<out>  </out>", wantDetail: "unexpected end of JSON input"},
		{name: "prose", text: "<out>here you go</out>", wantDetail: "line 1, column 1: invalid character 'h'"},
		{name: "yaml_fence_not_unwrapped", text: "<out>```yaml\na: 1\n```</out>", wantDetail: "invalid character '`'"},
		{name: "columns_count_characters", text: "<out>{\"é\": x}</out>", wantDetail: "line 1, column 7: invalid character 'x'"},
		{name: "names_non_ascii_character", text: "<out>{\"a\": é}</out>", wantDetail: "line 1, column 7: invalid character 'é' looking for beginning of value"},
		{name: "invalid_utf8", text: "<out>\"\xff\"</out>", wantDetail: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract(tt.text, Spec{Tag: "out", Kind: Object})
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Extract error = %v, want *Error", err)
			}
			if got, want := e.Problem, "tag <out> contains invalid JSON"; got != want {
				t.Errorf("Problem = %q, want %q", got, want)
			}
			if !e.Found {
				t.Error("Found = false, want true")
			}
			if !strings.Contains(e.Detail, tt.wantDetail) {
				t.Errorf("Detail = %q, want it to contain %q", e.Detail, tt.wantDetail)
			}
		})
	}
}

func TestExtractRawIsUntrimmed(t *testing.T) {
	_, err := Extract("<out>\n  nope  \n</out>", Spec{Tag: "out", Kind: Object})
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("Extract error = %v, want *Error", err)
	}
	if got, want := e.Raw, "\n  nope  \n"; got != want {
		t.Errorf("Raw = %q, want %q", got, want)
	}
}

func TestExtractNotFound(t *testing.T) {
	tests := []struct {
		name string
		text string
		kind Kind
	}{
		{name: "no_tag", text: "all done", kind: Object},
		{name: "only_open", text: "<out>{}", kind: Object},
		{name: "only_close", text: "{}</out>", kind: String},
		{name: "attributes", text: `<out id="1">{}</out>`, kind: Object},
		{name: "wrong_case", text: `<OUT>{}</OUT>`, kind: String},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract(tt.text, Spec{Tag: "out", Kind: tt.kind})
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Extract error = %v, want *Error", err)
			}
			if e.Found {
				t.Error("Found = true, want false")
			}
			if got, want := e.Error(), "tag <out> not found in the agent's final message"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func TestExtractBadSpec(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{name: "empty_tag", spec: Spec{Kind: Object}},
		{name: "unknown_kind", spec: Spec{Tag: "t", Kind: "yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract("<t>{}</t>", tt.spec)
			if err == nil {
				t.Fatal("Extract succeeded, want an error")
			}
			if _, ok := errors.AsType[*Error](err); ok {
				t.Errorf("error %v is a *Error; a bad spec is not a retryable outcome", err)
			}
		})
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"<t>{}</t>", "<t><t>x</t></t>", "<t>```json\n{\"a\":1}\n```</t>", "</t><t>", "<t>\xff</t>", "<t>[1,</t>",
	} {
		f.Add(s, "t")
	}
	schema, err := CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, tag string) {
		if tag == "" {
			return
		}
		for _, spec := range []Spec{{Tag: tag, Kind: String}, {Tag: tag, Kind: Object}, {Tag: tag, Kind: Object, Schema: schema}} {
			v, err := Extract(text, spec)
			if err != nil {
				if _, ok := errors.AsType[*Error](err); !ok {
					t.Fatalf("Extract(%q, %+v) = %v, want *Error", text, spec, err)
				}
				continue
			}
			if spec.Kind == Object && v.Text != string(v.JSON) {
				t.Fatalf("Text %q != JSON %q", v.Text, v.JSON)
			}
		}
	})
}
