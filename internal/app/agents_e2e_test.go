package app

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/launch"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The real codex, pi, opencode and copilot CLIs, each run by the action in its Docker sandbox
// against a scripted model: a tool call that commits, then the completion signal. Each CLI is
// pointed at the model the way a user points it at their own endpoint: pi and codex by a config
// file that a sandbox-ready hook writes, opencode and copilot by environment variables passed
// with the env input.

// agentRun is what one agent's run must show.
type agentRun struct {
	a       *action
	noUsage bool // the CLI reports no token counts (copilot 1.0.102 leaves them out of its JSON)
	session bool // the agent reports a session id that is saved to the host, and resumes it
	store   string
	// requests are the model's main requests; with session, the script ends with a third step
	// that answers the resumed run.
	requests func() []models.Request
}

func (r agentRun) check(t *testing.T) {
	t.Helper()
	a := r.a
	a.input("prompt", "Add a note to notes.txt, commit it, then print "+signal)
	a.input("branch-strategy", "branch")
	a.input("branch", "agent/work")
	_, out := a.runWant(0)
	for name, want := range map[string]string{"status": "complete", "commit-count": "1", "completion-signal": signal} {
		if out[name] != want {
			t.Errorf("output %s = %q, want %q", name, out[name], want)
		}
	}
	if got := a.git("log", "-1", "--format=%s", "agent/work"); got != "Add a note" {
		t.Errorf("agent/work tip = %q, want the agent's commit", got)
	}
	if u := readUsage(t, out); !r.noUsage && (u.Input != models.InputTokensPerReply*2 || u.Output != models.OutputTokensPerReply*2) {
		t.Errorf("usage output %s; want two replies' worth of input and output tokens", out["usage"])
	}
	log := readFile(t, out["log-file"])
	if !strings.Contains(log, "notes.txt") {
		t.Errorf("the log does not show the tool call:\n%s", log)
	}
	if !r.noUsage && !strings.Contains(readFile(t, a.summary), "| 1 |") {
		t.Errorf("the summary has no usage row for iteration 1:\n%s", readFile(t, a.summary))
	}
	switch {
	case !r.session:
	case out["session-id"] == "":
		t.Error("session-id is empty")
	case !strings.HasPrefix(out["session-file"], filepath.Join(a.home, r.store)+"/") || !strings.Contains(out["session-file"], out["session-id"]):
		t.Errorf("session-file = %q, want session %s saved under %s", out["session-file"], out["session-id"], filepath.Join(a.home, r.store))
	default:
		if !strings.Contains(readFile(t, out["session-file"]), "Add a note to notes.txt") {
			t.Errorf("the saved session lacks the prompt")
		}
		r.checkResume(t, out["session-id"])
	}
}

// checkResume continues the session in a new run, so a new container: the model must see the
// first run's turns.
func (r agentRun) checkResume(t *testing.T, id string) {
	t.Helper()
	a := r.a
	a.input("prompt", "Which file did you change? Then print "+signal)
	a.input("resume-session", id)
	_, out := a.runWant(0)
	if out["status"] != "complete" {
		t.Errorf("resumed run status = %q, want complete", out["status"])
	}
	reqs := r.requests()
	if tr := reqs[len(reqs)-1].Transcript(); !strings.Contains(tr, "Add a note to notes.txt") || !strings.Contains(tr, "Which file did you change?") {
		t.Errorf("the resumed request does not carry the first run's turns:\n%s", tr)
	}
}

// newAgentAction is an action running agent in the agents test image against the scripted
// Anthropic API.
func newAgentAction(t *testing.T, agent string, steps ...models.Step) *action {
	t.Helper()
	actkit.RequireImage(t, actkit.AgentsImage)
	a := newDockerAction(t, steps...)
	a.input("image", actkit.AgentsImage)
	a.input("agent", agent)
	return a
}

func TestDockerPiCommitsAndResumes(t *testing.T) {
	a := newAgentAction(t, "pi", commitBash("notes.txt", "from pi", "Add a note"), models.Text("Done. "+signal), models.Text("notes.txt. "+signal))
	piModels := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, a.model.URL())
	a.key("hooks", "sandbox-ready", "mkdir -p ~/.pi/agent && printf '%s' '"+piModels+"' > ~/.pi/agent/models.json")
	a.env["PI_OFFLINE"] = "1"
	a.input("env", a.env["INPUT_ENV"]+"\nPI_OFFLINE")
	agentRun{a: a, session: true, store: ".pi/agent/sessions", requests: a.model.Requests}.check(t)
}

func TestDockerOpenCodeCommits(t *testing.T) {
	a := newAgentAction(t, "opencode", commitBash("notes.txt", "from opencode", "Add a note"), models.Text("Done. "+signal))
	a.env["OPENCODE_CONFIG_CONTENT"] = fmt.Sprintf(`{"autoupdate":false,"share":"disabled","provider":{"scripted":{"npm":"@ai-sdk/anthropic","options":{"baseURL":%q,"apiKey":"{env:ANTHROPIC_API_KEY}"},"models":{"claude-sonnet-4-6":{}}}}}`, a.model.URL()+"/v1")
	for _, k := range []string{"OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_SHARE"} {
		a.env[k] = "1"
	}
	a.input("env", a.env["INPUT_ENV"]+"\nOPENCODE_CONFIG_CONTENT\nOPENCODE_DISABLE_AUTOUPDATE\nOPENCODE_DISABLE_MODELS_FETCH\nOPENCODE_DISABLE_SHARE")
	a.input("model", "scripted/claude-sonnet-4-6")
	agentRun{a: a}.check(t)
}

func TestDockerCopilotCommits(t *testing.T) {
	a := newAgentAction(t, "copilot", commitBash("notes.txt", "from copilot", "Add a note"), models.Text("Done. "+signal))
	// Copilot's own provider settings (BYOK): no GitHub login, no network but the model.
	a.env["COPILOT_PROVIDER_BASE_URL"] = a.model.URL()
	a.env["COPILOT_PROVIDER_TYPE"] = "anthropic"
	a.env["COPILOT_PROVIDER_API_KEY"] = models.FakeAPIKey
	a.env["COPILOT_OFFLINE"] = "true"
	a.env["COPILOT_AUTO_UPDATE"] = "false"
	a.input("env", a.env["INPUT_ENV"]+"\nCOPILOT_OFFLINE\nCOPILOT_AUTO_UPDATE")
	agentRun{a: a, noUsage: true}.check(t)
}

func TestDockerCodexCommitsAndResumes(t *testing.T) {
	a := newAgentAction(t, "codex")
	model := models.NewOpenAI(t, commitBash("notes.txt", "from codex", "Add a note"), models.Text("Done. "+signal), models.Text("notes.txt. "+signal))
	for k, v := range model.Env(launch.SandboxHome) {
		if k != "HOME" && k != "CODEX_HOME" {
			a.env[k] = v
		}
	}
	// Each hook line is one command, so the file travels base64-encoded.
	config := base64.StdEncoding.EncodeToString([]byte(model.CodexConfig()))
	a.key("hooks", "sandbox-ready", "mkdir -p ~/.codex && echo "+config+" | base64 -d > ~/.codex/config.toml")
	agentRun{a: a, session: true, store: ".codex/sessions", requests: model.Requests}.check(t)
}
