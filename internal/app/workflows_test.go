package app

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/scaffold"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// codeBlock is a fenced block of a Markdown file.
type codeBlock struct {
	line int // of the opening fence
	text string
}

// docBlock is a ```yaml block of a page a user reads.
type docBlock struct {
	codeBlock
	file string // from the repository's root, as README.md or docs/modes.md
}

// name says where the block is: the file and the line of its opening fence.
func (b docBlock) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docYAMLBlocks returns the ```yaml blocks of README.md and docs/*.md, so that a workflow is
// checked wherever a page shows it.
func docYAMLBlocks(t *testing.T) []docBlock {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	for _, page := range append([]string{filepath.Join("..", "..", "README.md")}, pages...) {
		file := filepath.ToSlash(strings.TrimPrefix(page, filepath.Join("..", "..")+string(filepath.Separator)))
		for _, b := range yamlBlocks(readFile(t, page)) {
			out = append(out, docBlock{codeBlock: b, file: file})
		}
	}
	return out
}

// isWorkflow says whether a YAML block is a whole workflow, not a fragment of one.
func isWorkflow(text string) bool {
	return strings.HasPrefix(text, "jobs:") || strings.Contains(text, "\njobs:")
}

// yamlBlocks returns the ```yaml blocks of a Markdown document.
func yamlBlocks(markdown string) []codeBlock {
	var blocks []codeBlock
	var cur *codeBlock
	for i, line := range strings.Split(markdown, "\n") {
		switch fence := strings.TrimSpace(line); {
		case cur == nil && (fence == "```yaml" || fence == "```yml"):
			cur = &codeBlock{line: i + 1}
		case cur != nil && fence == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return blocks
}

// lintProject is a directory actionlint takes for a repository whose root action is this
// checkout's: a step that uses ./ is checked against action.yml's inputs and outputs.
type lintProject struct {
	t    *testing.T
	root string
	n    int
}

func newLintProject(t *testing.T) *lintProject {
	t.Helper()
	root := t.TempDir()
	// actionlint finds the project, and so the local action, by its .git.
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"action.yml", "Dockerfile"} {
		writeFile(t, filepath.Join(root, f), readFile(t, filepath.Join("..", "..", f)))
	}
	return &lintProject{t: t, root: root}
}

// add writes a workflow named after where it came from, using this checkout's action.
func (p *lintProject) add(name, workflow string) {
	p.t.Helper()
	workflow = strings.ReplaceAll(workflow, "uses: "+scaffold.ActionRef(), "uses: ./")
	writeFile(p.t, filepath.Join(p.root, ".github", "workflows", name+".yml"), workflow)
	p.n++
}

// actionlintIgnore is the one finding that is not a mistake: the output-<field> outputs of a
// structured output exist, but action.yml cannot declare them (see docs/outputs.md).
const actionlintIgnore = `property "output-[a-z0-9_-]+" is not defined in object type`

// lint runs actionlint on every workflow of the project and returns its findings, "" for none.
func (p *lintProject) lint(bin string) string {
	p.t.Helper()
	files, err := filepath.Glob(filepath.Join(p.root, ".github", "workflows", "*.yml"))
	if err != nil || len(files) != p.n {
		p.t.Fatalf("workflows %v (%v), want %d", files, err, p.n)
	}
	// No shellcheck or pyflakes: their presence on a machine would change the verdict.
	cmd := exec.Command(bin, append([]string{"-no-color", "-shellcheck=", "-pyflakes=", "-ignore", actionlintIgnore}, files...)...)
	cmd.Dir = p.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		p.t.Fatalf("actionlint: %v", err)
	}
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(out.String(), p.root+string(filepath.Separator), "")
}

// TestWorkflowsPassActionlint runs actionlint over every workflow the project shows: the YAML
// blocks of README.md and docs/*.md that are workflows, the workflow `sandcastle init` writes for each agent, and the
// repository's own .github/workflows. They use this checkout's action, so an input or output
// that action.yml lacks fails too. Every other YAML block of those pages must at least be YAML.
func TestWorkflowsPassActionlint(t *testing.T) {
	t.Parallel()
	bin := testkit.RequireBinary(t, "actionlint")
	p := newLintProject(t)

	shown := map[string]bool{}
	for _, b := range docYAMLBlocks(t) {
		if isWorkflow(b.text) {
			p.add(strings.NewReplacer("/", "-", ":", "-line-").Replace(b.name()), b.text)
			shown[b.file] = true
			continue
		}
		var doc any
		if err := yaml.Unmarshal([]byte(b.text), &doc); err != nil {
			t.Errorf("%s: the YAML block is not YAML: %v", b.name(), err)
		}
	}
	for _, page := range []string{"README.md", "docs/modes.md"} {
		if !shown[page] {
			t.Errorf("%s shows no workflow; its workflows are what this test checks", page)
		}
	}
	for name, text := range initWorkflows(t) {
		p.add(name, text)
	}
	for name, text := range ownWorkflows(t) {
		p.add("own-"+strings.TrimSuffix(name, filepath.Ext(name)), text)
	}

	if findings := p.lint(bin); findings != "" {
		t.Errorf("actionlint finds mistakes in the workflows the project shows:\n%s", findings)
	}
}

// TestWorkflowsGiveValidInputs: the inputs every workflow the project shows gives the action
// (its own under .github/workflows through uses: ./), with action.yml's defaults for the rest as
// the runner passes them, are valid together, as Load checks them (expressions stand in as plain
// text, and the files they name exist), which actionlint cannot know.
func TestWorkflowsGiveValidInputs(t *testing.T) {
	t.Parallel()
	workflows := map[string]string{}
	for _, b := range docYAMLBlocks(t) {
		workflows[b.name()] = b.text
	}
	maps.Copy(workflows, initWorkflows(t))
	maps.Copy(workflows, ownWorkflows(t))
	expr := regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	steps := 0
	for name, text := range workflows {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			continue // not a workflow, or not YAML: the test above says so
		}
		for _, job := range wf.Jobs {
			for _, step := range job.Steps {
				if step.Uses != scaffold.ActionRef() && step.Uses != "./" {
					continue
				}
				steps++
				raw := inputs.Raw{}
				for k, v := range step.With {
					raw[k] = expr.ReplaceAllString(v, "1")
				}
				for k, v := range actionDefaults(t) { // as the runner passes them
					if _, given := raw[k]; !given && !expr.MatchString(v) {
						raw[k] = v
					}
				}
				_, err := inputs.Load(raw, inputs.Env{
					// The event names the issue a mode's branch is named after.
					Event:   &event.Event{Name: event.Issues, Issue: &event.Issue{Number: 1, Title: "Fix it"}},
					WorkDir: t.TempDir(),
					Stat:    os.Stat,
					// Every file a workflow names is there (a prompt that asks for the output tag);
					// the optional env-file is not.
					ReadFile: func(path string, _ int64) ([]byte, error) {
						if strings.HasSuffix(path, ".env") {
							return nil, fs.ErrNotExist
						}
						return []byte("Fix {{ISSUE_TITLE}}; answer in <result>."), nil
					},
					Agents: agentInfos(),
				})
				if err != nil {
					t.Errorf("%s: the action's inputs are invalid:\n%v", name, err)
				}
			}
		}
	}
	if want := 2 + len(scaffold.Agents())*(1+len(scaffold.Modes())); steps < want {
		t.Errorf("found %d steps that use %s or ./, want %d: one in README, one in each starter workflow and the dogfood workflow's, and those of docs/", steps, scaffold.ActionRef(), want)
	}
}

// TestWorkflowsQueueOnTheJob: a workflow the project shows whose job has an if: holds its
// concurrency group on that job. A workflow's group is taken by every event the workflow
// receives, before any job's if: a comment that asks for nothing (the progress comment, a
// "thanks") would cancel the run waiting in the group, or with cancel-in-progress the running one.
func TestWorkflowsQueueOnTheJob(t *testing.T) {
	t.Parallel()
	workflows := initWorkflows(t)
	for _, b := range docYAMLBlocks(t) {
		workflows[b.name()] = b.text
	}
	checked := 0
	for name, text := range workflows {
		var wf struct {
			Concurrency any `yaml:"concurrency"`
			Jobs        map[string]struct {
				If          string `yaml:"if"`
				Concurrency any    `yaml:"concurrency"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			continue // not a workflow, or not YAML: TestWorkflowsPassActionlint says so
		}
		for id, job := range wf.Jobs {
			if job.If == "" {
				continue
			}
			checked++
			if wf.Concurrency != nil || job.Concurrency == nil {
				t.Errorf("%s: job %s has an if:, and its concurrency group is the workflow's (%v), not the job's (%v)", name, id, wf.Concurrency, job.Concurrency)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no workflow has a job with an if:")
	}
}

// ownWorkflows are the project's own workflows, .github/workflows/*.yml, by file name.
func ownWorkflows(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "*.y*ml"))
	out := map[string]string{}
	for _, f := range files {
		out[filepath.Base(f)] = readFile(t, f)
	}
	return out
}

// initWorkflows are the workflows `sandcastle init` writes, without and with each --mode, for
// every agent, by a name that says which.
func initWorkflows(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, agent := range scaffold.Agents() {
		dir := t.TempDir()
		if _, err := scaffold.Write(dir, scaffold.Options{Agent: agent}); err != nil {
			t.Fatal(err)
		}
		out["init-"+agent] = readFile(t, filepath.Join(dir, ".github", "workflows", "sandcastle.yml"))
		dir = t.TempDir()
		if _, err := scaffold.Write(dir, scaffold.Options{Agent: agent, Modes: scaffold.Modes()}); err != nil {
			t.Fatal(err)
		}
		for _, m := range scaffold.Modes() {
			out["init-"+agent+"-mode-"+m] = readFile(t, filepath.Join(dir, ".github", "workflows", "sandcastle-"+m+".yml"))
		}
	}
	return out
}

// TestActionlintCatchesBrokenExamples: the check above can fail. An example that is not YAML,
// or that gives the action an input it lacks, is reported.
func TestActionlintCatchesBrokenExamples(t *testing.T) {
	t.Parallel()
	bin := testkit.RequireBinary(t, "actionlint")
	p := newLintProject(t)
	workflow := `on: push
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - id: agent
        uses: ` + scaffold.ActionRef() + `
        with:
          prompt: Fix it.
          max-iterations: 3
      - run: 'echo "${{ steps.agent.outputs.pr-url }}"'
`
	p.add("misspelt-input", strings.Replace(workflow, "max-iterations:", "max-iteration:", 1))
	p.add("not-yaml", strings.Replace(workflow, `'echo "${{ steps.agent.outputs.pr-url }}"'`, `echo "PR ${{ steps.agent.outputs.pr-url }}: done"`, 1))
	p.add("unknown-output", strings.Replace(workflow, "outputs.pr-url", "outputs.pr-link", 1))
	p.add("fine", workflow)
	findings := p.lint(bin)
	for _, want := range []string{
		`misspelt-input.yml:10:11: input "max-iteration" is not defined in action`,
		"not-yaml.yml:11:",
		"could not parse as YAML",
		`unknown-output.yml:11:`,
		`property "pr-link" is not defined`,
	} {
		if !strings.Contains(findings, want) {
			t.Errorf("actionlint does not report %q:\n%s", want, findings)
		}
	}
	if strings.Contains(findings, "fine.yml") {
		t.Errorf("actionlint reports the workflow without mistakes:\n%s", findings)
	}
}

// TestOwnWorkflowsAreHardened: the project's own workflows pin every action they use to a
// commit, declare their permissions (none beyond reading, at the top), and put no expression
// inside run:, where a value would become shell code.
func TestOwnWorkflowsAreHardened(t *testing.T) {
	t.Parallel()
	own := ownWorkflows(t)
	if len(own) == 0 {
		t.Fatal("no workflows under .github/workflows")
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$`)
	for name, text := range own {
		var wf struct {
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]struct {
				Steps []struct {
					Uses string `yaml:"uses"`
					Run  string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for scope, level := range wf.Permissions {
			if level != "read" && level != "none" {
				t.Errorf("%s: the workflow grants %s: %s to every job; grant writes in the job that needs them", name, scope, level)
			}
		}
		if wf.Permissions == nil {
			t.Errorf("%s declares no permissions of its own, so it gets the repository's default", name)
		}
		for job, j := range wf.Jobs {
			for i, step := range j.Steps {
				if step.Uses != "" && step.Uses != "./" && !pinned.MatchString(step.Uses) {
					t.Errorf("%s: job %s step %d uses %s, not pinned to a commit", name, job, i+1, step.Uses)
				}
				if strings.Contains(step.Run, "${{") {
					t.Errorf("%s: job %s step %d has an expression in run:; pass it through env:", name, job, i+1)
				}
			}
		}
	}
}
