package testkit

import (
	"fmt"
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
	SkipOrFail(t, fmt.Sprintf("binary %q not found on PATH (%v)", name, err), InstallHint(name))
	return ""
}

// RequireRoot skips the test unless this process runs as root, which what it does (why) needs;
// under CI=true it fails instead, since CI runs the tests as root (.github/workflows/ci.yml runs
// .ci/run with sudo), as the runner runs a container Action.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		SkipOrFail(t, "not root, and "+why+" needs root", "run the tests as root (sudo), as CI does")
	}
}

// SkipOrFail skips the test for want of what reason names, with hint on how to provide it; under
// CI=true it fails the test instead, since CI must never pass by silently skipping a tier. The
// caller must return after it: a testing.TB other than *testing.T may not stop the test. The
// Require helpers of this package and of actkit keep to it.
func SkipOrFail(t testing.TB, reason, hint string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true, so not skipping); %s", reason, hint)
		return
	}
	t.Skipf("skipping: %s; %s", reason, hint)
}

// InstallHint says how to install the program name that a test needs.
func InstallHint(name string) string {
	switch name {
	case "claude":
		return "install it with `npm install -g @anthropic-ai/claude-code@" + ClaudeCodeVersion + "`"
	case "codex":
		return "install it with `npm install -g @openai/codex@" + CodexVersion + "`"
	case "git":
		return "install git (e.g. `apt-get install git`)"
	case "act":
		return "install it with scripts/install-act.sh and put the directory it prints on PATH"
	case "actionlint":
		return "install it with scripts/install-actionlint.sh and put the directory it prints on PATH"
	default:
		return "install " + name + " and put it on PATH"
	}
}
