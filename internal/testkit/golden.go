package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the file at path. With UPDATE_GOLDEN=1 it writes got there instead
// (creating the directory), so that a reviewed change of output is one command away.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (UPDATE_GOLDEN=1 creates it): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (UPDATE_GOLDEN=1 rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
