package git_test

import (
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// TestGitAgreesWithGitref: the pure-Go branch-name rules accept exactly what git accepts.
func TestGitAgreesWithGitref(t *testing.T) {
	tests := []struct {
		name  string
		ref   string
		valid bool
	}{
		{"simple", "main", true},
		{"nested", "feature/login", true},
		{"generated", "sandcastle/fix-bug/20250101-120000-a1b2c3", true},
		{"dash_inside", "a-b", true},
		{"dot_inside", "v1.2", true},
		{"at_inside", "me@work", true},
		{"unicode", "fonctionnalité", true},
		{"empty", "", false},
		{"leading_dash", "-f", false},
		{"option_lookalike", "--upload-pack=evil", false},
		{"head", "HEAD", false},
		{"lone_at", "@", false},
		{"double_dot", "a..b", false},
		{"leading_slash", "/a", false},
		{"trailing_slash", "a/", false},
		{"double_slash", "a//b", false},
		{"trailing_dot", "a.", false},
		{"component_dot", "a/.b", false},
		{"leading_dot", ".a", false},
		{"lock_suffix", "a.lock", false},
		{"component_lock_suffix", "a.lock/b", false},
		{"at_brace", "a@{1}", false},
		{"space", "a b", false},
		{"tilde", "a~1", false},
		{"caret", "a^", false},
		{"colon", "a:b", false},
		{"question", "a?", false},
		{"star", "a*", false},
		{"bracket", "a[b", false},
		{"backslash", `a\b`, false},
		{"control", "a\tb", false},
		{"del", "a\x7fb", false},
	}
	r := git.Repo{Dir: t.TempDir(), Env: testEnv(t)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := gitref.Check(tt.ref)
			if got := err == nil; got != tt.valid {
				t.Fatalf("gitref.Check(%q) = %v, want valid=%v", tt.ref, err, tt.valid)
			}
			if tt.ref == "@" {
				return // git check-ref-format --branch expands "@" to the current branch
			}
			// git itself must agree, so gitref.Check never lets through what git would refuse.
			_, gerr := r.Run(t.Context(), "check-ref-format", "--branch", tt.ref)
			if got := gerr == nil; got != tt.valid {
				t.Errorf("git check-ref-format --branch %q = %v, want valid=%v", tt.ref, gerr, tt.valid)
			}
		})
	}
}
