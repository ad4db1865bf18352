package scaffold

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/release"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

var wantPaths = []string{
	filepath.FromSlash(".sandcastle/Dockerfile"),
	filepath.FromSlash(".sandcastle/prompt.md"),
	filepath.FromSlash(".sandcastle/.gitignore"),
	filepath.FromSlash(".sandcastle/.env.example"),
	filepath.FromSlash(".github/workflows/sandcastle.yml"),
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	for _, name := range Agents() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			paths, err := Write(dir, Options{Agent: name})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(paths, wantPaths) {
				t.Fatalf("Write returned %q, want %q", paths, wantPaths)
			}
			for _, p := range paths {
				full := filepath.Join(dir, p)
				info, err := os.Stat(full)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := info.Mode(), fs.FileMode(0o644); got != want {
					t.Errorf("%s mode = %v, want %v", p, got, want)
				}
				got, err := os.ReadFile(full)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, name+"."+strings.TrimPrefix(filepath.Base(p), "."), got)
			}
		})
	}
}

func TestWriteDefaultAgent(t *testing.T) {
	t.Parallel()
	def, other := t.TempDir(), t.TempDir()
	if _, err := Write(def, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(other, Options{Agent: DefaultAgent}); err != nil {
		t.Fatal(err)
	}
	if got, want := readTree(t, def), readTree(t, other); !maps.Equal(got, want) {
		t.Errorf("Write with no agent wrote %q, want what %s gets: %q", slices.Sorted(maps.Keys(got)), DefaultAgent, slices.Sorted(maps.Keys(want)))
	}
}

func TestWritePins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Write(dir, Options{Agent: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	for _, c := range []struct{ path, want string }{
		{".sandcastle/Dockerfile", "FROM " + release.SandboxImage("claude-code") + "\n"},
		{".sandcastle/Dockerfile", "ARG AGENT_UID=1000\nARG AGENT_GID=1000\n"},
		{".sandcastle/Dockerfile", "USER ${AGENT_UID}:${AGENT_GID}\n"},
		{".github/workflows/sandcastle.yml", "uses: " + ActionRef() + "\n"},
		{".github/workflows/sandcastle.yml", "uses: " + CheckoutRef + "\n"},
	} {
		if !strings.Contains(tree[c.path], c.want) {
			t.Errorf("%s does not contain %q:\n%s", c.path, c.want, tree[c.path])
		}
	}
	if strings.Contains(tree[".sandcastle/Dockerfile"], "ENTRYPOINT") {
		t.Errorf("Dockerfile has an ENTRYPOINT; the sandbox keeps its container alive itself")
	}
}

func TestWriteRefusesExisting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string)
		wantPath string
	}{
		{"dockerfile", writeAt(".sandcastle/Dockerfile", "FROM mine\n"), ".sandcastle/Dockerfile"},
		{"workflow", writeAt(".github/workflows/sandcastle.yml", "name: mine\n"), ".github/workflows/sandcastle.yml"},
		{"empty_gitignore", writeAt(".sandcastle/.gitignore", ""), ".sandcastle/.gitignore"},
		{"dangling_symlink", func(t *testing.T, dir string) {
			mkdirAll(t, filepath.Join(dir, ".sandcastle"))
			if err := os.Symlink("nowhere", filepath.Join(dir, ".sandcastle", "prompt.md")); err != nil {
				t.Fatal(err)
			}
		}, ".sandcastle/prompt.md"},
		{"directory", func(t *testing.T, dir string) {
			mkdirAll(t, filepath.Join(dir, ".sandcastle", ".env.example"))
		}, ".sandcastle/.env.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.setup(t, dir)
			before := listTree(t, dir)

			paths, err := Write(dir, Options{Agent: "claude-code"})
			var exist *ExistError
			if !errors.As(err, &exist) {
				t.Fatalf("Write error = %v, want an *ExistError", err)
			}
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("error %v does not match fs.ErrExist", err)
			}
			if want := []string{filepath.FromSlash(tt.wantPath)}; !slices.Equal(exist.Paths, want) {
				t.Errorf("ExistError.Paths = %q, want %q", exist.Paths, want)
			}
			if !strings.Contains(err.Error(), filepath.FromSlash(tt.wantPath)) || !strings.Contains(err.Error(), "nothing was written") {
				t.Errorf("error %q does not name %s and say nothing was written", err, tt.wantPath)
			}
			if paths != nil {
				t.Errorf("Write returned paths %q with its error", paths)
			}
			if got := listTree(t, dir); !slices.Equal(got, before) {
				t.Errorf("directory after refusal = %q, want it untouched: %q", got, before)
			}
		})
	}
}

func TestWriteRefusesNamesEveryExistingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := Write(dir, Options{})
	var exist *ExistError
	if !errors.As(err, &exist) {
		t.Fatalf("second Write error = %v, want an *ExistError", err)
	}
	if !slices.Equal(exist.Paths, wantPaths) {
		t.Errorf("ExistError.Paths = %q, want every file: %q", exist.Paths, wantPaths)
	}
}

func TestWriteForce(t *testing.T) {
	t.Parallel()
	fresh := t.TempDir()
	if _, err := Write(fresh, Options{}); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, fresh)

	dir := t.TempDir()
	writeAt(".sandcastle/Dockerfile", "FROM mine\n")(t, dir)
	writeAt(".sandcastle/keep.txt", "not ours\n")(t, dir)
	// A symlink in place of a starter file is replaced, not written through.
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".sandcastle", "prompt.md")); err != nil {
		t.Fatal(err)
	}

	paths, err := Write(dir, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("Write returned %q, want %q", paths, wantPaths)
	}
	got := readTree(t, dir)
	if got[".sandcastle/keep.txt"] != "not ours\n" {
		t.Errorf("keep.txt = %q, want it untouched", got[".sandcastle/keep.txt"])
	}
	delete(got, ".sandcastle/keep.txt")
	if !maps.Equal(got, want) {
		t.Errorf("after Force the files differ from a fresh scaffold:\ngot  %q\nwant %q", got, want)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
		t.Errorf("symlink target = %q, want it untouched", b)
	}
	if info, err := os.Lstat(filepath.Join(dir, ".sandcastle", "prompt.md")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("prompt.md = %v, %v; want a regular file in place of the symlink", info, err)
	}
}

func TestWriteFailureRemovesCreatedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Force cannot remove a non-empty directory where the workflow goes: the last file fails.
	writeAt(".github/workflows/sandcastle.yml/inside", "x")(t, dir)
	writeAt(".sandcastle/.gitignore", "mine\n")(t, dir)

	paths, err := Write(dir, Options{Force: true})
	if err == nil || !strings.Contains(err.Error(), ".github/workflows/sandcastle.yml") {
		t.Fatalf("Write error = %v, want one naming the workflow", err)
	}
	if paths != nil {
		t.Errorf("Write returned paths %q with its error", paths)
	}
	got := listTree(t, dir)
	want := []string{".github/workflows/sandcastle.yml/inside", ".sandcastle/.gitignore"}
	if !slices.Equal(got, want) {
		t.Errorf("files after the failure = %q, want only those that were there: %q", got, want)
	}
}

func TestWriteUnknownAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := Write(dir, Options{Agent: "codex-ish"})
	if err == nil {
		t.Fatalf("Write(unknown agent) = %q, want an error", paths)
	}
	for _, want := range append([]string{`"codex-ish"`}, Agents()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("files written for an unknown agent: %q", got)
	}
}

// Each scaffolded agent must be one the action can run, with credentials it reads.
func TestAgentsMatchAgentRegistry(t *testing.T) {
	t.Parallel()
	for _, name := range Agents() {
		p, err := agent.Lookup(name)
		if err != nil {
			t.Errorf("scaffold agent %q: %v", name, err)
			continue
		}
		dir := t.TempDir()
		if _, err := Write(dir, Options{Agent: name}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(readTree(t, dir)[".sandcastle/.env.example"], "\n") {
			key, _, ok := strings.Cut(line, "=")
			if !ok || strings.HasPrefix(line, "#") {
				continue
			}
			if !slices.Contains(p.EnvNames, key) {
				t.Errorf("%s: .env.example sets %s, which the agent does not read (%q)", name, key, p.EnvNames)
			}
		}
		if !slices.Contains(p.EnvNames, p.Secret) {
			t.Errorf("%s: the workflow passes %s, which the agent does not read", name, p.Secret)
		}
	}
}

// workflowStep is the part of a workflow step the tests look at.
type workflowStep struct {
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// The workflow must run the prompt it scaffolds, with exactly the arguments the prompt uses.
func TestWorkflowFitsPrompt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)

	var wf struct {
		On struct {
			Issues struct {
				Types []string `yaml:"types"`
			} `yaml:"issues"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			If    string         `yaml:"if"`
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(tree[".github/workflows/sandcastle.yml"]), &wf); err != nil {
		t.Fatalf("workflow is not YAML: %v", err)
	}
	if got, want := wf.On.Issues.Types, []string{"labeled"}; !slices.Equal(got, want) {
		t.Errorf("on.issues.types = %q, want %q", got, want)
	}
	// Push the branch, comment and move labels on the issue, open the pull request.
	if got, want := wf.Permissions, map[string]string{"contents": "write", "issues": "write", "pull-requests": "write"}; !maps.Equal(got, want) {
		t.Errorf("permissions = %v, want %v", got, want)
	}
	job, ok := wf.Jobs["agent"]
	if !ok {
		t.Fatalf("no job agent in %q", slices.Sorted(maps.Keys(wf.Jobs)))
	}
	label, ok := strings.CutPrefix(job.If, "github.event.label.name == '")
	label, closed := strings.CutSuffix(label, "'")
	if !ok || !closed || label != "sandcastle" {
		t.Fatalf("job agent runs if %q, want it to run on the label sandcastle", job.If)
	}
	var run *workflowStep
	for i := range job.Steps {
		if job.Steps[i].Uses == ActionRef() {
			run = &job.Steps[i]
		}
	}
	if run == nil {
		t.Fatalf("no step uses %s", ActionRef())
	}
	for _, name := range slices.Sorted(maps.Keys(run.With)) {
		if _, ok := inputs.Lookup(name); !ok {
			t.Errorf("the workflow passes %s, which is not an input of the action", name)
		}
	}
	// The action starts only on trigger-label, and removes it: it must be the label the job runs on.
	if got, want := run.With["trigger-label"], label; got != want {
		t.Errorf("trigger-label = %q, want %q, the label the job runs on", got, want)
	}
	if got, want := run.With["prompt-file"], ".sandcastle/prompt.md"; got != want {
		t.Errorf("prompt-file = %q, want %q", got, want)
	}
	if got, want := run.Env["ANTHROPIC_API_KEY"], "${{ secrets.ANTHROPIC_API_KEY }}"; got != want {
		t.Errorf("env ANTHROPIC_API_KEY = %q, want %q", got, want)
	}

	// The prompt needs only the built-ins an issues event provides.
	if _, ok := run.With["prompt-args"]; ok {
		t.Errorf("the workflow passes prompt-args %q; the event's built-ins cover the issue", run.With["prompt-args"])
	}
	builtins := (&event.Event{Issue: &event.Issue{Number: 1, Title: "t", Body: "b"}, Actor: "a", Repository: "o/r"}).PromptArgs()
	builtins["SOURCE_BRANCH"], builtins["TARGET_BRANCH"] = "main", "main"
	parsed, err := prompt.Parse(tree[".sandcastle/prompt.md"])
	if err != nil {
		t.Fatalf("parse the prompt: %v", err)
	}
	p, err := parsed.Render(builtins)
	if err != nil {
		t.Fatalf("prompt with the issues event's built-ins: %v", err)
	}
	if got, want := p.Commands(), "git log --oneline -10"; len(got) != 1 || got[0].Source != want {
		t.Errorf("prompt commands = %v, want %q", got, want)
	}
	if !strings.Contains(p.Text(), "\n<promise>COMPLETE</promise>\n") {
		t.Errorf("prompt does not show the default completion signal on a line of its own")
	}
}

func writeAt(rel, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(rel))
		mkdirAll(t, filepath.Dir(path))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// listTree returns the slash-separated paths of the files and symlinks under dir, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		paths = append(paths, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	return paths
}

// readTree returns the content of every file under dir by slash-separated path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	for _, p := range listTree(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		tree[p] = string(b)
	}
	return tree
}

// golden compares got with testdata/NAME.golden; UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name+".golden"), got)
}
