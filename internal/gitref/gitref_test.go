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

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		max  int
		want string
	}{
		{"Fix the crash on start", 40, "fix-the-crash-on-start"},
		{"  --Crash!! on   start?? ", 40, "crash-on-start"},
		{"$(rm -rf /); `id`", 40, "rm-rf-id"},
		{"refs/heads/../main.lock", 40, "refs-heads-main-lock"},
		{"Naïve façade", 40, "na-ve-fa-ade"},
		{"日本語", 40, ""},
		{"", 40, ""},
		{"a very long title that goes on and on past the limit", 20, "a-very-long-title"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcdefghij"},
		{"abc-defghijklmnop", 10, "abc-defghi"},
		{"a b", 2, "a"},
	}
	for _, tt := range tests {
		if got := Slug(tt.text, tt.max); got != tt.want {
			t.Errorf("Slug(%q, %d) = %q, want %q", tt.text, tt.max, got, tt.want)
		}
	}
}

// FuzzSlug checks that any text, however hostile, makes a valid branch name of bounded length
// that holds only lower-case letters, digits and single inner dashes.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Fix #12: the crash", "../..", "-rf", "a\x00b\nc", "@{u}", "x.lock", "\u202eevil", "ＦＵＬＬ　ｗｉｄｔｈ", "--", "HEAD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := Slug(text, 40)
		if len(s) > 40 {
			t.Fatalf("Slug(%q) = %q, longer than 40", text, s)
		}
		if strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
			t.Fatalf("Slug(%q) = %q has a dash at an end or two in a row", text, s)
		}
		for _, r := range s {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
				t.Fatalf("Slug(%q) = %q holds %q", text, s, r)
			}
		}
		name := "sandcastle/issue-12"
		if s != "" {
			name += "-" + s
		}
		if err := Check(name); err != nil {
			t.Fatalf("Slug(%q) makes a bad branch: %v", text, err)
		}
	})
}
