package launch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// The Docker tier: Start against the real engine, with the offline base image.

// repo is a repository with one commit, for a container to work on.
func repo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "initial"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// start starts a container on dir with d, and stops it when the test ends.
func start(t *testing.T, d Docker, dir string) (*Container, *gitguard.Guard, *strings.Builder) {
	t.Helper()
	actkit.RequireDocker(t)
	actkit.RequireImage(t, actkit.BaseImage)
	guard, err := gitguard.Take(t.Context(), git.New(dir, nil).WithConfig("safe.directory=*"))
	if err != nil {
		t.Fatal(err)
	}
	var console strings.Builder
	log := report.NewConsole(&console, nil, false).NewLog(nil, nil)
	c, err := d.Start(t.Context(), dir, dir, map[string]string{"PATH": "/host/bin", "SANDCASTLE_TEST": "passed"}, guard, log)
	if err != nil {
		guard.Close(t.Context())
		t.Fatalf("Start: %v\n%s", err, console.String())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Error(err)
		}
		if _, err := guard.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return c, guard, &console
}

func sh(t *testing.T, sb sandbox.Sandbox, script string) sandbox.Result {
	t.Helper()
	r, err := sb.Exec(t.Context(), sandbox.Exec{Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dockerOf(sync inputs.SyncMode) Docker {
	uid, gid := 1000, 1000
	return Docker{Config: inputs.DockerConfig{Image: actkit.BaseImage, Build: inputs.BuildNever, Sync: sync,
		UID: &uid, GID: &gid, Memory: 256 << 20, PidsLimit: 256}}
}

// TestStart_mounts_the_workspace_and_guards_git: the workspace is at its own path, the host's
// own variables stay out, the agent is the user the inputs name, an extra mount is under the
// agent's home, and git's hooks cannot be planted.
func TestStart_mounts_the_workspace_and_guards_git(t *testing.T) {
	t.Parallel()
	dir := repo(t)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "seed"), []byte("seed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := dockerOf(inputs.SyncMount)
	d.Config.Mounts = []inputs.Mount{{Host: data, Sandbox: "~/data", ReadOnly: true}}
	c, _, console := start(t, d, dir)
	if c.Copied || c.RepoDir() != dir {
		t.Errorf("copied %v, repo dir %q; want %q mounted", c.Copied, c.RepoDir(), dir)
	}
	r := sh(t, c, `echo "$PWD|$SANDCASTLE_TEST|$PATH|$(id -u):$(id -g)|$(cat ~/data/seed)"; touch .git/hooks/planted 2>/dev/null && echo planted`)
	fields := strings.Split(strings.TrimSpace(r.Stdout), "|")
	if len(fields) != 5 || fields[0] != dir || fields[1] != "passed" || fields[2] == "/host/bin" || fields[3] != "1000:1000" || fields[4] != "seed" {
		t.Errorf("inside: %q (stderr %q)", r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "planted") {
		t.Error("the agent could write .git/hooks")
	}
	if !strings.Contains(console.String(), "started from "+actkit.BaseImage) {
		t.Errorf("log %q", console.String())
	}
}

// TestStart_copies_the_workspace: with sandbox-sync copy the workspace is copied in, owned by
// the agent, and only its commits come back out.
func TestStart_copies_the_workspace(t *testing.T) {
	t.Parallel()
	dir := repo(t)
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, console := start(t, dockerOf(inputs.SyncCopy), dir)
	if !c.Copied {
		t.Fatal("not copied")
	}
	if r := sh(t, c, "cat README && touch new && ls -n README | awk '{print $3}'"); r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "hi\n") || !strings.HasSuffix(strings.TrimSpace(r.Stdout), "1000") {
		t.Errorf("inside: %q, %q", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("a file made in the copy reached the host: %v", err)
	}
	if !strings.Contains(console.String(), "Copied the repository into the sandbox") {
		t.Errorf("log %q", console.String())
	}
}

// startFailing starts a container for d, with its image set by image, on a fresh repository,
// and returns what was logged and the error, which it requires.
func startFailing(t *testing.T, d Docker, image func(c *inputs.DockerConfig, dir string)) (string, error) {
	t.Helper()
	actkit.RequireDocker(t)
	dir := repo(t)
	guard, err := gitguard.Take(t.Context(), git.New(dir, nil).WithConfig("safe.directory=*"))
	if err != nil {
		t.Fatal(err)
	}
	defer guard.Close(t.Context())
	image(&d.Config, dir)
	var console strings.Builder
	log := report.NewConsole(&console, nil, false).NewLog(nil, nil)
	c, err := d.Start(t.Context(), dir, dir, nil, guard, log)
	if err == nil {
		c.Close(t.Context())
		t.Fatalf("Start of image %s succeeded", d.Config.Image)
	}
	return console.String(), err
}

// TestStart_missing_image: an image that is not there and may not be built fails the start.
func TestStart_missing_image(t *testing.T) {
	t.Parallel()
	startFailing(t, dockerOf(inputs.SyncMount), func(c *inputs.DockerConfig, _ string) { c.Image = "sandcastle-test:never-built" })
}

// TestStart_published_image_out_of_reach: the published image of a run without a Dockerfile
// that can be neither found nor pulled (offline here: the registry's name does not resolve) is
// an error of the input image, which says what to set instead.
func TestStart_published_image_out_of_reach(t *testing.T) {
	t.Parallel()
	const image = "registry.invalid/sandcastle-sandbox-claude-code:0.0.0"
	var dockerfile string
	console, err := startFailing(t, dockerOf(inputs.SyncMount), func(c *inputs.DockerConfig, dir string) {
		c.Image, c.Prebuilt, c.Pull = image, true, true
		c.Dockerfile = filepath.Join(dir, ".sandcastle", "Dockerfile")
		dockerfile = c.Dockerfile
	})
	var re *inputs.RuntimeError
	if !errors.As(err, &re) || re.Input != inputs.InputImage {
		t.Fatalf("error %v (%T), want a RuntimeError of input image", err, err)
	}
	for _, want := range []string{"pull image " + image, "set image to an image this Docker engine has", "write a dockerfile", dockerfile} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !strings.Contains(console, "the sandbox runs the published image "+image) {
		t.Errorf("the log does not say which image the run pulls:\n%s", console)
	}
}

// TestCheckUser: the agent never runs as root: in a workspace of root's it is AgentUID.
func TestCheckUser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	owner, group := workspace.Owner(dir)
	uid, gid := Docker{Workspace: dir}.User()
	switch {
	case owner == 0 && (uid != AgentUID || gid != AgentGID):
		t.Errorf("a workspace of root's: User = %d:%d, want %d:%d", uid, gid, AgentUID, AgentGID)
	case owner != 0 && (uid != owner || gid != group):
		t.Errorf("a workspace of %d:%d: User = %d:%d, want its owner", owner, group, uid, gid)
	}
	if err := (Docker{Workspace: dir}).CheckUser(); err != nil {
		t.Errorf("owner %d: CheckUser = %v", owner, err)
	}
	if err := dockerOf(inputs.SyncAuto).CheckUser(); err != nil {
		t.Errorf("uid 1000: %v", err)
	}
	if err := (Docker{Workspace: filepath.Join(dir, "missing")}).CheckUser(); err == nil || !strings.Contains(err.Error(), "container-uid") {
		t.Errorf("unknown owner: %v", err)
	}
}

// TestStart_without_a_daemon: a daemon that cannot be reached is the sandbox input's problem,
// found once the run started.
func TestStart_without_a_daemon(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	dir := repo(t)
	guard, err := gitguard.Take(t.Context(), git.New(dir, nil).WithConfig("safe.directory=*"))
	if err != nil {
		t.Fatal(err)
	}
	defer guard.Close(t.Context())
	log := report.NewConsole(nil, nil, false).NewLog(nil, nil)
	_, err = dockerOf(inputs.SyncAuto).Start(t.Context(), dir, dir, nil, guard, log)
	var re *inputs.RuntimeError
	if !errors.As(err, &re) || re.Input != inputs.InputSandbox || !strings.Contains(err.Error(), "or use sandbox: none") {
		t.Errorf("Start = %v; want a RuntimeError of sandbox", err)
	}
}

// TestStart_sweeps_what_a_dead_run_left: a container of this repository whose process is gone
// is removed before the new one starts; one of a live process is left alone.
func TestStart_sweeps_what_a_dead_run_left(t *testing.T) {
	t.Parallel()
	actkit.RequireDocker(t)
	actkit.RequireImage(t, actkit.BaseImage)
	dir := repo(t)
	engine, err := docker.New(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	left, err := engine.Start(t.Context(), docker.Options{Image: actkit.BaseImage, Owner: host + "/2147483646/1", Repo: dir, User: "1000:1000"})
	if err != nil {
		t.Fatal(err)
	}
	defer left.Close(context.WithoutCancel(t.Context()))
	_, _, console := start(t, dockerOf(inputs.SyncMount), dir)
	if !strings.Contains(console.String(), "Removed 1 container(s) left by an earlier run") {
		t.Errorf("log %q; want the dead run's container swept", console.String())
	}
}
