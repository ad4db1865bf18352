package app

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// workspaceUID is the owner of the checkout in these tests, as the runner's user owns it on
// GitHub while the Action runs as root.
const workspaceUID = 1001

// newDockerAction is an Action run whose agent runs in a container of the test image that has
// the real claude, on the host network so that it reaches the scripted model on loopback.
func newDockerAction(t *testing.T, steps ...models.Step) *action {
	t.Helper()
	actkit.RequireDocker(t)
	actkit.RequireImage(t, actkit.ClaudeImage)
	testkit.RequireRoot(t, "giving the checkout to another user, as the runner does,")
	a := newAction(t, steps...)
	for k, v := range a.model.Env(launch.SandboxHome) {
		if k != "HOME" && k != "TMPDIR" {
			a.env[k] = v
		}
	}
	a.input("sandbox", "docker")
	a.input("image", actkit.ClaudeImage)
	a.key("docker", "build-image", "never")
	a.key("docker", "network", "host")
	chownTree(t, a.dir, workspaceUID)
	return a
}

func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ownerUID(t *testing.T, path string) uint32 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Uid
}

// containersOf lists the containers labelled with the repository at dir, running or not.
func containersOf(t *testing.T, dir string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(filepath.Clean(dir)))
	label := "label=sandcastle.repo=" + hex.EncodeToString(sum[:8])
	out, err := exec.Command("docker", "ps", "-aq", "--filter", label).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDockerClaudeCommitsInContainer(t *testing.T) {
	a := newDockerAction(t,
		commitBash("notes.txt", "from the container", "Add a note"),
		models.Bash("id -u > uid.txt; (grep -c CapEff /proc/self/status; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status; env | grep -c GITHUB_TOKEN; test -S /var/run/docker.sock && echo socket || echo nosocket) >> uid.txt"),
		models.Text("Done. "+signal),
	)
	a.env["GITHUB_TOKEN"] = "ghs_never_in_the_sandbox"
	a.input("push", "none") // origin is a local path, which the token is never sent to
	a.input("prompt", "Add a note, commit, then print "+signal)
	a.input("branch-strategy", "branch")
	a.input("branch", "agent/docker")
	_, out := a.runWant(0)
	if out["status"] != "complete" || out["commit-count"] != "1" || out["branch"] != "agent/docker" {
		t.Errorf("outputs %v; want complete with one commit on agent/docker", out)
	}
	if got := a.git("log", "-1", "--format=%s", "agent/docker"); got != "Add a note" {
		t.Errorf("agent/docker tip = %q, want the agent's commit", got)
	}
	wt := out["preserved-worktree"]
	if wt == "" {
		t.Fatal("the worktree with uid.txt (untracked) was not preserved")
	}
	facts := readFile(t, filepath.Join(wt, "uid.txt"))
	for _, want := range []string{"1001\n", "CapEff:\t0000000000000000", "NoNewPrivs:\t1", "\n0\n", "nosocket"} {
		if !strings.Contains(facts, want) {
			t.Errorf("inside the sandbox: %q lacks %q", facts, want)
		}
	}
	if got := ownerUID(t, filepath.Join(wt, "notes.txt")); got != workspaceUID {
		t.Errorf("notes.txt is owned by %d, want the workspace owner %d", got, workspaceUID)
	}
	for _, p := range []string{wt, filepath.Join(a.dir, ".sandcastle", "logs"), filepath.Join(a.dir, ".git", "worktrees")} {
		if got := ownerUID(t, p); got != workspaceUID {
			t.Errorf("%s is owned by %d after the run, want the workspace owner %d", p, got, workspaceUID)
		}
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}

// TestDockerRootOwnedCheckout: in a checkout of root's, as act and the runners built on it make
// one, the agent runs as launch.AgentUID, never root, and commits there; afterwards every file
// is root's again, and the git directory's custody saw no change of owner.
func TestDockerRootOwnedCheckout(t *testing.T) {
	a := newDockerAction(t, commitBash("notes.txt", "from uid 1000", "Add a note"), models.Bash("id -u > uid.txt"), models.Text("Done. "+signal))
	chownTree(t, a.dir, 0)
	a.input("push", "none")
	a.input("prompt", "Add a note, commit, then print "+signal)
	_, out := a.runWant(0)
	if out["status"] != "complete" || out["commit-count"] != "1" || out["restored-git-files"] != "[]" {
		t.Errorf("outputs %v; want complete with one commit and no git file put back", out)
	}
	if got := readFile(t, filepath.Join(a.dir, "uid.txt")); got != strconv.Itoa(launch.AgentUID)+"\n" {
		t.Errorf("the agent ran as uid %q, want %d", got, launch.AgentUID)
	}
	if got := a.git("log", "-1", "--format=%s"); got != "Add a note" {
		t.Errorf("HEAD = %q, want the agent's commit", got)
	}
	err := filepath.Walk(a.dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Sys().(*syscall.Stat_t).Uid != 0 {
			t.Errorf("%s is owned by %d after the run, want root", p, fi.Sys().(*syscall.Stat_t).Uid)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDockerSIGTERMRemovesContainer sends SIGTERM to the real sandcastle binary, as the runner
// does when a job is cancelled, while the agent works in its container: the binary stops the
// agent, removes the container, reports the commit made before the cancel, keeps it on its
// branch and exits non-zero; with the workspace mounted or copied in.
func TestDockerSIGTERMRemovesContainer(t *testing.T) {
	for _, sync := range []string{"mount", "copy"} {
		t.Run(sync, func(t *testing.T) {
			a := newDockerAction(t, commitBash("a.txt", "a", "Before the cancel"), models.Hang())
			a.input("prompt", "Work until cancelled.")
			a.input("branch-strategy", "merge-to-head")
			a.key("docker", "sync", sync)
			cmd, out := startBinary(t, a)
			if err := a.model.WaitRequests(t.Context(), 2); err != nil {
				cmd.Process.Kill()
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			t.Logf("output:\n%s", out.String())
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("sandcastle ended with %v, want exit code 1", err)
			}
			outputs := a.readOutputs()
			if outputs["status"] != "cancelled" || outputs["commit-count"] != "1" {
				t.Errorf("status %q commit-count %q; want cancelled with the commit reported", outputs["status"], outputs["commit-count"])
			}
			if kept := outputs["branch"]; !strings.HasPrefix(kept, "sandcastle/") || a.git("log", "-1", "--format=%s", kept) != "Before the cancel" {
				t.Errorf("branch output %q does not hold the agent's commit", kept)
			}
			if left := containersOf(t, a.dir); left != "" {
				t.Errorf("containers left behind after SIGTERM: %s", left)
			}
		})
	}
}

// startBinary builds sandcastle and starts it as the Action, with a's environment.
func startBinary(t *testing.T, a *action) (*exec.Cmd, *testkit.SyncBuffer) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sandcastle")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Dir = a.dir
	for k, v := range a.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// TestDockerSweepsContainerOfKilledRun kills sandcastle with SIGKILL, which leaves its container
// running; the next run on the repository removes it before starting its own.
func TestDockerSweepsContainerOfKilledRun(t *testing.T) {
	a := newDockerAction(t, models.Hang(), models.Text("Second run done. "+signal))
	a.input("prompt", "Work.")
	cmd, _ := startBinary(t, a)
	if err := a.model.WaitRequests(t.Context(), 1); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left := containersOf(t, a.dir); left == "" {
		t.Fatal("no container left by the killed run: nothing to sweep, the test proves nothing")
	}
	inv := a.run()
	if inv.code != 0 {
		t.Fatalf("second run: exit %d", inv.code)
	}
	if !strings.Contains(inv.stdout, "Removed 1 container(s) left by an earlier run") {
		t.Errorf("the second run did not report the sweep:\n%s", inv.stdout)
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left after the second run: %s", left)
	}
}

// imageOf is an image's ID and its sandcastle.dockerfile-sha256 label.
func imageOf(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("docker", "image", "inspect", "-f", `{{.Id}} {{index .Config.Labels "sandcastle.dockerfile-sha256"}}`, name).CombinedOutput()
	if err != nil {
		t.Fatalf("docker image inspect %s: %v\n%s", name, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestInitThenRunBuildsSandboxImage is the path of a new user: `sandcastle init` writes
// .sandcastle/Dockerfile, and the first run with every Docker default builds the image
// sandcastle:<repo dir> from it, on the published sandbox image (the agent user gets the
// workspace owner's ids), then runs the real claude that image carries (or finds it current,
// when an earlier test run on this machine built it: EnsureImage's build-or-skip rule itself is
// tested in package docker). A second run does not build again.
func TestInitThenRunBuildsSandboxImage(t *testing.T) {
	a := newDockerAction(t,
		commitBash("notes.txt", "from the scaffolded image", "Note from the scaffolded image"),
		models.Text("Done. "+signal),
		models.Text("Nothing left. "+signal),
	)
	publishedSandbox(t)
	if inv := runMain(t, a.env, a.dir, "init"); inv.code != 0 {
		t.Fatalf("init: exit %d\n%s", inv.code, inv.output())
	}
	chownTree(t, a.dir, workspaceUID)
	// The defaults (sandcastle:repo, built when needed), the network kept.
	delete(a.env, inputs.EnvName("image"))
	a.env[inputs.EnvName("docker")] = ""
	a.key("docker", "network", "host")
	a.input("prompt", "Add a note, commit, then print "+signal)
	inv := a.run()
	if inv.code != 0 {
		t.Fatalf("first run: exit %d", inv.code)
	}
	out := a.readOutputs()
	if out["status"] != "complete" || out["commit-count"] != "1" {
		t.Errorf("outputs %v; want complete with one commit", out)
	}
	if got := a.git("log", "-1", "--format=%s"); got != "Note from the scaffolded image" {
		t.Errorf("HEAD is %q, want the agent's commit", got)
	}
	if got := ownerUID(t, filepath.Join(a.dir, "notes.txt")); got != workspaceUID {
		t.Errorf("notes.txt owned by %d, want %d", got, workspaceUID)
	}
	built := imageOf(t, "sandcastle:repo")
	if !strings.Contains(built, " ") || strings.HasSuffix(built, " ") {
		t.Errorf("image sandcastle:repo = %q, want an ID and the Dockerfile label of a build by sandcastle", built)
	}
	writeFile(t, a.outputs, "")
	if second := a.run(); second.code != 0 {
		t.Fatalf("second run: exit %d", second.code)
	}
	if again := imageOf(t, "sandcastle:repo"); again != built {
		t.Errorf("the second run rebuilt the image (%s, was %s) although the Dockerfile did not change", again, built)
	}
}
