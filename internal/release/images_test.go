package release

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

// The Docker tier: the release's build steps, run here for this machine's platform (see
// scripts/release-images.sh), and what they make. The first build takes minutes (go mod
// download, apt-get, npm pack); later ones reuse the engine's build cache.

// maxPullSize is the most the action image may weigh as a runner downloads it: 300 MB, in the
// decimal megabytes registries and docker show.
const maxPullSize = 300_000_000

// pins are the CLI versions of scripts/agent-clis.env.
func pins(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../scripts/agent-clis.env")
	if err != nil {
		t.Fatal(err)
	}
	return parseEnv(string(data))
}

// inImage runs sh -c script in a container of image as user ("" for the image's) and returns
// its output.
func inImage(t *testing.T, image, user, script string) string {
	t.Helper()
	args := []string{"run", "--rm", "--entrypoint", "sh"}
	if user != "" {
		args = append(args, "--user", user)
	}
	out, err := exec.Command("docker", append(args, image, "-c", script)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s in %s: %v\n%s", script, image, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestReleaseBuildsTheImagesLocally runs the release's build steps without pushing, and checks
// what the engine then has: every reference the release pushes (the version and the major tag),
// labels that say where and from which commit each image comes, and in them the programs a run
// needs, pinned as scripts/agent-clis.env says.
func TestReleaseBuildsTheImagesLocally(t *testing.T) {
	ids := actkit.ReleaseImages(t, "../..", "action", "sandbox-claude-code")
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	images := published(t)
	for image, id := range ids {
		built := actkit.InspectImage(t, id)
		for _, ref := range images[image][:2] {
			// Another package's tests may build the same image at the same time, so the tag is
			// only checked to be there; what the build made is checked by its ID.
			actkit.InspectImage(t, ref)
		}
		want := map[string]string{
			"org.opencontainers.image.source":   "https://github.com/" + Owner + "/sandcastle",
			"org.opencontainers.image.version":  Version,
			"org.opencontainers.image.revision": strings.TrimSpace(string(head)),
		}
		if agent, ok := strings.CutPrefix(image, "sandbox-"); ok {
			want["sandcastle.agent"] = agent
			want["sandcastle.agent-version"] = pins(t)["CLAUDE_CODE_VERSION"]
		}
		for k, v := range want {
			if got := built.Config.Labels[k]; got != v {
				t.Errorf("%s: label %s = %q, want %q", image, k, got, v)
			}
		}
	}

	claude := pins(t)["CLAUDE_CODE_VERSION"] + " (Claude Code)"
	action := ids["action"]
	if got, want := actkit.InspectImage(t, action).Config.Entrypoint, []string{"/usr/bin/tini", "--", "/usr/local/bin/sandcastle"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the action image's entrypoint is %q, want %q", got, want)
	}
	if got, want := inImage(t, action, "", "sandcastle version && claude --version && git --version >/dev/null && echo ok"), "sandcastle "+Version+"\n"+claude+"\nok"; got != want {
		t.Errorf("the action image says\n%s\nwant\n%s", got, want)
	}
	// One claude and nothing of npm: the package's wrapper and its other platforms' binaries
	// would double the image.
	if got := inImage(t, action, "", "find / -xdev \\( -name 'claude*' -o -name node_modules -o -name npm \\) -not -path '/proc/*' | sort"); got != "/opt/claude-code\n/opt/claude-code/claude\n/usr/local/bin/claude" {
		t.Errorf("the action image has these claude and npm files, want one claude:\n%s", got)
	}

	sandbox := ids["sandbox-claude-code"]
	if got := inImage(t, sandbox, "", "id -un; id -u; echo $HOME"); got != "agent\n1000\n/home/agent" {
		t.Errorf("the sandbox image's user is\n%s\nwant agent, 1000, /home/agent", got)
	}
	// A run uses the workspace owner's ids, which the image need not know.
	if got := inImage(t, sandbox, "1001:1001", "claude --version && gh --version | head -n 1 | cut -d' ' -f1,2 && git --version | cut -d' ' -f1,2 && curl --version | head -n 1 | cut -d' ' -f1"); got != claude+"\ngh version\ngit version\ncurl" {
		t.Errorf("the sandbox image, as uid 1001, runs\n%s\nwant claude %s, gh, git and curl", got, claude)
	}
}

// TestActionImageSize: the action image a runner pulls stays within 300 MB, compressed as the
// registry stores it. Its size on disk, uncompressed, is logged beside: the Claude Code binary
// alone is 402 MB of it.
func TestActionImageSize(t *testing.T) {
	id := actkit.ReleaseImages(t, "../..", "action")["action"]
	size := actkit.PullSize(t, id)
	t.Logf("action image: %s to pull, %s on disk", actkit.MB(size), actkit.MB(actkit.InspectImage(t, id).Size))
	if size > maxPullSize {
		t.Errorf("the action image is %s to pull, more than %s", actkit.MB(size), actkit.MB(maxPullSize))
	}
}
