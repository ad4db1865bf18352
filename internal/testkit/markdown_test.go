package testkit

import (
	"slices"
	"testing"
)

// TestLiveReferences: the oracle finds what GitHub acts on, hidden in HTML, entities and
// autolinks, and nothing in code.
func TestLiveReferences(t *testing.T) {
	for _, tt := range []struct {
		md   string
		want []string
	}{
		{"hello @octocat", []string{"@octocat"}},
		{"<div>\n@octocat\n</div>", []string{"@octocat"}},
		{"<details>\n```\n@octocat\n```\n</details>", []string{"@octocat"}},
		{"&#64;octocat and &commat;hubot", []string{"@octocat", "@hubot"}},
		{"Closes&#32;#9", []string{"Closes #9"}},
		{"@@octocat", []string{"@octocat"}},
		{"Fixes <https://github.com/o/r/issues/9>", []string{"Fixes https://github.com/o/r/issues/9"}},
		{"`@octocat` and `Fixes #9`", nil},
		{"```\n@octocat Fixes #9\n```", nil},
		{"mail me@example.com about #9", nil},
	} {
		got := LiveReferences(tt.md)
		slices.Sort(got)
		got = slices.Compact(got)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("LiveReferences(%q) = %q, want %q", tt.md, got, want)
		}
	}
}
