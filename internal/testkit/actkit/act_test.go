package actkit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

// gitToken is the push token of the test's git remote.
const gitToken = "ghs_ActTestToken0123456789abcdef"

// TestAct runs a workflow under act: the stand-in checks out the remote's main with the token
// (persisting it or not, as asked), a step's output reaches a later step, the secret and the
// environment reach the steps, and Printed has what they printed, in order.
func TestAct(t *testing.T) {
	t.Parallel()
	srv := testkit.NewGitServer(t, gitToken, "")
	url, _ := srv.NewRepo(t, "owner/repo")
	dir := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	g := git.New(dir, env).WithConfig("user.name=Test", "user.email=test@example.com")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"commit", "-q", "--allow-empty", "-m", "the remote's main"},
		{"-c", "http.extraheader=" + testkit.AuthHeader(gitToken), "push", "-q", url, "main"},
	} {
		if _, err := g.Run(t.Context(), args...); err != nil {
			t.Fatal(err)
		}
	}
	workflow := filepath.Join(t.TempDir(), "w.yml")
	if err := os.WriteFile(workflow, []byte(`on: workflow_dispatch
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
      - uses: actions/checkout@v4
        with:
          path: kept
      - id: first
        run: echo "word=from the first step" >> "$GITHUB_OUTPUT"
      - env:
          WORD: ${{ steps.first.outputs.word }}
          SECRET: ${{ secrets.MY_SECRET }}
        run: |
          echo "subject: $(git log -1 --format=%s)"
          echo "header here: $(git config --get-regexp extraheader | wc -l), kept: $(git -C kept config --get-regexp extraheader | wc -l)"
          echo "word: $WORD, env: $FROM_ENV, secret: ${#SECRET} characters"
`), 0o644); err != nil {
		t.Fatal(err)
	}

	act := actkit.New(t, dir)
	act.Actions["actions/checkout@v4"] = actkit.CheckoutStandIn(t)
	act.Env = map[string]string{"GITHUB_SERVER_URL": srv.URL, "GITHUB_REPOSITORY": "owner/repo", "FROM_ENV": "given"}
	act.Secrets = map[string]string{"GITHUB_TOKEN": gitToken, "MY_SECRET": "s3cr3t"}
	run := act.Run(t.Context(), workflow, "workflow_dispatch", []byte("{}"))
	if run.Err != nil {
		t.Fatalf("%v\n%s", run.Err, run.Log)
	}
	got := run.Printed()
	want := []string{"subject: the remote's main", "header here: 0, kept: 1", "word: from the first step, env: given, secret: 6 characters"}
	if i := slices.Index(got, want[0]); i < 0 || !slices.Equal(got[i:i+len(want)], want) {
		t.Errorf("Printed() = %q, want it to hold %q", got, want)
	}
	if strings.Contains(run.Log, "s3cr3t") || strings.Contains(run.Log, gitToken) {
		t.Error("act's log shows a secret")
	}
	if run.Duration <= 0 {
		t.Errorf("Duration = %v", run.Duration)
	}
}

// TestForContainers: a container on the default bridge reaches a server of the test through
// the address ForContainers gives.
func TestForContainers(t *testing.T) {
	t.Parallel()
	actkit.RequireImage(t, actkit.BaseImage)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "reached %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	u := strings.TrimPrefix(actkit.ForContainers(t, srv.URL+"/path"), "http://")
	host, port, _ := strings.Cut(strings.TrimSuffix(u, "/path"), ":")
	script := fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s && printf 'GET /path HTTP/1.0\r\n\r\n' >&3 && cat <&3`, host, port)
	out, err := exec.Command("docker", "run", "--rm", actkit.BaseImage, "bash", "-c", script).CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "reached /path") {
		t.Errorf("from a container: %v\n%s", err, out)
	}
}

// TestActVersionIsThePin: the act the tier asks for is the one scripts/install-act.sh installs.
func TestActVersionIsThePin(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "..", "scripts", "install-act.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/nektos/act v" + actkit.Version + "\n"; !strings.Contains(string(script), want) {
		t.Errorf("scripts/install-act.sh does not install %q: Version and the script disagree", strings.TrimSpace(want))
	}
}
