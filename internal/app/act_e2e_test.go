package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/release"
	"github.com/sandcastle-action/sandcastle/internal/scaffold"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The act tier: the workflows README.md and docs/*.md show and those `sandcastle init` writes, run by
// nektos/act against the local Docker engine, with default inputs (but sandbox, which each runs
// with none and with docker): the action from this checkout, its image as action.yml names it,
// the real claude against the scripted model, GitHub the fake API and the git HTTP remote.
//
// The one part that is not real is actions/checkout, which act would fetch from GitHub: a
// stand-in (actkit.CheckoutStandIn) clones the remote into the workspace as it would.

// actWorkflow is a workflow the project shows, found in README.md or docs/*.md or written by init.
type actWorkflow struct {
	name  string            // where it comes from
	text  string            // the workflow
	files map[string]string // the repository's files beside it
}

// shownWorkflows are the workflows that use the action: those `sandcastle init` writes (the
// starter and one per mode), each in a repository with what init writes beside it, and those of
// README.md and docs/*.md, each once (the pages' mode examples are init's), in a repository with
// no more than the pages say (no Dockerfile: the sandbox runs the published image). README's
// quick start runs on its own in such a repository, a new user's path, though init writes it too.
func shownWorkflows(t *testing.T) []actWorkflow {
	t.Helper()
	var out []actWorkflow
	seen := map[string]int{}
	add := func(name, text string, files map[string]string) {
		if i, ok := seen[text]; ok {
			out[i].name += " = " + name
			return
		}
		seen[text] = len(out)
		out = append(out, actWorkflow{name: name, text: text, files: files})
	}
	for _, modes := range [][]string{nil, scaffold.Modes()} {
		dir := t.TempDir()
		written, err := scaffold.Write(dir, scaffold.Options{Agent: "claude-code", Modes: modes})
		if err != nil {
			t.Fatal(err)
		}
		files, workflows := map[string]string{}, map[string]string{}
		for _, f := range written {
			rel, err := filepath.Rel(dir, f)
			if err != nil || !filepath.IsLocal(rel) {
				rel = f
			}
			rel = filepath.ToSlash(rel)
			if strings.HasPrefix(rel, ".github/workflows/") {
				workflows[rel] = readFile(t, filepath.Join(dir, rel))
			} else {
				files[rel] = readFile(t, filepath.Join(dir, rel))
			}
		}
		if len(workflows) == 0 {
			t.Fatalf("sandcastle init (modes %v) wrote no workflow among %v", modes, written)
		}
		for _, name := range slices.Sorted(maps.Keys(workflows)) {
			add("init "+strings.TrimSuffix(path.Base(name), ".yml"), workflows[name], files)
		}
	}
	for _, b := range docYAMLBlocks(t) {
		if !isWorkflow(b.text) || !strings.Contains(b.text, "uses: "+scaffold.ActionRef()) {
			continue
		}
		if strings.HasPrefix(b.name(), "README.md") {
			// A new user's path: the front page's workflow pasted into a repository that has
			// nothing else, even where it equals what init writes beside its other files.
			out = append(out, actWorkflow{name: b.name() + " pasted", text: b.text})
			continue
		}
		add(b.name(), b.text, nil)
	}
	return out
}

// TestActRunsShownWorkflows runs each workflow the project shows under act, with sandbox none
// and docker, from the event that starts it, and checks what a later step reads of the action's
// outputs and what the remote and the fake API received. It logs how long each run took.
func TestActRunsShownWorkflows(t *testing.T) {
	// Before any case starts its scripted model, whose cleanup fails a case that skips unasked.
	testkit.RequireBinary(t, "act")
	workflows := shownWorkflows(t)
	if len(workflows) < 2 {
		t.Fatalf("found %d workflows that use the action, want the pages' and init's", len(workflows))
	}
	root := actionCheckout(t)
	// One at a time: on two cores, two runs at once take as long as one after the other.
	for _, w := range workflows {
		for _, sandbox := range []string{"none", "docker"} {
			t.Run(regexp.MustCompile(`[^a-zA-Z0-9-]+`).ReplaceAllString(w.name, "_")+"/"+sandbox, func(t *testing.T) {
				runShown(t, root, w, sandbox)
			})
		}
	}
}

// actionCheckout is this checkout's files, tracked or not but not ignored, as act takes the
// action from a local folder (for a Dockerfile in action.yml act sends that whole folder to the
// image's build, and the .git of a git worktree names a directory outside it). A docker://
// image is built by the release's own steps, which tag it as action.yml names it, since nothing
// is pulled.
func actionCheckout(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	root := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join("..", "..", f)
		fi, err := os.Stat(src)
		if os.IsNotExist(err) {
			continue // deleted in the checkout
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
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
		// Nothing is pulled: the image is built by the release's own steps, as it is published.
		actkit.ReleaseImages(t, filepath.Join("..", ".."), "action")
		actkit.RequireImage(t, ref)
	}
	return root
}

// actRun is one workflow's run under act: its GitHub, its repository, its inputs as the action
// reads them.
type actRun struct {
	label   string // the label the workflow's job asks for, if any
	head    string // the head of pull request 5, once opened
	comment int64  // the comment that asks for the run, if any
	api     *githubfake.GitHub
	git     *testkit.GitServer
	remote  string // the bare repository behind the remote
	dir     string // the repository act runs for
	e       env
	cfg     inputs.Config
	model   *models.Anthropic
}

// scenario is what starts a workflow under act and what must come of it.
type scenario struct {
	event string
	// prepare sets GitHub and the remote up for the event; payload is the event's.
	prepare func(t *testing.T, r *actRun)
	payload func(r *actRun) map[string]any
	// steps are the agent's; check what the run must have done, given its outputs as a later
	// step read them.
	steps func(r *actRun) []models.Step
	check func(t *testing.T, r *actRun, outputs map[string]string)
}

// labelCondition is the label a job's if: asks for.
var labelCondition = regexp.MustCompile(`github\.event\.label\.name == '([^']+)'`)

// scenarios drive a workflow by the first event it is triggered by.
var scenarios = map[string]scenario{
	// A maintainer labels issue 42 with the trigger label; the agent commits; the branch is
	// pushed, the pull request opened when asked, the progress comment posted.
	"issues": {
		event: "issues",
		payload: func(r *actRun) map[string]any {
			p := issuePayload("maintainer", "Greet the world", false, map[string]any{"action": "labeled", "label": map[string]any{"name": r.label}})
			p["repository"] = repositoryPayload()
			return p
		},
		prepare: func(t *testing.T, r *actRun) {
			if r.label == "" {
				t.Fatal("the workflow's job asks for no label (if: github.event.label.name == '...')")
			}
			r.api.SetPermission("maintainer", "write")
			r.api.SetLabels(42, r.label)
		},
		steps: func(r *actRun) []models.Step {
			return []models.Step{commitBash("agent.txt", "from act", "Note the issue"), models.Text(finalText(r.cfg, `{"summary": "Noted the issue in agent.txt"}`))}
		},
		check: func(t *testing.T, r *actRun, out map[string]string) {
			branch := out["branch"]
			if out["status"] != "complete" || out["commit-count"] != "1" || out["pushed"] != "true" || branch == "" {
				t.Errorf("outputs %v; want complete, one commit, pushed", out)
			}
			if got, err := gitOutput(r.remote, "log", "-1", "--format=%s", "refs/heads/"+branch); err != nil || got != "Note the issue" {
				t.Errorf("the remote's %s: %q, %v; want the agent's commit", branch, got, err)
			}
			if r.cfg.Output != nil && out["output-summary"] != "Noted the issue in agent.txt" {
				t.Errorf("output-summary = %q", out["output-summary"])
			}
			if r.cfg.GitHub.OpenPR {
				owner, _, _ := strings.Cut(ghRepo, "/")
				prs := r.api.PRs()
				if len(prs) != 1 || prs[0].Head != owner+":"+branch || !strings.HasSuffix(out["pr-url"], fmt.Sprintf("/pull/%d", prs[0].Number)) {
					t.Errorf("pull requests %+v, pr-url %q; want one from %s, named by pr-url", prs, out["pr-url"], branch)
				}
			}
			if r.cfg.GitHub.ProgressComment && (len(r.api.Comments(42)) != 1 || !strings.HasSuffix(out["comment-url"], fmt.Sprintf("#issuecomment-%d", r.api.Comments(42)[0].ID))) {
				t.Errorf("comments %+v, comment-url %q; want the progress comment", r.api.Comments(42), out["comment-url"])
			}
			if slices.Contains(r.api.Labels(42), r.label) {
				t.Errorf("labels %v: the trigger label stayed", r.api.Labels(42))
			}
		},
	},
	// A maintainer comments on pull request 5, from this repository's branch feature, asking
	// for a change; the agent's commit is pushed to feature.
	"issue_comment": {
		event: "issue_comment",
		prepare: func(t *testing.T, r *actRun) {
			openFeaturePR(t, r)
			r.comment = r.api.AddComment(5, "maintainer", "MEMBER", "/sandcastle please note it").ID
		},
		payload: func(r *actRun) map[string]any {
			return map[string]any{
				"action": "created",
				"issue": map[string]any{"number": 5, "title": "Add main", "body": "Adds main.go", "state": "open",
					"pull_request": map[string]any{"url": r.api.APIURL + "/repos/" + ghRepo + "/pulls/5"}},
				"comment":    map[string]any{"id": r.comment, "body": "/sandcastle please note it", "user": map[string]any{"login": "maintainer"}, "author_association": "MEMBER"},
				"sender":     map[string]any{"login": "maintainer", "type": "User"},
				"repository": repositoryPayload(),
			}
		},
		steps: func(r *actRun) []models.Step {
			return []models.Step{commitBash("agent.txt", "from act", "Note the request"), models.Text(finalText(r.cfg, `{"summary": "Noted it"}`))}
		},
		check: func(t *testing.T, r *actRun, out map[string]string) {
			if out["status"] != "complete" || out["pushed"] != "true" || out["commit-count"] != "1" {
				t.Errorf("outputs %v; want complete, one commit, pushed", out)
			}
			if got, err := gitOutput(r.remote, "log", "-1", "--format=%s %P", "refs/heads/feature"); err != nil || got != "Note the request "+r.head {
				t.Errorf("the remote's feature: %q, %v; want the agent's commit on %s", got, err, r.head)
			}
			if len(r.api.PRs()) != 1 {
				t.Errorf("pull requests %+v; want the one commented on alone", r.api.PRs())
			}
		},
	},
	// Pull request 5, from this repository's branch feature, is opened; the agent's review of
	// it is posted, one comment on a line of the diff.
	"pull_request": {
		event:   "pull_request",
		prepare: openFeaturePR,
		payload: func(r *actRun) map[string]any {
			return map[string]any{
				"action": "opened", "number": 5,
				"pull_request": map[string]any{"number": 5, "title": "Add main", "body": "Adds main.go", "draft": false, "user": map[string]any{"login": "maintainer"},
					"head": map[string]any{"ref": "feature", "sha": r.head, "repo": map[string]any{"full_name": ghRepo}},
					"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": ghRepo}}},
				"sender":     map[string]any{"login": "maintainer", "type": "User"},
				"repository": repositoryPayload(),
			}
		},
		steps: func(r *actRun) []models.Step {
			return []models.Step{models.Text(finalText(r.cfg, `{"summary": "One remark.", "comments": [{"path": "main.go", "line": 2, "body": "Name this constant."}]}`))}
		},
		check: func(t *testing.T, r *actRun, out map[string]string) {
			reviews := r.api.Reviews(5)
			if out["status"] != "complete" || len(reviews) != 1 || out["review-url"] == "" || !strings.Contains(reviews[0].Body, "One remark.") || len(reviews[0].Comments) != 1 || reviews[0].CommitID != r.head {
				t.Errorf("outputs %v, reviews %+v; want one review at the head with the summary and the comment on its line", out, reviews)
			}
		},
	},
	// The schedule: the agent labels and comments on issue 1, which the host does; with the
	// Docker sandbox the built-in prompt read the open issues through the relay.
	"schedule": {
		event: "schedule",
		payload: func(r *actRun) map[string]any {
			return map[string]any{"schedule": "17 6 * * *", "repository": repositoryPayload()}
		},
		prepare: func(t *testing.T, r *actRun) {
			r.api.AddIssue(githubfake.Issue{Number: 1, Title: "Crash on start", Body: "It crashes."})
		},
		steps: func(r *actRun) []models.Step {
			return []models.Step{models.Text(finalText(r.cfg, `{"issues": [{"issue": 1, "add_labels": ["bug"], "comment": "Thanks; which version?"}]}`))}
		},
		check: func(t *testing.T, r *actRun, out map[string]string) {
			if out["status"] != "complete" || strings.HasPrefix(out["actions"], `{"applied":[]`) || !slices.Contains(r.api.Labels(1), "bug") || len(r.api.Comments(1)) != 1 {
				t.Errorf("outputs %v, labels %v, comments %+v; want the label and the comment on #1", out, r.api.Labels(1), r.api.Comments(1))
			}
			if r.cfg.Sandbox == inputs.SandboxDocker && !strings.Contains(r.model.Requests()[0].Transcript(), "Crash on start") {
				t.Errorf("the prompt lacks the open issue, which the relay lists:\n%.2000s", r.model.Requests()[0].Transcript())
			}
		},
	},
}

// repositoryPayload is the repository of an event's payload.
func repositoryPayload() map[string]any {
	return map[string]any{"full_name": ghRepo, "name": "widgets", "owner": map[string]any{"login": "octo"}, "default_branch": "main"}
}

// openFeaturePR opens pull request 5 from feature, main and one commit adding main.go, with the
// refs GitHub keeps of it: its head, and the merge a pull_request run checks out (feature
// itself, since it is main and one commit).
func openFeaturePR(t *testing.T, r *actRun) {
	t.Helper()
	gitRun(t, r.e, r.dir, "checkout", "-q", "-b", "feature")
	writeFile(t, filepath.Join(r.dir, "main.go"), "package main\nconst x = 1\n")
	gitRun(t, r.e, r.dir, "add", "main.go")
	gitRun(t, r.e, r.dir, "commit", "-qm", "Add main")
	r.head = gitRun(t, r.e, r.dir, "rev-parse", "HEAD")
	gitRun(t, r.e, r.dir, "-c", "http.extraheader=AUTHORIZATION: basic "+basicAuth(ghToken), "push", "-q", "origin",
		"feature", "feature:refs/pull/5/head", "feature:refs/pull/5/merge")
	gitRun(t, r.e, r.dir, "checkout", "-q", "main")
	owner, _, _ := strings.Cut(ghRepo, "/")
	r.api.SetPermission("maintainer", "write")
	pr := r.api.AddPR(githubfake.PR{Number: 5, Head: owner + ":feature", Base: "main", Title: "Add main", Body: "Adds main.go", HeadSHA: r.head})
	r.api.SetFiles(pr.Number, githubfake.File{Name: "main.go", Patch: "@@ -0,0 +1,2 @@\n+package main\n+const x = 1"})
}

// finalText is the agent's last message: result in the output tag when there is one, and the
// completion signal.
func finalText(cfg inputs.Config, result string) string {
	text := "Done. "
	if cfg.Output != nil {
		text += fmt.Sprintf("<%s>%s</%s> ", cfg.Output.Tag, result, cfg.Output.Tag)
	}
	return text + signal
}

// runShown runs w under act with the action's sandbox input set, from the event that starts it,
// and checks the outcome.
func runShown(t *testing.T, root string, w actWorkflow, sandbox string) {
	wf := parseWorkflow(t, w.text)
	if wf.jobs() > 1 {
		runPlan(t, root, w, wf, sandbox)
		return
	}
	// act names the job's container and its workspace volume after the workflow's name and the
	// job's: runs at once need names of their own.
	wf.setName(w.name + " with sandbox " + sandbox)
	step := actionStep(t, wf.steps(t))
	step.set("sandbox", sandbox)
	appendOutputsStep(t, wf.steps(t), step)
	on := wf.triggers()
	sc, ok := scenarios[on[0]]
	if !ok {
		t.Fatalf("%s: the act tier has no scenario for its first trigger, %s", w.name, on[0])
	}

	r := &actRun{git: testkit.NewGitServer(t, ghToken, ""), api: githubfake.NewGitHub(t, ghToken, ghRepo), e: hermeticEnv(t)}
	files := map[string]string{"README.md": "# widgets\n", ".github/workflows/agent.yml": wf.String(t)}
	maps.Copy(files, w.files)
	with := step.with()
	if p := with["prompt-file"]; p != "" && files[p] == "" {
		files[p] = "Work on issue #{{ISSUE_NUMBER}}: {{ISSUE_TITLE}}\n\n{{ISSUE_BODY}}\n\nAnswer in <result>.\n"
	}
	// The workspace is where act runs, at the same path in its containers; the default image is
	// named after it, so each case has a name of its own.
	r.dir = filepath.Join(t.TempDir(), "widgets-"+strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(w.name, "-"))+"-"+sandbox)
	r.remote = pushedRepo(t, r.e, r.git, r.dir, files)

	if m := labelCondition.FindStringSubmatch(w.text); m != nil {
		r.label = m[1]
	}
	sc.prepare(t, r)
	payload, err := json.Marshal(sc.payload(r))
	if err != nil {
		t.Fatal(err)
	}
	r.cfg = stepConfig(t, with, r.dir, sc.event, payload)
	r.model = models.NewAnthropic(t, sc.steps(r)...)
	if sandbox == "docker" {
		sandboxImages(t, r.cfg)
	}

	run := runAct(t, root, r, w.name+" with sandbox "+sandbox, sc.event, payload)
	outputs := printedOutputs(t, run)[0]
	sc.check(t, r, outputs)
	// A step of the workflow itself that reads outputs printed what it read (the Report step of
	// docs/modes.md's run example).
	for _, want := range wf.echoes(t, outputs) {
		if !printed(run, want) {
			t.Errorf("no step printed %q:\n%s", want, strings.Join(run.Printed(), "\n"))
		}
	}
}

// runAct runs r's workflow under act for the event, with the action from root, r's GitHub and
// its model, and fails the test when act does; it logs how long the run, named name, took.
func runAct(t *testing.T, root string, r *actRun, name, event string, payload []byte) actkit.Result {
	t.Helper()
	act := actkit.New(t, r.dir)
	act.Actions[scaffold.ActionRef()] = root
	act.Actions[scaffold.CheckoutRef] = actkit.CheckoutStandIn(t)
	act.Env = map[string]string{
		"GITHUB_REPOSITORY":  ghRepo,
		"GITHUB_SERVER_URL":  r.git.URL,
		"GITHUB_API_URL":     r.api.APIURL,
		"GITHUB_GRAPHQL_URL": r.api.GraphQLURL,
		// The sandbox is on Docker's default bridge: no 127.0.0.1 of this machine there.
		"ANTHROPIC_BASE_URL": actkit.ForContainers(t, r.model.URL()),
	}
	act.Secrets = map[string]string{"GITHUB_TOKEN": ghToken, "ANTHROPIC_API_KEY": models.FakeAPIKey}
	run := act.Run(t.Context(), filepath.Join(r.dir, ".github", "workflows", "agent.yml"), event, payload)
	t.Logf("act run of %s (%s): %s", name, event, run.Duration.Round(100*time.Millisecond))
	if run.Err != nil {
		t.Fatalf("%v\n%s", run.Err, run.Log)
	}
	if testing.Verbose() {
		t.Logf("act's log:\n%s", run.Log)
	}
	return run
}

// appendOutputsStep appends to steps one that prints the outputs of the action's step, for
// printedOutputs.
func appendOutputsStep(t *testing.T, steps *yaml.Node, step workflowStep) {
	t.Helper()
	appendStep(t, steps, fmt.Sprintf(`name: What a later step reads
env:
  OUTPUTS: ${{ toJSON(steps.%s.outputs) }}
run: printf 'sandcastle-outputs %%s\n' "$(printf '%%s' "$OUTPUTS" | tr -d '\n')"
`, step.id()))
}

// runPlan runs w, the plan workflow init writes, under act with the sandbox input set, started by
// hand: the plan job's agent answers with two tasks, and each job of the matrix made of them
// commits on its task's branch and signals it is done.
func runPlan(t *testing.T, root string, w actWorkflow, wf *workflow, sandbox string) {
	wf.setName(w.name + " with sandbox " + sandbox)
	// The children take the scripted model's steps in turn: one job of the matrix at a time
	// (act honours max-parallel), so that each gets its commit and then its signal.
	parallel := mapValue(mapValue(wf.job(t, "implement"), "strategy"), "max-parallel")
	if parallel == nil {
		t.Fatal("the implement job's strategy has no max-parallel")
	}
	parallel.Value = "1"
	for _, job := range []string{"plan", "implement"} {
		steps := mapValue(wf.job(t, job), "steps")
		step := actionStep(t, steps)
		step.set("sandbox", sandbox)
		appendOutputsStep(t, steps, step)
	}
	r := &actRun{git: testkit.NewGitServer(t, ghToken, ""), api: githubfake.NewGitHub(t, ghToken, ghRepo), e: hermeticEnv(t)}
	files := map[string]string{"README.md": "# widgets\n", ".github/workflows/agent.yml": wf.String(t)}
	maps.Copy(files, w.files)
	r.dir = filepath.Join(t.TempDir(), "widgets-plan-"+sandbox)
	r.remote = pushedRepo(t, r.e, r.git, r.dir, files)
	payload, err := json.Marshal(map[string]any{"inputs": map[string]any{}, "ref": "refs/heads/main", "repository": repositoryPayload(),
		"sender": map[string]any{"login": "maintainer", "type": "User"}})
	if err != nil {
		t.Fatal(err)
	}
	if sandbox == "docker" {
		sandboxImages(t, stepConfig(t, actionStep(t, mapValue(wf.job(t, "plan"), "steps")).with(), r.dir, "workflow_dispatch", payload))
	}
	// Each child's step names its file after the branch it is on, so either child may take it.
	child := []models.Step{
		models.Bash(`b=$(git rev-parse --abbrev-ref HEAD) && echo done > "$(basename "$b").txt" && git add -A && git commit -qm "Do $b"`),
		models.Text("Done. " + signal),
	}
	r.model = models.NewAnthropic(t, append([]models.Step{models.Text("Planned. <result>" +
		`{"plan_id": "act", "tasks": [{"id": "greet", "title": "Greet", "prompt": "Add a greeting."}, {"id": "docs", "title": "Document", "prompt": "Document it."}]}` +
		"</result> " + signal)}, append(child, child...)...)...)

	run := runAct(t, root, r, w.name+" with sandbox "+sandbox, "workflow_dispatch", payload)
	outs := printedOutputs(t, run)
	if len(outs) != 3 || outs[0]["task-count"] != "2" {
		t.Fatalf("outputs %v; want the plan's, with task-count 2, then each child's", outs)
	}
	var matrix struct{ Include []map[string]string }
	if err := json.Unmarshal([]byte(outs[0]["matrix"]), &matrix); err != nil || len(matrix.Include) != 2 {
		t.Errorf("the plan's matrix %q (%v); want two tasks", outs[0]["matrix"], err)
	}
	var branches []string
	for _, out := range outs[1:] {
		if out["status"] != "complete" || out["pushed"] != "true" || out["commit-count"] != "1" {
			t.Errorf("a child's outputs %v; want complete, one commit, pushed", out)
		}
		branches = append(branches, out["branch"])
	}
	slices.Sort(branches)
	if want := []string{"sandcastle/act/docs", "sandcastle/act/greet"}; !slices.Equal(branches, want) {
		t.Errorf("the children's branches %v; want %v", branches, want)
	}
	for _, b := range []string{"sandcastle/act/docs", "sandcastle/act/greet"} {
		if got, err := gitOutput(r.remote, "log", "-1", "--format=%s", "refs/heads/"+b); err != nil || got != "Do "+b {
			t.Errorf("the remote's %s: %q, %v; want the child's commit", b, got, err)
		}
	}
	if len(r.api.PRs()) != 2 {
		t.Errorf("pull requests %+v; want one per task", r.api.PRs())
	}
}

// sandboxImages makes the engine hold the images the run's sandbox needs and cannot pull here:
// the agent's published sandbox image, which a run without a Dockerfile uses and init's
// Dockerfile starts from, built by the release's own steps.
func sandboxImages(t *testing.T, cfg inputs.Config) {
	t.Helper()
	needs := []string{cfg.Docker.Image}
	if data, err := os.ReadFile(cfg.Docker.Dockerfile); err == nil {
		from := regexp.MustCompile(`(?im)^FROM\s+(?:--platform=\S+\s+)?(\S+)`)
		for _, m := range from.FindAllStringSubmatch(string(data), -1) {
			needs = append(needs, m[1])
		}
	}
	for _, image := range needs {
		for _, agent := range scaffold.Agents() {
			if image == release.SandboxImage(agent) {
				actkit.ReleaseImages(t, filepath.Join("..", ".."), "sandbox-"+agent)
			}
		}
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

// stepConfig is the Config the action's step makes of with in dir for the event, expressions
// taken as "1".
func stepConfig(t *testing.T, with map[string]string, dir, name string, payload []byte) inputs.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "event.json")
	writeFile(t, path, string(payload))
	ev, err := event.Load(name, path)
	if err != nil {
		t.Fatal(err)
	}
	expr := regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	raw := inputs.Raw{}
	for k, v := range with {
		raw[k] = expr.ReplaceAllString(v, "1")
	}
	cfg, err := inputs.Load(raw, inputs.Env{WorkDir: dir, ReadFile: inputs.ReadRegular, Stat: os.Stat, Agents: agentInfos(), Event: ev})
	if err != nil {
		t.Fatalf("the step's inputs: %v", err)
	}
	return cfg
}

// printedOutputs are the action's outputs as the steps appendOutputsStep appends printed them,
// one map per job that ran one, in order.
func printedOutputs(t *testing.T, run actkit.Result) []map[string]string {
	t.Helper()
	var outs []map[string]string
	for _, line := range run.Printed() {
		if js, ok := strings.CutPrefix(line, "sandcastle-outputs "); ok {
			var out map[string]string
			if err := json.Unmarshal([]byte(js), &out); err != nil {
				t.Fatalf("the outputs a later step read: %v\n%s", err, js)
			}
			outs = append(outs, out)
		}
	}
	if len(outs) == 0 {
		t.Fatalf("no later step printed the outputs:\n%s", run.Log)
	}
	return outs
}

func printed(run actkit.Result, want string) bool {
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

// setName sets the workflow's name.
func (w *workflow) setName(name string) {
	doc := w.doc.Content[0]
	if v := mapValue(doc, "name"); v != nil {
		v.Value = name
		return
	}
	doc.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Value: "name"}, {Kind: yaml.ScalarNode, Value: name}}, doc.Content...)
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

// jobs is how many jobs the workflow has.
func (w *workflow) jobs() int {
	return len(mapValue(w.doc.Content[0], "jobs").Content) / 2
}

// job is the workflow's job of that id.
func (w *workflow) job(t *testing.T, id string) *yaml.Node {
	t.Helper()
	j := mapValue(mapValue(w.doc.Content[0], "jobs"), id)
	if j == nil {
		t.Fatalf("the workflow has no job %s", id)
	}
	return j
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

// actionStep is the step of steps that uses the action.
func actionStep(t *testing.T, steps *yaml.Node) workflowStep {
	t.Helper()
	for _, s := range steps.Content {
		if v := mapValue(s, "uses"); v != nil && v.Value == scaffold.ActionRef() {
			return workflowStep{s}
		}
	}
	t.Fatalf("no step uses %s", scaffold.ActionRef())
	return workflowStep{}
}

// appendStep adds a step, given as YAML, at the end of steps.
func appendStep(t *testing.T, steps *yaml.Node, text string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
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
