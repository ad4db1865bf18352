package app

import (
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

// TestPromptCommandPrintsTheResolvedPrompt: sandcastle prompt prints what the agent would get,
// placeholders filled and commands run in the sandbox, and creates nothing: no branch, worktree,
// log, .git/info/exclude line; the agent never runs.
func TestPromptCommandPrintsTheResolvedPrompt(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := newRepo(t, e)
	path := promptFile(t, dir, "On {{SOURCE_BRANCH}} into {{TARGET_BRANCH}} for {{WHO}}.\nLast: !`git log -1 --format=%s`\nEcho: !`printf '%s' \"{{WHO}}\"`\n")
	before := snapshot(t, e, dir)
	inv := runMain(t, e, dir, "prompt", "--sandbox", "none", "--branch-strategy", "branch", "--branch", "agent/new", "--prompt-file", path, "--prompt-args", "WHO: \"o'brien; $(id)\"")
	if inv.code != 0 {
		t.Fatalf("exit %d, output:\n%s", inv.code, inv.output())
	}
	want := "On agent/new into main for o'brien; $(id).\nLast: initial\nEcho: o'brien; $(id)\n"
	if inv.stdout != want {
		t.Errorf("stdout = %q, want the prompt alone %q", inv.stdout, want)
	}
	if !strings.Contains(inv.stderr, "!`git log -1 --format=%s` ran: 7 bytes") {
		t.Errorf("stderr does not log the expansion:\n%s", inv.stderr)
	}
	before.check(t, e, dir, inv)
}

// TestPromptArgsEmptyWithInlinePrompt: prompt-args {} or only comments are no arguments, which
// an inline prompt takes.
func TestPromptArgsEmptyWithInlinePrompt(t *testing.T) {
	t.Parallel()
	e := hermeticEnv(t)
	dir := newRepo(t, e)
	for _, args := range []string{"{}", "# none yet\n", "  \n"} {
		inv := runMain(t, e, dir, "prompt", "--sandbox", "none", "--prompt", "Fix {{it}} !`id`", "--prompt-args", args)
		if inv.code != 0 || inv.stdout != "Fix {{it}} !`id`" {
			t.Errorf("prompt-args %q: exit %d, stdout %q; want 0 and the inline prompt verbatim\n%s", args, inv.code, inv.stdout, inv.stderr)
		}
	}
}

// TestDockerPromptCommandRunsInTheSandbox: with sandbox docker the commands of sandcastle
// prompt run in a container, as the agent's user, and the container is gone afterwards.
func TestDockerPromptCommandRunsInTheSandbox(t *testing.T) {
	actkit.RequireDocker(t)
	actkit.RequireImage(t, actkit.ClaudeImage)
	e := hermeticEnv(t)
	e["ANTHROPIC_API_KEY"] = "sk-ant-never-used-0123"
	dir := newRepo(t, e)
	path := promptFile(t, dir, "uid: !`id -u`\nwhere: !`test -f /.dockerenv && echo container`\nwho: !`printf '%s' {{WHO}}`\n")
	before := snapshot(t, e, dir)
	inv := runMain(t, e, dir, "prompt", "--sandbox", "docker", "--image", actkit.ClaudeImage, "--docker", "build-image=never",
		"--docker", "container-uid=1234", "--docker", "container-gid=1234", "--prompt-file", path, "--prompt-args", "WHO=$(id)")
	if inv.code != 0 {
		t.Fatalf("exit %d, output:\n%s", inv.code, inv.output())
	}
	if want := "uid: 1234\nwhere: container\nwho: $(id)\n"; inv.stdout != want {
		t.Errorf("stdout = %q, want %q", inv.stdout, want)
	}
	before.check(t, e, dir, inv)
	if left := containersOf(t, dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}
