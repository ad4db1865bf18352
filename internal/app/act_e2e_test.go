package app

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/scaffold"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// The act tier: the workflows the README shows and those `sandcastle init` writes, run by
// nektos/act against the local Docker engine, with default inputs (but sandbox, which each runs
// with none and with docker): the action from this checkout, its image as action.yml names it,
// the real claude against the scripted model, GitHub the fake API and the git HTTP remote.
//
// The one part that is not real is actions/checkout, which act would fetch from GitHub: a
// stand-in (testkit.CheckoutStandIn) clones the remote into the workspace as it would.

// actWorkflow is a workflow the project shows, found in the README or written by init.
type actWorkflow struct {
	name  string            // where it comes from
	text  string            // the workflow
	files map[string]string // the repository's files beside it
}

// shownWorkflows are the workflows that use the action: the README's and init's. Each runs in
// a repository that holds what `sandcastle init` writes beside its workflow (a README user runs
// init for the sandbox's Dockerfile too).
func shownWorkflows(t *testing.T) []actWorkflow {
	t.Helper()
	dir := t.TempDir()
	written, err := scaffold.Write(dir, scaffold.Options{Agent: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	initWorkflow, files := "", map[string]string{}
	for _, f := range written {
		rel, err := filepath.Rel(dir, f)
		if err != nil || !filepath.IsLocal(rel) {
			rel = f
		}
		content := readFile(t, filepath.Join(dir, rel))
		if filepath.ToSlash(rel) == ".github/workflows/sandcastle.yml" {
			initWorkflow = content
			continue
		}
		files[filepath.ToSlash(rel)] = content
	}
	if initWorkflow == "" {
		t.Fatalf("sandcastle init wrote no workflow among %v", written)
	}
	var out []actWorkflow
	for _, b := range yamlBlocks(readFile(t, filepath.Join("..", "..", "README.md"))) {
		if strings.Contains(b.text, "uses: "+scaffold.ActionRef) {
			out = append(out, actWorkflow{name: fmt.Sprintf("README.md:%d", b.line), text: b.text, files: files})
		}
	}
	return append(out, actWorkflow{name: "init", text: initWorkflow, files: files})
}

// TestActRunsShownWorkflows runs each workflow the project shows under act, with sandbox none
// and docker, from the event that starts it, and checks what a later step reads of the action's
// outputs, what the remote and the fake API received, and how long each run took.
func TestActRunsShownWorkflows(t *testing.T) {
	workflows := shownWorkflows(t)
	if len(workflows) < 2 {
		t.Fatalf("found %d workflows that use the action, want the README's and init's", len(workflows))
	}
	root := actionCheckout(t)
	for _, w := range workflows {
		for _, sandbox := range []string{"none", "docker"} {
			t.Run(strings.NewReplacer(".", "_", ":", "_").Replace(w.name)+"/"+sandbox, func(t *testing.T) {
				runShown(t, root, w, sandbox)
			})
		}
	}
}

// actionCheckout is this checkout's files, tracked or not but not ignored, as act takes the
// action from a local folder: act sends that whole folder to the image's build, and the .git of
// a git worktree names a directory outside it. When action.yml names a docker:// image, it is
// built here from the Dockerfile and tagged so, since nothing is pulled; act builds a Dockerfile
// itself.
func actionCheckout(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	root := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join("..", "..", f))
		if os.IsNotExist(err) {
			continue // deleted in the checkout
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	var action struct {
		Runs struct{ Image string }
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(root, "action.yml"))), &action); err != nil {
		t.Fatal(err)
	}
	if ref, ok := strings.CutPrefix(action.Runs.Image, "docker://"); ok {
		testkit.RequireImage(t, goImage)
		if out, err := exec.Command("docker", "build", "-q", "-t", ref, root).CombinedOutput(); err != nil {
			t.Fatalf("docker build of the action image %s: %v\n%s", ref, err, out)
		}
	}
	return root
}

// labelCondition is the label a job's if: asks for.
var labelCondition = regexp.MustCompile(`github\.event\.label\.name == '([^']+)'`)

// runShown runs w under act with the action's sandbox input set, and checks the outcome.
func runShown(t *testing.T, root string, w actWorkflow, sandbox string) {
	wf := parseWorkflow(t, w.text)
	step := wf.actionStep(t)
	step.set("sandbox", sandbox)
	id := step.id()
	wf.appendStep(t, fmt.Sprintf(`name: What a later step reads
env:
  OUTPUTS: ${{ toJSON(steps.%s.outputs) }}
run: printf 'sandcastle-outputs %%s\n' "$(printf '%%s' "$OUTPUTS" | tr -d '\n')"
`, id))

	on := wf.triggers()
	if len(on) != 1 || on[0] != "issues" {
		t.Fatalf("%s: triggered by %v; the act tier drives issues workflows", w.name, on)
	}
	label := step.with()["trigger-label"]
	if m := labelCondition.FindStringSubmatch(w.text); label == "" && m != nil {
		label = m[1]
	}

	srv := testkit.NewGitServer(t, ghToken, "")
	api := testkit.NewGitHub(t, ghToken, ghRepo)
	api.SetPermission("maintainer", "write")
	files := map[string]string{"README.md": "# widgets\n", ".github/workflows/agent.yml": wf.String(t)}
	for k, v := range w.files {
		files[k] = v
	}
	with := step.with()
	if p := with["prompt-file"]; p != "" && files[p] == "" {
		files[p] = "Work on issue #{{ISSUE_NUMBER}}: {{ISSUE_TITLE}}\n\n{{ISSUE_BODY}}\n\nAnswer in <result>.\n"
	}
	// The workspace is where act runs, at the same path in its containers; the default image is
	// named after it, so each case has a name of its own.
	dir := filepath.Join(t.TempDir(), "widgets-"+strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(w.name, "-"))+"-"+sandbox)
	e := hermeticEnv(t)
	remote := pushedRepo(t, e, srv, dir, files)

	final := "Done: noted it in agent.txt. " + signal
	summary := ""
	if with["output-tag"] != "" {
		summary = "Noted the issue in agent.txt"
		final += fmt.Sprintf(" <%s>{\"summary\": %q}</%s>", with["output-tag"], summary, with["output-tag"])
	}
	model := testkit.NewAnthropic(t, commitBash("agent.txt", "from act", "Note the issue"), testkit.Text(final))

	if sandbox == "docker" {
		standInBases(t, stepConfig(t, with, dir).Docker.Dockerfile)
	}

	act := testkit.NewAct(t, dir)
	act.Actions[scaffold.ActionRef] = root
	act.Actions[scaffold.CheckoutRef] = testkit.CheckoutStandIn(t)
	act.Env = map[string]string{
		"GITHUB_REPOSITORY":  ghRepo,
		"GITHUB_SERVER_URL":  srv.URL,
		"GITHUB_API_URL":     api.APIURL,
		"GITHUB_GRAPHQL_URL": api.GraphQLURL,
		// The sandbox is on Docker's default bridge: no 127.0.0.1 of this machine there.
		"ANTHROPIC_BASE_URL": testkit.ForContainers(t, model.URL()),
	}
	act.Secrets = map[string]string{"GITHUB_TOKEN": ghToken, "ANTHROPIC_API_KEY": testkit.FakeAPIKey}
	payload, err := json.Marshal(labeledIssue("maintainer", label, "Please note it."))
	if err != nil {
		t.Fatal(err)
	}
	run := act.Run(t.Context(), filepath.Join(dir, ".github", "workflows", "agent.yml"), "issues", payload)
	t.Logf("act run of %s with sandbox %s: %s", w.name, sandbox, run.Duration.Round(100_000_000))
	if run.Err != nil {
		t.Fatalf("%v\n%s", run.Err, run.Log)
	}
	if testing.Verbose() {
		t.Logf("act's log:\n%s", run.Log)
	}

	outputs := printedOutputs(t, run)
	branch := outputs["branch"]
	if outputs["status"] != "complete" || outputs["commit-count"] != "1" || outputs["pushed"] != "true" || branch == "" {
		t.Errorf("outputs %v; want complete, one commit, pushed", outputs)
	}
	if summary != "" && outputs["output-summary"] != summary {
		t.Errorf("output-summary = %q, want %q", outputs["output-summary"], summary)
	}
	got, err := gitOutput(remote, "log", "-1", "--format=%s", "refs/heads/"+branch)
	if err != nil || got != "Note the issue" {
		t.Errorf("the remote's %s: %q, %v; want the agent's commit", branch, got, err)
	}
	if with["open-pr"] == "true" {
		prs := api.PRs()
		owner, _, _ := strings.Cut(ghRepo, "/")
		if len(prs) != 1 || prs[0].Head != owner+":"+branch || outputs["pr-url"] == "" || !strings.HasSuffix(outputs["pr-url"], fmt.Sprintf("/pull/%d", prs[0].Number)) {
			t.Errorf("pull requests %+v, pr-url %q; want one from %s, named by pr-url", prs, outputs["pr-url"], branch)
		}
	}
	if comments := api.Comments(42); len(comments) == 0 || outputs["comment-url"] == "" {
		t.Errorf("progress comment: %d comment(s) on the issue, comment-url %q", len(comments), outputs["comment-url"])
	}
	// A step of the workflow itself that reads outputs printed what it read (README's Report).
	for _, want := range wf.echoes(t, outputs) {
		if !printed(run, want) {
			t.Errorf("no step printed %q:\n%s", want, strings.Join(run.Printed(), "\n"))
		}
	}
}

// standInBases tags the provisioned claude image as each image the sandbox's Dockerfile starts
// from that is not here: a sandbox image the release publishes, which cannot be pulled here.
func standInBases(t *testing.T, dockerfile string) {
	t.Helper()
	testkit.RequireImage(t, testkit.ClaudeImage)
	from := regexp.MustCompile(`(?im)^FROM\s+(?:--platform=\S+\s+)?(\S+)`)
	for _, m := range from.FindAllStringSubmatch(readFile(t, dockerfile), -1) {
		if exec.Command("docker", "image", "inspect", m[1]).Run() == nil {
			continue
		}
		if out, err := exec.Command("docker", "tag", testkit.ClaudeImage, m[1]).CombinedOutput(); err != nil {
			t.Fatalf("docker tag: %v\n%s", err, out)
		}
		t.Cleanup(func() { exec.Command("docker", "rmi", m[1]).Run() })
	}
}

// pushedRepo makes dir a repository with files on main, pushed to ghRepo on srv, and returns the
// bare repository behind the remote.
func pushedRepo(t *testing.T, e env, srv *testkit.GitServer, dir string, files map[string]string) string {
	t.Helper()
	gitRun(t, e, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	gitRun(t, e, dir, "add", ".")
	gitRun(t, e, dir, "commit", "-qm", "initial")
	url, remote := srv.NewRepo(t, ghRepo)
	gitRun(t, e, dir, "remote", "add", "origin", url)
	gitRun(t, e, dir, "-c", "http.extraheader=AUTHORIZATION: basic "+basicAuth(ghToken), "push", "-q", "origin", "main")
	return remote
}

// stepConfig is the Config the action's step makes of with in dir, expressions taken as "1".
func stepConfig(t *testing.T, with map[string]string, dir string) inputs.Config {
	t.Helper()
	expr := regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	raw := inputs.Raw{}
	for k, v := range with {
		raw[k] = expr.ReplaceAllString(v, "1")
	}
	cfg, err := inputs.Load(raw, inputs.Env{WorkDir: dir, ReadFile: inputs.ReadRegular, Stat: os.Stat, Agents: agentInfos()})
	if err != nil {
		t.Fatalf("the step's inputs: %v", err)
	}
	return cfg
}

// printedOutputs are the action's outputs as the step runShown appends printed them.
func printedOutputs(t *testing.T, run testkit.ActRun) map[string]string {
	t.Helper()
	for _, line := range run.Printed() {
		if js, ok := strings.CutPrefix(line, "sandcastle-outputs "); ok {
			var out map[string]string
			if err := json.Unmarshal([]byte(js), &out); err != nil {
				t.Fatalf("the outputs a later step read: %v\n%s", err, js)
			}
			return out
		}
	}
	t.Fatalf("no later step printed the outputs:\n%s", run.Log)
	return nil
}

func printed(run testkit.ActRun, want string) bool {
	for _, line := range run.Printed() {
		if line == want {
			return true
		}
	}
	return false
}

// workflow is a workflow's YAML, to change before act runs it.
type workflow struct{ doc yaml.Node }

func parseWorkflow(t *testing.T, text string) *workflow {
	t.Helper()
	w := &workflow{}
	if err := yaml.Unmarshal([]byte(text), &w.doc); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *workflow) String(t *testing.T) string {
	t.Helper()
	b, err := yaml.Marshal(&w.doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mapValue is the value of key in the mapping m; nil when absent.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// triggers are the events of the workflow's on:.
func (w *workflow) triggers() []string {
	on := mapValue(w.doc.Content[0], "on")
	switch {
	case on == nil:
		return nil
	case on.Kind == yaml.ScalarNode:
		return []string{on.Value}
	case on.Kind == yaml.SequenceNode:
		var out []string
		for _, n := range on.Content {
			out = append(out, n.Value)
		}
		return out
	}
	var out []string
	for i := 0; i < len(on.Content); i += 2 {
		out = append(out, on.Content[i].Value)
	}
	return out
}

// steps is the steps sequence of the workflow's one job.
func (w *workflow) steps(t *testing.T) *yaml.Node {
	t.Helper()
	jobs := mapValue(w.doc.Content[0], "jobs")
	if jobs == nil || len(jobs.Content) != 2 {
		t.Fatal("the workflow has not exactly one job")
	}
	return mapValue(jobs.Content[1], "steps")
}

// actionStep is the step that uses the action.
func (w *workflow) actionStep(t *testing.T) workflowStep {
	t.Helper()
	for _, s := range w.steps(t).Content {
		if v := mapValue(s, "uses"); v != nil && v.Value == scaffold.ActionRef {
			return workflowStep{s}
		}
	}
	t.Fatalf("no step uses %s", scaffold.ActionRef)
	return workflowStep{}
}

// appendStep adds a step, given as YAML, at the end of the job.
func (w *workflow) appendStep(t *testing.T, text string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	steps := w.steps(t)
	steps.Content = append(steps.Content, n.Content[0])
}

// echoes are the lines the workflow's own run: steps print of the action's outputs, for the
// ones of the form `echo "... $VAR ..."` whose variables come from the outputs through env:.
func (w *workflow) echoes(t *testing.T, outputs map[string]string) []string {
	t.Helper()
	var lines []string
	ref := regexp.MustCompile(`^\$\{\{ steps\.[a-z0-9_-]+\.outputs\.([a-z0-9_-]+) \}\}$`)
	echo := regexp.MustCompile(`^echo "([^"]*)"$`)
	for _, s := range w.steps(t).Content {
		run, env := mapValue(s, "run"), mapValue(s, "env")
		if run == nil || env == nil {
			continue
		}
		vars := map[string]string{}
		for i := 0; i+1 < len(env.Content); i += 2 {
			if m := ref.FindStringSubmatch(env.Content[i+1].Value); m != nil {
				vars[env.Content[i].Value] = outputs[m[1]]
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(run.Value), "\n") {
			if m := echo.FindStringSubmatch(strings.TrimSpace(line)); m != nil && len(vars) > 0 {
				lines = append(lines, os.Expand(m[1], func(k string) string { return vars[k] }))
			}
		}
	}
	return lines
}

// workflowStep is a step of a workflow.
type workflowStep struct{ n *yaml.Node }

// id is the step's id, given one when it has none.
func (s workflowStep) id() string {
	if v := mapValue(s.n, "id"); v != nil {
		return v.Value
	}
	s.n.Content = append(s.n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "id"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "sandcastle"})
	return "sandcastle"
}

// with are the step's inputs.
func (s workflowStep) with() map[string]string {
	out := map[string]string{}
	if w := mapValue(s.n, "with"); w != nil {
		for i := 0; i+1 < len(w.Content); i += 2 {
			out[w.Content[i].Value] = w.Content[i+1].Value
		}
	}
	return out
}

// set sets the step's input name to value.
func (s workflowStep) set(name, value string) {
	w := mapValue(s.n, "with")
	if w == nil {
		w = &yaml.Node{Kind: yaml.MappingNode}
		s.n.Content = append(s.n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "with"}, w)
	}
	if v := mapValue(w, name); v != nil {
		v.Value = value
		return
	}
	w.Content = append(w.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, &yaml.Node{Kind: yaml.ScalarNode, Value: value})
}
