package workspace

import (
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"slices"
	"testing"
	"time"
)

func TestDirName_is_injective(t *testing.T) {
	branches := []string{"a/b", "a-b", "A-b", "a--b", "a/-b", "a_b", "sandcastle/x/20250101-000000-abcdef"}
	seen := map[string]string{}
	for _, b := range branches {
		d := dirName(b)
		if other, dup := seen[d]; dup {
			t.Errorf("dirName(%q) = dirName(%q) = %q", b, other, d)
		}
		seen[d] = b
		if d != dirName(b) {
			t.Errorf("dirName(%q) is not stable", b)
		}
	}
	if got, want := dirName("feature/login"), "feature-login-"; got[:len(want)] != want {
		t.Errorf("dirName(feature/login) = %q, want prefix %q", got, want)
	}
}

func TestDirName_bounded_length(t *testing.T) {
	long := ""
	for range 50 {
		long += "abcdefgh/"
	}
	long += "z"
	if got := len(dirName(long)); got > 100 {
		t.Errorf("len(dirName(long)) = %d, want <= 100", got)
	}
}

func TestTempBranch(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.Local)
	tests := []struct {
		name, runName, want string
	}{
		{"no_name", "", "sandcastle/20250102-030405-a1b2c3"},
		{"name", "Fix Bug #12", "sandcastle/fix-bug-12/20250102-030405-a1b2c3"},
		{"name_only_symbols", "!!!", "sandcastle/20250102-030405-a1b2c3"},
		{"name_edges", "--Hello--", "sandcastle/hello/20250102-030405-a1b2c3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tempBranch(tt.runName, at, "a1b2c3")
			if got != tt.want {
				t.Errorf("tempBranch(%q) = %q, want %q", tt.runName, got, tt.want)
			}
			if err := gitref.Check(got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		name        string
		dirty, diff []string
		want        []string
	}{
		{"disjoint", []string{"a", "dir/b"}, []string{"c", "dir/c"}, nil},
		{"same_file", []string{"a", "b"}, []string{"b"}, []string{"b"}},
		{"dirty_file_became_dir", []string{"x"}, []string{"x/y"}, []string{"x"}},
		{"dirty_inside_changed_file", []string{"x/y"}, []string{"x"}, []string{"x/y"}},
		{"prefix_is_not_parent", []string{"ab"}, []string{"a"}, nil},
		{"empty_diff", []string{"a"}, []string{""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlap(tt.dirty, tt.diff); !slices.Equal(got, tt.want) {
				t.Errorf("overlap(%q, %q) = %q, want %q", tt.dirty, tt.diff, got, tt.want)
			}
		})
	}
}
