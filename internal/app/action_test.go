package app

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// goImage is the Dockerfile's build stage base, which scripts/provision-docker.sh provides from
// this machine's Go toolchain.
const goImage = "golang:1.26-bookworm"

// TestActionContainerStartsSiblingSandbox runs sandcastle the way GitHub's runner runs a
// container Action: in its own container, as root, with the workspace mounted at
// /github/workspace, INPUT_* variables, a GITHUB_OUTPUT file and the Docker socket. The sandbox
// is then a sibling container, bound to the workspace's host path found through our own mounts.
func TestActionContainerStartsSiblingSandbox(t *testing.T) {
	a := newDockerAction(t, commitBash("notes.txt", "from a sibling", "Sibling commit"), models.Text("Done. "+signal))
	image := buildActionImage(t)
	files := t.TempDir()
	writeFile(t, filepath.Join(files, "output"), "")
	writeFile(t, filepath.Join(files, "summary"), "")
	a.input("prompt", "Add a note, commit, then print "+signal)
	args := append([]string{"run", "--rm",
		"-v", a.dir + ":/github/workspace",
		"-v", files + ":/github/file_commands",
	}, actionEnv(a)...)
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

// TestActionContainerCopiedWorkspace runs the action's container as runners beyond GitHub's may:
// on the host's network, under the host's hostname, with the workspace copied into its own file
// system as root's (no mount the daemon could bind it from). The action finds its own container
// all the same, copies the repository into the sandbox (docker sync: auto), runs the agent as
// launch.AgentUID and brings its commit back.
func TestActionContainerCopiedWorkspace(t *testing.T) {
	a := newDockerAction(t, commitBash("notes.txt", "copied in", "Commit from a copy"), models.Bash(`echo "agent-uid=$(id -u)"`), models.Text("Done. "+signal))
	image := buildActionImage(t)
	chownTree(t, a.dir, 0)
	a.input("prompt", "Add a note, commit, then print "+signal)
	args := append([]string{"create", "--network", "host"}, actionEnv(a)...)
	id := strings.TrimSpace(dockerOut(t, append(args, image)...))
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", id).Run() })
	dockerOut(t, "cp", a.dir+"/.", id+":/github/workspace")
	files := t.TempDir()
	writeFile(t, filepath.Join(files, "output"), "")
	writeFile(t, filepath.Join(files, "summary"), "")
	dockerOut(t, "cp", files+"/.", id+":/github/file_commands")
	out, err := exec.Command("docker", "start", "-a", id).CombinedOutput()
	t.Logf("action output:\n%s", out)
	if err != nil {
		t.Fatalf("the action failed: %v", err)
	}
	if !strings.Contains(string(out), "copying the repository into the sandbox (docker sync: auto)") {
		t.Error("the action did not say it copies the repository in")
	}
	dockerOut(t, "cp", id+":/github/file_commands/output", filepath.Join(files, "output"))
	a.outputs = filepath.Join(files, "output")
	if got := a.readOutputs(); got["status"] != "complete" || got["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete with one commit", got)
	}
	// The agent's id -u, as the model received the tool's result.
	if req := a.model.Requests(); len(req) < 3 || !strings.Contains(string(req[2].Body), "agent-uid="+strconv.Itoa(launch.AgentUID)) {
		t.Errorf("the agent's id -u is not %d", launch.AgentUID)
	}
	if left := containersOf(t, "/github/workspace"); left != "" {
		t.Errorf("sandbox containers left: %s", left)
	}
}

// buildActionImage builds the repository's own Dockerfile, as the runner builds it; its base
// images are the ones scripts/provision-docker.sh provides. The first build takes minutes (go mod
// download, apt-get, npm install); later ones reuse the engine's cache.
func buildActionImage(t *testing.T) string {
	t.Helper()
	actkit.RequireImage(t, goImage)
	actkit.RequireImage(t, actkit.BaseImage)
	const image = "sandcastle-test:action"
	if out, err := exec.Command("docker", "build", "-q", "-t", image, "../..").CombinedOutput(); err != nil {
		t.Fatalf("docker build of the repository's Dockerfile: %v\n%s", err, out)
	}
	return image
}

// actionEnv are the options of docker run that make a container the action's step, as a runner
// does: the Docker socket, the workspace at /github/workspace, the runner's variables, the inputs
// and the agent's credentials.
func actionEnv(a *action) []string {
	args := []string{
		"-v", "/var/run/docker.sock:/var/run/docker.sock",
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
	return args
}

// dockerOut runs the docker CLI and returns its output, failing the test on an error.
func dockerOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
