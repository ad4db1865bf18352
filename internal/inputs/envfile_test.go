package inputs

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want map[string]string
	}{
		{"plain", "A=1\nB=two words\n", map[string]string{"A": "1", "B": "two words"}},
		{"blank_lines_and_comments", "\n# comment\n  # indented comment\nA=1\n\n", map[string]string{"A": "1"}},
		{"crlf_line_ends", "A=1\r\nB=2\r\n", map[string]string{"A": "1", "B": "2"}},
		{"spaces_around", "  A  =  1  \n", map[string]string{"A": "1"}},
		{"export_prefix", "export A=1\nexport\tB=2\n", map[string]string{"A": "1", "B": "2"}},
		{"key_named_export", "export=1\nexporter=2\n", map[string]string{"export": "1", "exporter": "2"}},
		{"inline_comment_on_unquoted", "A=1 # the answer\nB=x\t# tab\n", map[string]string{"A": "1", "B": "x"}},
		{"hash_inside_unquoted_value", "URL=https://x.test/#top\nC=a#b\n", map[string]string{"URL": "https://x.test/#top", "C": "a#b"}},
		{"empty_value", "A=\nB=\"\"\nC=''\n", map[string]string{"A": "", "B": "", "C": ""}},
		{"equals_in_value", "A=b=c\n", map[string]string{"A": "b=c"}},
		{"double_quotes_unescape", `A="line1\nline2\ttab\\n\r\"q\" \x"`, map[string]string{"A": "line1\nline2\ttab\\n\r\"q\" \\x"}},
		{"single_quotes_are_literal", `A='it\n # stays'`, map[string]string{"A": `it\n # stays`}},
		{"comment_after_quotes", `A="v" # note`, map[string]string{"A": "v"}},
		{"quoted_hash_is_kept", `A="a # b"`, map[string]string{"A": "a # b"}},
		{"later_key_wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"empty_file", "", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEnvFile([]byte(tt.data))
			if err != nil {
				t.Fatalf("ParseEnvFile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseEnvFile(%q) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}

func TestParseEnvFile_errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want []string // one fragment per expected line error, in order
	}{
		{"no_equals", "A=1\nJUST_A_NAME\n", []string{`line 2: not KEY=VALUE (the line is not shown`}},
		{"bare_export", "export A\n", []string{`line 1: not KEY=VALUE`}},
		{"yaml_habit", "ANTHROPIC_API_KEY: sk-ant-x\n", []string{`line 1: ANTHROPIC_API_KEY is followed by a colon, not =; write ANTHROPIC_API_KEY=value`}},
		{"yaml_habit_value_with_equals", "TOKEN : abc==\n", []string{`line 1: TOKEN is followed by a colon`}},
		{"bad_key", "MY-VAR=1\n", []string{`line 1: the text before = is not a variable name (not shown`}},
		{"empty_key", "=1\n", []string{`line 1: the text before = is not a variable name`}},
		{"unclosed_double_quote", `A="open`, []string{`line 1: value of A: no closing "`}},
		{"unclosed_single_quote", "\n\nA='open\n", []string{"line 3: value of A: no closing '"}},
		{"text_after_quote", `A="a" b`, []string{`line 1: value of A has text after its closing quote (not shown`}},
		{"several_lines", "1A=x\nOK=1\nB\n", []string{"line 1:", "line 3:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseEnvFile([]byte(tt.data))
			if err == nil {
				t.Fatalf("ParseEnvFile(%q) succeeded, want an error", tt.data)
			}
			errs := Unjoin(err)
			if got, want := len(errs), len(tt.want); got != want {
				t.Fatalf("got %d errors, want %d:\n%v", got, want, err)
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), tt.want[i]) {
					t.Errorf("error %d = %q, want it to contain %q", i, e, tt.want[i])
				}
			}
		})
	}
}
