package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCommitted: action.yml, docs/inputs.md and docs/outputs.md are what gen
// writes from the tables, so no hand edit and no forgotten go generate goes unseen.
func TestGeneratedFilesAreCommitted(t *testing.T) {
	t.Parallel()
	for _, f := range files() {
		committed, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatalf("read %s: %v", f.path, err)
		}
		if !bytes.Equal(committed, f.content) {
			t.Errorf("%s differs from what go generate ./internal/inputs writes; run it and commit the result", f.path)
		}
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"One. Two.":                    "One.",
		"Ends with a dot.":             "Ends with a dot.",
		"Like 1.5 or so. Then more.":   "Like 1.5 or so.",
		"See README). then lower. Up.": "See README). then lower.",
		"No stop at all":               "No stop at all",
	} {
		if got := summary(text); got != want {
			t.Errorf("summary(%q) = %q, want %q", text, got, want)
		}
	}
}
