package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/fakeclaude"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
	"go.yaml.in/yaml/v3"
)

// These tests run the real Claude Code CLI through Main, as the Action does, against a scripted
// Messages API server. They fail in CI when claude is missing.

const signal = "<promise>COMPLETE</promise>"

// action is one Action run: a repository, the model script (or the fake claude's) and the
// runner's files.
type action struct {
	t       *testing.T
	env     env
	dir     string
	model   *models.Anthropic  // the real claude's model; nil with the fake claude
	claude  *fakeclaude.Claude // nil with the real claude
	outputs string
	summary string
	home    string
}

func newAction(t *testing.T, steps ...models.Step) *action {
	t.Helper()
	claude := testkit.RequireBinary(t, "claude")
	e := hermeticEnv(t)
	e["PATH"] = filepath.Dir(claude) + string(os.PathListSeparator) + os.Getenv("PATH")
	a := &action{t: t, env: e, dir: newRepo(t, e), model: models.NewAnthropic(t, steps...)}
	a.home = t.TempDir()
	for k, v := range a.model.Env(a.home) {
		e[k] = v
	}
	a.asRunner()
	return a
}

// newFakeAction is newAction with testkit's fake claude, which the steps script directly: no
// npm, no model server.
func newFakeAction(t *testing.T, steps ...models.Step) *action {
	t.Helper()
	e := hermeticEnv(t)
	a := &action{t: t, env: e, dir: newRepo(t, e), claude: fakeclaude.New(t, steps...), home: e["HOME"]}
	e["PATH"] = a.claude.Dir() + string(os.PathListSeparator) + e["PATH"]
	a.asRunner()
	return a
}

// asRunner sets a's environment as the runner does for the Action's step.
func (a *action) asRunner() {
	t, e := a.t, a.env
	runner := t.TempDir()
	a.outputs = filepath.Join(runner, "output")
	a.summary = filepath.Join(runner, "summary")
	writeFile(t, a.outputs, "")
	writeFile(t, a.summary, "")
	e["GITHUB_ACTIONS"] = "true"
	e["GITHUB_WORKSPACE"] = a.dir
	e["GITHUB_OUTPUT"] = a.outputs
	e["GITHUB_STEP_SUMMARY"] = a.summary
	// The runner passes every default of action.yml as if the workflow had set it.
	for name, v := range actionDefaults(t) {
		if !strings.HasPrefix(v, "${{") { // an expression the runner evaluates (github.token)
			a.input(name, v)
		}
	}
	// claude's own switches that keep it offline and quiet; they reach it through the env input,
	// as a user's would.
	a.input("env", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC\nCLAUDE_CODE_MAX_RETRIES")
	a.input("sandbox", "none")
}

func (a *action) input(name, value string) { a.env[inputs.EnvName(name)] = value }

// usageOutput is the part of the usage output the tests read.
type usageOutput struct {
	Input  int      `json:"input_tokens"`
	Output int      `json:"output_tokens"`
	Cost   *float64 `json:"cost_usd"`
}

// readUsage reads the usage output of out.
func readUsage(t *testing.T, out map[string]string) usageOutput {
	t.Helper()
	var u usageOutput
	if err := json.Unmarshal([]byte(out["usage"]), &u); err != nil {
		t.Errorf("usage output %q: %v", out["usage"], err)
	}
	return u
}

// key sets key of the map input group, beside the keys set before, as a workflow's YAML block
// would (the value quoted as a JSON string, which YAML reads as written).
func (a *action) key(group, key, value string) {
	q, _ := json.Marshal(value)
	a.env[inputs.EnvName(group)] += key + ": " + string(q) + "\n"
}

// actionDefaults are the defaults action.yml gives inputs, by name.
func actionDefaults(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default *string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	defaults := map[string]string{}
	for name, in := range action.Inputs {
		if in.Default != nil {
			defaults[name] = *in.Default
		}
	}
	return defaults
}

func (a *action) run() invocation {
	a.t.Helper()
	return a.runContext(a.t.Context())
}

func (a *action) runContext(ctx context.Context) invocation {
	a.t.Helper()
	inv := runMainContext(ctx, a.t, a.env, a.dir)
	a.t.Logf("exit %d; output:\n%s", inv.code, inv.output())
	return inv
}

// runWant runs the Action, fails the test unless it exits with code, and returns the run and
// its outputs.
func (a *action) runWant(code int) (invocation, map[string]string) {
	a.t.Helper()
	inv := a.run()
	if inv.code != code {
		a.t.Fatalf("exit code %d, want %d", inv.code, code)
	}
	return inv, a.readOutputs()
}

// readOutputs parses GITHUB_OUTPUT as the runner does: name=value lines and name<<DELIM blocks.
func (a *action) readOutputs() map[string]string {
	a.t.Helper()
	f, err := os.Open(a.outputs)
	if err != nil {
		a.t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
		}
	}
	for _, o := range report.Outputs() {
		if _, ok := out[o.Name]; !ok {
			a.t.Errorf("output %q was not written", o.Name)
		}
	}
	return out
}

func (a *action) git(args ...string) string {
	a.t.Helper()
	return gitRun(a.t, a.env, a.dir, args...)
}

// commitBash is a Bash step that edits a file and commits it.
func commitBash(file, line, msg string) models.Step {
	return models.Bash("echo '" + line + "' >> " + file + " && git add " + file + " && git commit -qm '" + msg + "'")
}

func commitList(t *testing.T, js string) []string {
	t.Helper()
	var shas []string
	if err := json.Unmarshal([]byte(js), &shas); err != nil {
		t.Fatalf("commits output %q is not a JSON array: %v", js, err)
	}
	return shas
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestClaudeEditsCommitsAndSignals(t *testing.T) {
	t.Parallel()
	a := newAction(t,
		commitBash("notes.txt", "hello from the agent", "Add a note"),
		models.Text("I added the note. The key was "+models.FakeAPIKey+". "+signal),
	)
	base := a.git("rev-parse", "HEAD")
	gitConfig := readFile(t, filepath.Join(a.dir, ".git", "config"))
	a.input("prompt", "Add a note to notes.txt, commit it, then print "+signal)
	a.input("max-iterations", "3")
	inv, out := a.runWant(0)
	if got := a.model.Requests()[0].Transcript(); !strings.Contains(got, "user: Add a note to notes.txt") {
		t.Errorf("the model did not receive the prompt as the user's text:\n%s", got)
	}
	head := a.git("rev-parse", "HEAD")
	if got := commitList(t, out["commits"]); len(got) != 1 || got[0] != head {
		t.Errorf("commits = %v, want [%s]", got, head)
	}
	for name, want := range map[string]string{
		"status": "complete", "iterations": "1", "completion-signal": signal, "commit-count": "1",
		"branch": "main", "base-sha": base, "head-sha": head,
	} {
		if out[name] != want {
			t.Errorf("output %s = %q, want %q", name, out[name], want)
		}
	}
	if got := a.git("log", "-1", "--format=%s %an"); got != "Add a note sandcastle-agent[bot]" {
		t.Errorf("last commit = %q, want the agent's commit with the default identity", got)
	}
	if u := readUsage(t, out); out["session-id"] == "" || u.Input == 0 || u.Output == 0 || u.Cost == nil || out["cost-usd"] == "" || atoi(t, out["total-tokens"]) == 0 {
		t.Errorf("session and usage outputs missing: %v", out)
	}
	log := readFile(t, out["log-file"])
	for _, want := range []string{"Iteration 1/3", "Bash(", "I added the note.", "Run complete"} {
		if !strings.Contains(log, want) {
			t.Errorf("log file lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(inv.stdout, "::stop-commands::") {
		t.Errorf("agent output is not fenced with stop-commands:\n%s", inv.stdout)
	}
	summary := readFile(t, a.summary)
	for _, want := range []string{"complete", head[:7], "Add a note"} {
		if !strings.Contains(summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, summary)
		}
	}
	jobLog := strings.ReplaceAll(inv.stdout, "::add-mask::"+models.FakeAPIKey+"\n", "") // the runner must learn the secret
	if strings.Contains(log+jobLog+readFile(t, a.summary)+readFile(t, a.outputs), models.FakeAPIKey) {
		t.Error("the API key reached the log, the job log, the summary or the outputs unmasked")
	}
	if got := readFile(t, filepath.Join(a.dir, ".git", "config")); got != gitConfig {
		t.Errorf(".git/config changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(a.home, ".gitconfig")); !os.IsNotExist(err) {
		t.Errorf("a global git config was written (stat: %v)", err)
	}
}

// TestClaudeHeadRunsOneAtATime starts a second head run in a checkout while the first one's
// agent is at work there: the second is refused before its agent starts, saying once that the
// checkout is in use, and the first reports exactly its own agent's commit.
func TestClaudeHeadRunsOneAtATime(t *testing.T) {
	t.Parallel()
	release := filepath.Join(t.TempDir(), "release")
	a := newAction(t,
		commitBash("a.txt", "from the first run", "Work of the first run"),
		models.Bash("while [ ! -e "+release+" ]; do sleep 0.1; done"),
		models.Text("Done. "+signal),
	)
	a.input("prompt", "Work in the checkout.")
	b := newAction(t) // its agent must never start: any request to its model fails the test
	b.dir, b.env["GITHUB_WORKSPACE"] = a.dir, a.dir
	b.input("prompt", "Work in the same checkout.")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := make(chan invocation, 1)
	go func() { first <- a.runContext(ctx) }()
	if err := a.model.WaitRequests(ctx, 2); err != nil { // its commit is made; it waits for release
		t.Fatal(err)
	}
	second := b.run()
	writeFile(t, release, "")
	if inv := <-first; inv.code != 0 {
		t.Fatalf("first run: exit code %d, want 0", inv.code)
	}

	if second.code != exitFailed {
		t.Errorf("second run: exit code %d, want %d", second.code, exitFailed)
	}
	if got := second.output(); strings.Count(got, "in use") != 1 || !strings.Contains(got, "the checkout "+a.dir+" is in use by another sandcastle run (pid ") {
		t.Errorf("second run does not say once that the checkout is in use:\n%s", got)
	}
	out := a.readOutputs()
	mine := a.git("log", "-1", "--format=%H", "--grep", "Work of the first run")
	if got := commitList(t, out["commits"]); len(got) != 1 || got[0] != mine || out["status"] != "complete" {
		t.Errorf("first run: status %q, commits %v; want complete with only its own commit %s", out["status"], got, mine)
	}
}

func TestClaudeRunsOutOfIterations(t *testing.T) {
	t.Parallel()
	a := newAction(t,
		commitBash("a.txt", "one", "First step"),
		models.Text("Did step one, more to do."),
		commitBash("b.txt", "two", "Second step"),
		models.Text("Did step two, more to do."),
		models.Text("Looked around, nothing changed."),
	)
	a.input("prompt", "Work through the plan one step per run.")
	a.input("max-iterations", "3")
	inv := a.run()
	if inv.code != 0 {
		t.Fatalf("exit code %d, want 0 (running out of iterations is an outcome, not a failure)", inv.code)
	}
	out := a.readOutputs()
	if out["status"] != "incomplete" || out["iterations"] != "3" || out["completion-signal"] != "" {
		t.Errorf("status %q, iterations %q, signal %q; want incomplete, 3, none", out["status"], out["iterations"], out["completion-signal"])
	}
	want := strings.Fields(a.git("log", "--reverse", "--format=%H", "-2"))
	if got := commitList(t, out["commits"]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("commits = %v, want the two agent commits oldest first %v", got, want)
	}
	if got := len(a.model.Requests()); got != 5 {
		t.Errorf("model saw %d requests, want 5 across three fresh sessions", got)
	}
	if !strings.Contains(readFile(t, a.summary), "3 / 3") && !strings.Contains(readFile(t, a.summary), "3/3") {
		t.Errorf("summary does not show 3 of 3 iterations:\n%s", readFile(t, a.summary))
	}
}

const schema = `{"type":"object","required":["summary","score"],"properties":{"summary":{"type":"string"},"score":{"type":"integer"}}}`

func TestClaudeStructuredOutput(t *testing.T) {
	t.Parallel()
	a := newAction(t, models.Text("Here it is:\n<result>\n```json\n{\"summary\": \"all good\", \"score\": 7}\n```\n</result>\n"+signal))
	a.input("prompt", "Review the repo and answer inside <result> tags as JSON.")
	a.input("output-tag", "result")
	a.input("output-schema", schema)
	if inv := a.run(); inv.code != 0 {
		t.Fatalf("exit code %d, want 0", inv.code)
	}
	out := a.readOutputs()
	if got, want := out["output"], `{"summary":"all good","score":7}`; got != want {
		t.Errorf("output = %s, want %s", got, want)
	}
	if !strings.Contains(readFile(t, a.summary), `"summary": "all good"`) {
		t.Errorf("summary lacks the structured output:\n%s", readFile(t, a.summary))
	}
}

func TestClaudeStructuredOutputRetryResumesSession(t *testing.T) {
	t.Parallel()
	checkRetryResumesSession(t, newAction)
}

// checkRetryResumesSession runs a structured-output retry with the action newAction makes: the
// retry resumes the session, so the model sees the first answer and the problem with it.
func checkRetryResumesSession(t *testing.T, newAction func(*testing.T, ...models.Step) *action) {
	t.Helper()
	a := newAction(t,
		models.Text(`<result>{"summary": "all good", "score": "high"}</result>`),
		models.Text(`<result>{"summary": "all good", "score": 9}</result>`),
	)
	a.input("prompt", "Review the repo and answer inside <result> tags as JSON. Remember the word PELICAN.")
	a.input("output-tag", "result")
	a.input("output-schema", schema)
	a.input("output-max-retries", "2")
	_, out := a.runWant(0)
	if got, want := out["output"], `{"summary":"all good","score":9}`; got != want {
		t.Errorf("output = %s, want %s", got, want)
	}
	reqs := a.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model saw %d requests, want 2", len(reqs))
	}
	retry := reqs[1].Transcript()
	for _, want := range []string{"PELICAN", `"high"`, "/score"} {
		if !strings.Contains(retry, want) {
			t.Errorf("the retry does not carry %q: the session was not resumed with the problem; transcript:\n%s", want, retry)
		}
	}
	if out["iterations"] != "2" {
		t.Errorf("iterations = %q, want 2 (the run and its retry)", out["iterations"])
	}
	if out["session-id"] == "" || out["session-file"] == "" {
		t.Errorf("session-id %q, session-file %q; want the session named and saved", out["session-id"], out["session-file"])
	}
}

func TestClaudeStructuredOutputMissing(t *testing.T) {
	t.Parallel()
	a := newAction(t, commitBash("x.txt", "x", "Work"), models.Text("I forgot the tag. "+signal))
	a.input("prompt", "Answer inside <result> tags.")
	a.input("output-tag", "result")
	inv, out := a.runWant(1)
	if out["status"] != "failed" || out["output"] != "" {
		t.Errorf("status %q output %q; want failed and no output", out["status"], out["output"])
	}
	if out["commit-count"] != "1" {
		t.Errorf("commit-count = %q: the agent's commit must still be reported", out["commit-count"])
	}
	if !strings.Contains(inv.stdout, "<result> not found") {
		t.Errorf("error does not say the tag was not found:\n%s", inv.stdout)
	}
}

func TestClaudeIdleTimeoutKillsAgent(t *testing.T) {
	t.Parallel()
	a := newAction(t, commitBash("x.txt", "x", "Work"), models.Hang())
	a.input("prompt", "Work, then think forever.")
	a.key("timeouts", "idle-seconds", "10") // long enough for claude to start on a loaded machine
	inv, out := a.runWant(1)
	if out["status"] != "failed" || out["commit-count"] != "1" {
		t.Errorf("status %q commit-count %q; want failed with the commit kept", out["status"], out["commit-count"])
	}
	if !strings.Contains(inv.stdout, "idle-seconds") {
		t.Errorf("error does not point at idle-seconds:\n%s", inv.stdout)
	}
	if pids := processesWithHome(t, a.home); len(pids) > 0 {
		t.Errorf("agent processes still running after the idle timeout: %v", pids)
	}
}

func TestClaudeSignalThenHangCompletesAfterGrace(t *testing.T) {
	t.Parallel()
	a := newAction(t, commitBash("x.txt", "x", "Work"), models.TextThenHang("All done. "+signal))
	a.input("prompt", "Work, then say you are done.")
	a.key("timeouts", "completion-seconds", "1")
	a.input("max-iterations", "2")
	inv, out := a.runWant(0)
	if out["status"] != "complete" || out["completion-signal"] != signal || out["commit-count"] != "1" || out["iterations"] != "1" {
		t.Errorf("outputs %v; want complete after 1 iteration with the signal and the commit", out)
	}
	if !strings.Contains(inv.stdout, "completion-seconds") {
		t.Errorf("no warning about the hanging agent:\n%s", inv.stdout)
	}
	if pids := processesWithHome(t, a.home); len(pids) > 0 {
		t.Errorf("agent processes still running after the grace window: %v", pids)
	}
}

func TestClaudeAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		step models.Step
		want string
	}{
		{"unauthorized", models.Error(401, "invalid x-api-key"), "Invalid API key"},
		{"server_error", models.Error(500, "scripted outage"), "scripted outage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAction(t, tt.step)
			a.input("prompt", "Do anything.")
			inv := a.run()
			if inv.code != 1 {
				t.Fatalf("exit code %d, want 1", inv.code)
			}
			out := a.readOutputs()
			if out["status"] != "failed" || out["commit-count"] != "0" {
				t.Errorf("status %q commit-count %q; want failed, 0", out["status"], out["commit-count"])
			}
			if !strings.Contains(inv.stdout, "::error::agent claude-code exited with code 1: ") || !strings.Contains(inv.stdout, tt.want) {
				t.Errorf("error annotation does not carry %q:\n%s", tt.want, inv.stdout)
			}
		})
	}
}

// processesWithHome lists the processes whose environment has HOME=home: the agent and
// everything it started.
func processesWithHome(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	want := "HOME=" + home + "\x00"
	var pids []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains("\x00"+string(b), "\x00"+want) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestClaudeCancelledKeepsWork cancels the run the way a cancelled job does (SIGTERM reaches
// main as a cancelled context) while the agent is mid-turn: the agent is killed, its commit is
// reported and stays on its branch, and the worktree with uncommitted work is kept.
func TestClaudeCancelledKeepsWork(t *testing.T) {
	t.Parallel()
	a := newAction(t,
		commitBash("done.txt", "finished part", "Finish part one"),
		models.Bash("echo 'half done' > wip.txt"),
		models.Hang(),
	)
	a.input("prompt", "Do the work.")
	a.input("branch-strategy", "branch")
	a.input("branch", "agent/work")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		if err := a.model.WaitRequests(ctx, 3); err == nil {
			cancel()
		}
	}()
	inv := a.runContext(ctx)
	if inv.code != 1 {
		t.Fatalf("exit code %d, want 1", inv.code)
	}
	out := a.readOutputs()
	if out["status"] != "cancelled" || out["commit-count"] != "1" || out["branch"] != "agent/work" {
		t.Errorf("status %q, commit-count %q, branch %q; want cancelled, 1, agent/work", out["status"], out["commit-count"], out["branch"])
	}
	if got := a.git("log", "-1", "--format=%s", "agent/work"); got != "Finish part one" {
		t.Errorf("agent/work tip = %q, want the agent's commit", got)
	}
	kept := out["preserved-worktree"]
	if kept == "" || readFile(t, filepath.Join(kept, "wip.txt")) != "half done\n" {
		t.Errorf("preserved-worktree = %q; want the worktree with wip.txt kept", kept)
	}
	if pids := processesWithHome(t, a.home); len(pids) > 0 {
		t.Errorf("agent processes still running after cancellation: %v", pids)
	}
}

// TestClaudeMergeToHead runs a prompt template on a temporary branch: the built-in and the
// shell expression both name the real branch, only the agent's commit is reported, and it is
// merged into main while main moved meanwhile.
func TestClaudeMergeToHead(t *testing.T) {
	t.Parallel()
	a := newAction(t,
		commitBash("agent.txt", "from the agent", "Agent change"),
		models.Text("Merged work ready. "+signal),
	)
	writeFile(t, filepath.Join(a.dir, ".sandcastle", "prompt.md"),
		"Work on {{SOURCE_BRANCH}} for {{TARGET_BRANCH}} (issue {{ISSUE}}).\nCurrent branch: !`git rev-parse --abbrev-ref HEAD`\n")
	a.git("add", ".sandcastle/prompt.md")
	a.git("commit", "-qm", "Add prompt")
	a.input("prompt-file", ".sandcastle/prompt.md")
	a.input("prompt-args", "ISSUE: 42")
	a.input("branch-strategy", "merge-to-head")
	a.input("name", "Fix It")
	marker := filepath.Join(t.TempDir(), "hook-ran")
	a.key("hooks", "worktree-ready", "pwd > "+marker)
	a.key("hooks", "sandbox-ready", "git log -1 --format=%s > /dev/null")
	_, out := a.runWant(0)
	reqs := a.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model saw no request")
	}
	prompt := reqs[0].Transcript()
	i := strings.Index(prompt, "Work on ")
	if i < 0 {
		t.Fatalf("prompt not found in the first request:\n%s", prompt)
	}
	var source, target, issue, current string
	if _, err := fmt.Sscanf(prompt[i:], "Work on %s for %s (issue %s\nCurrent branch: %s", &source, &target, &issue, &current); err != nil {
		t.Fatalf("prompt %q: %v", prompt[i:], err)
	}
	if !strings.HasPrefix(source, "sandcastle/fix-it/") || source != current || target != "main" || issue != "42)." {
		t.Errorf("prompt said source %q, current %q, target %q, issue %q; want the real temp branch twice, main, 42", source, current, target, issue)
	}
	if out["branch"] != "main" || out["commit-count"] != "1" {
		t.Errorf("branch %q commit-count %q; want main, 1", out["branch"], out["commit-count"])
	}
	agentCommit := commitList(t, out["commits"])[0]
	if got := a.git("log", "-1", "--format=%s", agentCommit); got != "Agent change" {
		t.Errorf("reported commit is %q, want the agent's", got)
	}
	if a.git("rev-parse", "HEAD") != agentCommit || out["head-sha"] != agentCommit {
		t.Errorf("main was not fast-forwarded to the agent's commit (head-sha %s)", out["head-sha"])
	}
	if branches := a.git("branch", "--list", "sandcastle/*"); branches != "" {
		t.Errorf("temporary branches left: %s", branches)
	}
	if left := managedWorktrees(t, a.dir); len(left) > 0 {
		t.Errorf("worktrees left: %v", left)
	}
	if got := readFile(t, marker); !strings.Contains(got, filepath.Join(".sandcastle", "worktrees")) {
		t.Errorf("hook worktree-ready ran in %q, want the worktree", got)
	}
	if !strings.HasSuffix(out["log-file"], "-fix-it.log") {
		t.Errorf("log-file = %q, want the run name in it", out["log-file"])
	}
}
