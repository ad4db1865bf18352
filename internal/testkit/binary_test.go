package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// TestRequireRoot: as root nothing happens; otherwise the test skips, or fails under CI=true.
func TestRequireRoot(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("ci="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			rec := NewRecordingTB(t)
			RequireRoot(rec, "the test")
			switch {
			case os.Geteuid() == 0:
				if rec.Failed() || rec.Skipped() {
					t.Errorf("as root: errors %q, fatals %q, skips %q; want none", rec.Errors, rec.Fatals, rec.Skips)
				}
			case ci == "true":
				if !rec.Failed() || rec.Skipped() {
					t.Errorf("not root under CI: fatals %q, skips %q; want a failure", rec.Fatals, rec.Skips)
				}
			default:
				if rec.Failed() || !rec.Skipped() {
					t.Errorf("not root: fatals %q, skips %q; want a skip", rec.Fatals, rec.Skips)
				}
			}
		})
	}
}

// TestInstallHint names how to get each tool the tiers need, and a fallback for any other.
func TestInstallHint(t *testing.T) {
	for name, want := range map[string]string{
		"claude": "@anthropic-ai/claude-code@" + ClaudeCodeVersion, "codex": "@openai/codex@" + CodexVersion,
		"git": "apt-get install git", "act": "scripts/install-act.sh", "actionlint": "scripts/install-actionlint.sh",
		"other": "install other and put it on PATH",
	} {
		if got := InstallHint(name); !strings.Contains(got, want) {
			t.Errorf("InstallHint(%q) = %q, want it to name %q", name, got, want)
		}
	}
}

// TestGolden: a matching file passes, a differing one is an error that names it, a missing one
// is fatal, and UPDATE_GOLDEN=1 writes the file, making its directory.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	t.Setenv("UPDATE_GOLDEN", "")
	rec := NewRecordingTB(t)
	Golden(rec, path, []byte("one"))
	if len(rec.Fatals) != 1 {
		t.Errorf("missing golden: fatals %q, want one", rec.Fatals)
	}
	t.Setenv("UPDATE_GOLDEN", "1")
	Golden(rec, path, []byte("one"))
	t.Setenv("UPDATE_GOLDEN", "")
	rec = NewRecordingTB(t)
	Golden(rec, path, []byte("one"))
	if rec.Failed() {
		t.Errorf("same content: errors %q, fatals %q", rec.Errors, rec.Fatals)
	}
	Golden(rec, path, []byte("two"))
	if len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0], path) {
		t.Errorf("differing content: errors %q, want one naming %s", rec.Errors, path)
	}
	ran := false
	rec.Cleanup(func() { ran = true })
	rec.RunCleanups()
	if !ran {
		t.Error("RunCleanups did not run the cleanup")
	}
}
