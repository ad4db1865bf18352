package engine

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sandcastle-action/sandcastle"

// pure are the packages with no SDK, no process, no network: what the engine and the loop may
// import beside the standard library.
var pure = []string{"inputs", "prompt", "agent", "structured", "event", "report", "gitref", "sandbox", "triage", "review", "fanout", "release"}

// sdks are the third-party clients, each confined to its one adapter.
var sdks = map[string]string{
	"github.com/google/go-github":           "githubapi",
	"github.com/moby/moby":                  "sandbox/docker",
	"github.com/sethvargo/go-githubactions": "report/runner",
}

// TestDependencyRules checks DESIGN's rules on the real import graph: the engine and run
// import only pure packages (and the engine run), pure packages no process, network or SDK,
// adapters never the engine, run or app, each SDK only its adapter, and app only main.
func TestDependencyRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, imports := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/"), fields[1:]
		if pkg == "" {
			pkg = "main"
		}
		for _, imp := range imports {
			own, internal := strings.CutPrefix(imp, module+"/internal/")
			if !internal {
				own = ""
			}
			check := func(ok bool, rule string) {
				if !ok {
					t.Errorf("%s imports %s: %s", pkg, imp, rule)
				}
			}
			switch p := strings.TrimPrefix(pkg, "internal/"); {
			case p == "engine" || p == "run":
				check(!internal || slices.Contains(pure, own) || p == "engine" && own == "run", "the engine and run import only pure packages")
			case slices.Contains(pure, p):
				check(!internal || slices.Contains(pure, own), "a pure package imports only pure packages")
				check(imp != "os/exec" && imp != "net" && imp != "net/http", "a pure package runs no process and talks to no network")
			case p != "app" && p != "main" && !strings.HasPrefix(p, "testkit"):
				check(own != "engine" && own != "run" && own != "app", "an adapter never imports the engine, run or app")
			}
			if own == "app" {
				check(pkg == "main", "nothing but main imports app")
			}
			for sdk, owner := range sdks {
				if strings.HasPrefix(imp, sdk) {
					check(pkg == "internal/"+owner, "only "+owner+" imports "+sdk)
				}
			}
		}
	}
}
