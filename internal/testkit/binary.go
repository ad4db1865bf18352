package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// ClaudeCodeVersion is the version of @anthropic-ai/claude-code whose wire behaviour the
// Anthropic stand-in was checked against.
const ClaudeCodeVersion = "2.1.332"

// CodexVersion is the version of @openai/codex whose wire behaviour the OpenAI stand-in was
// checked against.
const CodexVersion = "0.171.0"

// RequireBinary returns the path of the executable name found on PATH. When it is missing the
// test is skipped with install instructions, except under CI=true, where it fails: CI must never
// pass by silently skipping the end-to-end tier.
func RequireBinary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("required binary %q not found on PATH (CI=true, so not skipping): %v; %s", name, err, installHint(name))
		return ""
	}
	t.Skipf("skipping: binary %q not found on PATH; %s", name, installHint(name))
	return ""
}

func installHint(name string) string {
	switch name {
	case "claude":
		return "install it with `npm install -g @anthropic-ai/claude-code@" + ClaudeCodeVersion + "`"
	case "codex":
		return "install it with `npm install -g @openai/codex@" + CodexVersion + "`"
	case "git":
		return "install git (e.g. `apt-get install git`)"
	default:
		return "install " + name + " and put it on PATH"
	}
}
