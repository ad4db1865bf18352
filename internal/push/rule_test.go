package push

import (
	"strings"
	"testing"
)

// TestRule reads GitHub's own refusals, as git push --porcelain summarises them and the server
// explains them, into the rule to name and whether a recovery branch could take the commits.
func TestRule(t *testing.T) {
	tests := []struct {
		name      string
		summary   string
		server    []string
		want      string
		anyBranch bool
	}{
		{"app_token_and_a_workflow_file", "[remote rejected] (refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)", nil,
			"Workflows permission set to write", true},
		{"pat_and_a_workflow_file", "[remote rejected] (refusing to allow a Personal Access Token to create or update workflow `.github/workflows/ci.yml` without `workflow` scope)", nil,
			"workflow scope", true},
		{"push_protection", "[remote rejected] (push declined due to repository rule violations)",
			[]string{"error: GH013: Repository rule violations found for refs/heads/b.", "- GITHUB PUSH PROTECTION", "Push cannot contain secrets"},
			"secret scanning push protection", true},
		{"large_file", "[remote rejected] (pre-receive hook declined)", []string{"error: GH001: Large files detected. You may want to try Git Large File Storage"},
			"Git LFS", true},
		{"classic_protection", "[remote rejected] (protected branch hook declined)",
			[]string{"error: GH006: Protected branch update failed for refs/heads/b.", "error: Changes must be made through a pull request."},
			"branch b is protected", false},
		{"ruleset", "[remote rejected] (push declined due to repository rule violations)",
			[]string{"error: GH013: Repository rule violations found for refs/heads/b.", "- Changes must be made through a pull request."},
			"a repository ruleset covers branch b", false},
		{"unknown", "[remote rejected] (shallow update not allowed)", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hint, anyBranch := rule("b", refStatus{flag: '!', summary: tt.summary, server: tt.server})
			if !strings.Contains(hint, tt.want) || (tt.want == "") != (hint == "") || anyBranch != tt.anyBranch {
				t.Errorf("rule = %q, %v; want it to contain %q, any branch %v", hint, anyBranch, tt.want, tt.anyBranch)
			}
		})
	}
}

func TestServerLines(t *testing.T) {
	stderr := "remote: Resolving deltas: 100% (1/1), completed with 1 local object.\n" +
		"remote: error: GH006: Protected branch update failed for refs/heads/b.\nremote:\n" +
		"To https://github.com/o/r\n ! [remote rejected] b -> b (protected branch hook declined)\n" +
		"remote: " + strings.Repeat("x", maxServerLine+5) + "\n"
	got := serverLines(stderr)
	if len(got) != 2 || got[0] != "error: GH006: Protected branch update failed for refs/heads/b." || !strings.HasSuffix(got[1], "x…") {
		t.Errorf("serverLines = %q", got)
	}
	if got := serverLines(strings.Repeat("remote: hello\n", 3*maxServerLines)); len(got) != maxServerLines {
		t.Errorf("%d lines kept, want %d", len(got), maxServerLines)
	}
}
