package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/release"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// publishedSandbox makes the engine hold the published claude-code sandbox image under the
// reference a run pulls it by: built by the release's own steps (scripts/release-images.sh),
// since the registry is out of reach here.
func publishedSandbox(t *testing.T) {
	t.Helper()
	actkit.ReleaseImages(t, filepath.Join("..", ".."), "sandbox-claude-code")
}

// TestDefaultsRunThePublishedSandboxImage: a repository without .sandcastle/Dockerfile and a run
// with every Docker default: the sandbox runs the agent's published image, nothing is built, and
// the real claude in it commits as the workspace's owner.
func TestDefaultsRunThePublishedSandboxImage(t *testing.T) {
	a := newDockerAction(t,
		commitBash("notes.txt", "from the published image", "Note from the published image"),
		models.Text("Done. "+signal),
	)
	publishedSandbox(t)
	// The defaults (sandcastle:repo, built when needed), the network kept.
	delete(a.env, inputs.EnvName("image"))
	a.env[inputs.EnvName("docker")] = ""
	a.key("docker", "network", "host")
	a.input("prompt", "Add a note, commit, then print "+signal)
	inv := a.run()
	if inv.code != 0 {
		t.Fatalf("exit %d:\n%s", inv.code, inv.output())
	}
	if out := a.readOutputs(); out["status"] != "complete" || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete with one commit", out)
	}
	if got := a.git("log", "-1", "--format=%s"); got != "Note from the published image" {
		t.Errorf("HEAD is %q, want the agent's commit", got)
	}
	if got := ownerUID(t, filepath.Join(a.dir, "notes.txt")); got != workspaceUID {
		t.Errorf("notes.txt owned by %d, want %d", got, workspaceUID)
	}
	image := release.SandboxImage("claude-code")
	for _, want := range []string{"the sandbox runs the published image " + image, "started from " + image} {
		if !strings.Contains(inv.stdout, want) {
			t.Errorf("the log does not say %q:\n%s", want, inv.stdout)
		}
	}
	if strings.Contains(inv.stdout, "Step 1/") {
		t.Errorf("the run built an image:\n%s", inv.stdout)
	}
}
