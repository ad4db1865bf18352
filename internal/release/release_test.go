package release

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// TestVersionIsSemver: the release workflow runs on tags vX.Y.Z and takes the major tag from X.
func TestVersionIsSemver(t *testing.T) {
	if !regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`).MatchString(Version) {
		t.Errorf("Version %q is not MAJOR.MINOR.PATCH", Version)
	}
	if !strings.HasPrefix("v"+Version, MajorTag()+".") {
		t.Errorf("MajorTag() = %q is not the major part of v%s", MajorTag(), Version)
	}
	if !regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*$`).MatchString(Owner) {
		t.Errorf("Owner %q is no registry namespace (lower case)", Owner)
	}
}

// published runs scripts/release-images.sh --list: what the release workflow would build and
// push, by image, as "tag tag platforms".
func published(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("../../scripts/release-images.sh", "--list").Output()
	if err != nil {
		t.Fatalf("release-images.sh --list: %v", err)
	}
	images := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("release-images.sh --list printed %q, want IMAGE REF REF PLATFORMS", line)
		}
		images[f[0]] = f[1:]
	}
	return images
}

// TestReleasePublishesTheActionImage: the release workflow pushes the image action.yml runs
// (go generate writes it from ActionImage), under this source tree's version and with the major
// tag beside it, for both platforms.
func TestReleasePublishesTheActionImage(t *testing.T) {
	got := published(t)["action"]
	want := []string{ActionImage(), strings.TrimSuffix(ActionImage(), Version) + MajorTag(), "linux/amd64,linux/arm64"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the release publishes the action as %q, want %q", got, want)
	}
}

// TestReleaseWorkflowPublishesWithTheScript: what --list prints is what the release publishes,
// because release.yml runs the script's push on a version tag, logged in to this registry.
func TestReleaseWorkflowPublishesWithTheScript(t *testing.T) {
	data, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Run  string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if strings.Join(wf.On.Push.Tags, " ") != "v*.*.*" {
		t.Errorf("release.yml runs on tags %q, want v*.*.*", wf.On.Push.Tags)
	}
	var pushes, logins int
	for name, job := range wf.Jobs {
		for _, step := range job.Steps {
			if strings.TrimSpace(step.Run) == "scripts/release-images.sh --push" {
				pushes++
				if job.Permissions["packages"] != "write" || job.Permissions["contents"] != "write" {
					t.Errorf("job %s pushes with permissions %v, want packages and contents write (images, major tag)", name, job.Permissions)
				}
			}
			if strings.HasPrefix(step.Uses, "docker/login-action@") && step.With["registry"] == Registry {
				logins++
			}
		}
	}
	if pushes != 1 || logins != 1 {
		t.Errorf("release.yml runs scripts/release-images.sh --push %d times and logs in to %s %d times, want once each", pushes, Registry, logins)
	}
}

// TestSandboxImagesArePublished: every agent's default sandbox image is one the release pushes,
// and the release pushes nothing else.
func TestSandboxImagesArePublished(t *testing.T) {
	images := published(t)
	for _, name := range agent.Names() {
		got := images["sandbox-"+name]
		if len(got) != 3 || got[0] != SandboxImage(name) || got[1] != strings.TrimSuffix(SandboxImage(name), Version)+MajorTag() {
			t.Errorf("the release publishes the %s sandbox as %q, want %s and its major tag", name, got, SandboxImage(name))
		}
	}
	if len(images) != 1+len(agent.Names()) {
		t.Errorf("the release publishes %d images, want the action's and one sandbox per agent %v: %v", len(images), agent.Names(), images)
	}
}

// TestImagesShipTheTestedCLIs: the images install the CLI versions of scripts/agent-clis.env,
// which the tests install too; the scripted model servers were written against those CLIs, and
// docs/agents.md's table names them.
func TestImagesShipTheTestedCLIs(t *testing.T) {
	pinned := pins(t)
	if pinned["CLAUDE_CODE_VERSION"] != testkit.ClaudeCodeVersion || pinned["CODEX_VERSION"] != testkit.CodexVersion {
		t.Errorf("testkit knows claude %s and codex %s, scripts/agent-clis.env pins %s and %s", testkit.ClaudeCodeVersion, testkit.CodexVersion, pinned["CLAUDE_CODE_VERSION"], pinned["CODEX_VERSION"])
	}
	agents, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	for cell, key := range map[string]string{
		"`@anthropic-ai/claude-code` ":     "CLAUDE_CODE_VERSION",
		"`@openai/codex` ":                 "CODEX_VERSION",
		"`@mariozechner/pi-coding-agent` ": "PI_VERSION",
		"`opencode-ai` ":                   "OPENCODE_VERSION",
		"`@github/copilot` ":               "COPILOT_VERSION",
		"Cursor's archive ":                "CURSOR_VERSION",
	} {
		if pinned[key] == "" || !strings.Contains(string(agents), cell+pinned[key]+" |") {
			t.Errorf("docs/agents.md's table does not show %s%s (scripts/agent-clis.env %s)", cell, pinned[key], key)
		}
	}
}
