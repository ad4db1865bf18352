package report

import (
	"sync"
	"testing"
)

func TestRedactor(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{name: "nothing_registered", in: "token abcd", want: "token abcd"},
		{name: "every_occurrence", secrets: []string{"hunter2"}, in: "hunter2 and hunter2!", want: "*** and ***!"},
		{name: "short_values_ignored", secrets: []string{"abc", "", "é1"}, in: "abc é1", want: "abc é1"},
		{name: "four_characters_redacted", secrets: []string{"abcd"}, in: "xabcdx", want: "x***x"},
		{name: "longest_first", secrets: []string{"secret", "secret-long-value"}, in: "secret-long-value secret", want: "*** ***"},
		{name: "json_escaped_form", secrets: []string{`pa"ss\word`}, in: `{"p":"pa\"ss\\word"}`, want: `{"p":"***"}`},
		{name: "multi_line_by_line", secrets: []string{"line-one\r\nline-two"}, in: "x line-two y\nline-one", want: "x *** y\n***"},
		{name: "multi_line_whole_and_json", secrets: []string{"line-one\nline-two"}, in: `"line-one\nline-two"`, want: `"***"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Redactor
			for _, s := range tt.secrets {
				r.Add(s)
			}
			if got, want := r.Redact(tt.in), tt.want; got != want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, want)
			}
		})
	}
}

func TestRedactorConcurrent(t *testing.T) {
	var r Redactor
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				r.Add("secret-" + string(rune('a'+i)) + string(rune('a'+j%26)))
				_ = r.Redact("secret-aa secret-hb")
			}
		})
	}
	wg.Wait()
	if got, want := r.Redact("secret-aa secret-hb"), "*** ***"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
