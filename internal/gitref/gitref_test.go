package gitref

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	valid := []string{
		"main",
		"feature/login",
		"sandcastle/issue-42-fix-crash",
		"v1.2.3",
		"user@host",
		"a/b.c/d",
		"fix/naïve",
		"HEADS",
	}
	for _, name := range valid {
		if err := Check(name); err != nil {
			t.Errorf("Check(%q) = %v, want nil", name, err)
		}
	}
	invalid := []struct{ name, reason string }{
		{"", "empty"},
		{"@", `"@"`},
		{"HEAD", "HEAD"},
		{"-D", `starts with "-"`},
		{"/main", `starts or ends with "/"`},
		{"main/", `starts or ends with "/"`},
		{"a//b", `"//"`},
		{"a..b", `".."`},
		{"a@{1}", `"@{"`},
		{"main.", `ends with "."`},
		{"a b", "space"},
		{"a\tb", "control character"},
		{"a\x7fb", "control character"},
		{"a~1", "'~'"},
		{"a^", "'^'"},
		{"a:b", "':'"},
		{"a?", "'?'"},
		{"a*", "'*'"},
		{"a[1]", "'['"},
		{`a\b`, `'\\'`},
		{".hidden", `part ".hidden" starts with "."`},
		{"a/.b", `part ".b" starts with "."`},
		{"fix.lock", `part "fix.lock" ends with ".lock"`},
		{"a.lock/b", `part "a.lock" ends with ".lock"`},
	}
	for _, tt := range invalid {
		err := Check(tt.name)
		if err == nil {
			t.Errorf("Check(%q) = nil, want an error", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("Check(%q) = %q, want it to contain %q", tt.name, err, tt.reason)
		}
	}
}

func TestShortSHA(t *testing.T) {
	for in, want := range map[string]string{"0123456789abcdef": "0123456", "abc": "abc", "": ""} {
		if got := ShortSHA(in); got != want {
			t.Errorf("ShortSHA(%q) = %q, want %q", in, got, want)
		}
	}
}
