package event

import "testing"

func TestCloses(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"Closes #42", true},
		{"this fixes #42.", true},
		{"FIXED: #42", true},
		{"Resolves octo/widgets#42", true},
		{"resolved https://github.com/octo/widgets/issues/42", true},
		{"closes https://ghe.example.com/Octo/Widgets/issues/42 too", true},
		{"Part of #42", false},
		{"See #42; closes #420", false},
		{"fixes other/repo#42", false},
		{"closes https://github.com/other/repo/issues/42", false},
		{"prefixes #42", false},
		{"<!-- closes #42 --> only a hidden note", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := closes(tt.body, "octo/widgets", 42); got != tt.want {
			t.Errorf("closes(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}
