package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESandboxTableNamesRealTests: every test the README's table of what the agent in the
// sandbox can and cannot do points at is a function of the module's tests, so a renamed or
// removed proof fails here rather than leaving a row that proves nothing.
func TestREADMESandboxTableNamesRealTests(t *testing.T) {
	t.Parallel()
	readme := readFile(t, filepath.Join("..", "..", "README.md"))
	_, table, ok := strings.Cut(readme, "## What the agent in the sandbox can and cannot do")
	if !ok {
		t.Fatal("README has no section \"What the agent in the sandbox can and cannot do\"")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := regexp.MustCompile("`((?:Test|Fuzz|check)[A-Za-z0-9_]+)`").FindAllStringSubmatch(table, -1)
	if len(named) < 10 {
		t.Fatalf("the table names %d tests; want a proof on every row", len(named))
	}
	declared := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|check)[A-Za-z0-9_]+)\(`)
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == ".sandcastle") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			declared[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !declared[m[1]] {
			t.Errorf("the README's sandbox table names %s, which no test declares", m[1])
		}
	}
}
