package githubapi

import "testing"

func TestMarked(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		marker string
		want   bool
	}{
		{"tag_at_end", "Fixes #5\n\n<!-- sandcastle/pr/5 -->", "sandcastle/pr/5", true},
		{"tag_inside_text", "before <!-- sandcastle/pr/5 --> after", "sandcastle/pr/5", true},
		{"no_tag", "Fixes #5", "sandcastle/pr/5", false},
		{"marker_text_without_tag", "see sandcastle/pr/5", "sandcastle/pr/5", false},
		// A marker that is a prefix of another must not find the other's tag.
		{"prefix_of_other_marker", "<!-- sandcastle/pr/51 -->", "sandcastle/pr/5", false},
		{"other_spacing", "<!--sandcastle/pr/5-->", "sandcastle/pr/5", false},
		{"empty_marker", "<!--  -->", "", false},
		{"invalid_marker_even_if_present", "<!-- a--b -->", "a--b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Marked(tt.body, tt.marker); got != tt.want {
				t.Errorf("Marked(%q, %q) = %v, want %v", tt.body, tt.marker, got, tt.want)
			}
		})
	}
}

// TestMarked_finds_what_withTag_writes ties Marked to the form the upserts write.
func TestMarked_finds_what_withTag_writes(t *testing.T) {
	const marker = "sandcastle:progress:issue-5"
	tag, err := markerTag(marker)
	if err != nil {
		t.Fatalf("markerTag: %v", err)
	}
	for _, body := range []string{"", "Fixes #5", "Fixes #5\n\n\n"} {
		if got := withTag(body, tag); !Marked(got, marker) {
			t.Errorf("Marked(%q) = false for a body written by withTag", got)
		}
	}
}

func TestMarkedBy(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"status\n\n<!-- sandcastle -->", true},
		{"<!-- sandcastle:wf:job:name -->", true},
		{"body\n<!-- sandcastle:pr:agent/issue-1:start -->\nours\n<!-- sandcastle:pr:agent/issue-1 -->", true},
		{"<!-- sandcastles are fun -->", false},
		{"<!-- sandcastle-bot -->", false},
		{"<!-- sandcastle:unterminated\n -->", false},
		{"written by hand about sandcastle:pr", false},
	}
	for _, tt := range tests {
		if got := MarkedBy(tt.body, "sandcastle"); got != tt.want {
			t.Errorf("MarkedBy(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}
