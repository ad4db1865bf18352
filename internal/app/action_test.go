package app

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// goImage is the Dockerfile's build stage base, which scripts/provision-docker.sh provides from
// this machine's Go toolchain.
const goImage = "golang:1.26-bookworm"

// TestActionContainerStartsSiblingSandbox runs sandcastle the way GitHub's runner runs a
// container Action: in its own container, as root, with the workspace mounted at
// /github/workspace, INPUT_* variables, a GITHUB_OUTPUT file and the Docker socket. The sandbox
// is then a sibling container, bound to the workspace's host path found through our own mounts.
//
// The image is built from the repository's own Dockerfile, as the runner builds it; its base
// images are the ones scripts/provision-docker.sh provides. The first build takes minutes (go mod
// download, apt-get, npm install); later ones reuse the engine's cache.
func TestActionContainerStartsSiblingSandbox(t *testing.T) {
	a := newDockerAction(t, commitBash("notes.txt", "from a sibling", "Sibling commit"), testkit.Text("Done. "+signal))
	testkit.RequireImage(t, goImage)
	testkit.RequireImage(t, testkit.BaseImage)
	const image = "sandcastle-test:action"
	if out, err := exec.Command("docker", "build", "-q", "-t", image, "../..").CombinedOutput(); err != nil {
		t.Fatalf("docker build of the repository's Dockerfile: %v\n%s", err, out)
	}

	files := t.TempDir()
	writeFile(t, filepath.Join(files, "output"), "")
	writeFile(t, filepath.Join(files, "summary"), "")
	a.input("prompt", "Add a note, commit, then print "+signal)
	args := []string{"run", "--rm",
		"-v", "/var/run/docker.sock:/var/run/docker.sock",
		"-v", a.dir + ":/github/workspace",
		"-v", files + ":/github/file_commands",
		"-w", "/github/workspace",
		"-e", "GITHUB_ACTIONS=true",
		"-e", "GITHUB_WORKSPACE=/github/workspace",
		"-e", "GITHUB_OUTPUT=/github/file_commands/output",
		"-e", "GITHUB_STEP_SUMMARY=/github/file_commands/summary",
	}
	for k, v := range a.env {
		if strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE_CODE_") {
			args = append(args, "-e", k+"="+v)
		}
	}
	args = append(args, image)
	out, err := exec.Command("docker", args...).CombinedOutput()
	t.Logf("action output:\n%s", out)
	if err != nil {
		t.Fatalf("the action failed: %v", err)
	}
	a.outputs = filepath.Join(files, "output")
	got := a.readOutputs()
	if got["status"] != "complete" || got["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete with one commit", got)
	}
	if head := a.git("log", "-1", "--format=%s"); head != "Sibling commit" {
		t.Errorf("HEAD of the runner's checkout is %q, want the agent's commit", head)
	}
	if got := ownerUID(t, filepath.Join(a.dir, "notes.txt")); got != workspaceUID {
		t.Errorf("notes.txt owned by %d, want the runner's user %d", got, workspaceUID)
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("sandbox containers left: %s", left)
	}
}
