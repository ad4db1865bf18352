package testkit

import "testing"

func TestRequireBinary(t *testing.T) {
	// Not parallel: t.Setenv.
	tests := []struct {
		name      string
		binary    string
		ci        string
		wantPath  bool
		wantFatal bool
		wantSkip  bool
	}{
		{"found", "sh", "true", true, false, false},
		{"missing_locally_skips", "testkit-no-such-binary", "", false, false, true},
		{"missing_in_ci_fails", "testkit-no-such-binary", "true", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			rec := NewRecordingTB(t)
			path := RequireBinary(rec, tt.binary)
			if got := path != ""; got != tt.wantPath {
				t.Errorf("path = %q, want found = %v", path, tt.wantPath)
			}
			if got := len(rec.Fatals) > 0; got != tt.wantFatal {
				t.Errorf("fatal = %q, want fatal = %v", rec.Fatals, tt.wantFatal)
			}
			if got := len(rec.Skips) > 0; got != tt.wantSkip {
				t.Errorf("skips = %q, want skip = %v", rec.Skips, tt.wantSkip)
			}
		})
	}
}
