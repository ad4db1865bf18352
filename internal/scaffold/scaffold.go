package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/release"
)

// DefaultAgent is the agent Write scaffolds when Options.Agent is empty.
const DefaultAgent = "claude-code"

//go:embed templates
var templates embed.FS

// Options says what Write scaffolds.
type Options struct {
	// Agent is the agent CLI the image installs, one of Agents(); empty means DefaultAgent.
	Agent string
	// Modes are the modes to write a workflow for, each .github/workflows/sandcastle-<mode>.yml
	// with the mode's built-in prompt; one of Modes(). None writes the starter workflow of
	// the run mode with a prompt file of its own, .sandcastle/prompt.md.
	Modes []string
	// Force overwrites files that exist. Without it, an existing file is an error and nothing
	// is written, but for the files every mode shares, which Write with Modes keeps.
	Force bool
}

// Modes returns the modes Options.Modes accepts: those of the mode table that have a workflow
// of their own, in its order.
func Modes() []string {
	var names []string
	for _, m := range inputs.Modes {
		if m.Name != inputs.ModeRun {
			names = append(names, m.Name)
		}
	}
	return names
}

// ExistError is returned when starter files exist and Options.Force is not set. It matches
// fs.ErrExist under errors.Is.
type ExistError struct {
	Paths []string // relative to the directory, in the order Write would write them
}

func (e *ExistError) Error() string {
	return fmt.Sprintf("starter files already exist: %s; nothing was written (--force overwrites them)", strings.Join(e.Paths, ", "))
}

func (e *ExistError) Unwrap() error { return fs.ErrExist }

// notes are what .env.example says about an agent's credentials beyond naming them.
func notes(name string) []string {
	return map[string][]string{
		"claude-code": {"CLAUDE_CODE_OAUTH_TOKEN is a subscription token from `claude setup-token`."},
		"codex":       {"codex exec logs in with CODEX_API_KEY (an OpenAI API key); it ignores OPENAI_API_KEY."},
		"pi":          {"pi uses the provider of the model input; set that provider's key."},
		"opencode":    {"opencode uses the provider of the model input (provider/model); set that provider's key."},
		"copilot": {
			"A fine-grained token with the Copilot Requests permission. The job's GITHUB_TOKEN cannot",
			"make Copilot requests, and GH_TOKEN and GITHUB_TOKEN never reach the agent.",
		},
	}[name]
}

// Agents returns the names Options.Agent accepts, sorted: the agent registry's.
func Agents() []string {
	return agent.Names()
}

// file is one starter file: its path relative to the directory, slash-separated, and content.
type file struct {
	path    string
	content []byte
	// shared is a file every mode's workflow uses: when Write adds a mode's workflow, one that
	// exists (an earlier init's, maybe edited since) is kept as it is, unless Force.
	shared bool
}

// Write writes the starter files into dir, creating directories as needed, and returns their
// paths relative to dir in the order written. With Modes, the shared files that exist are kept
// and not returned, so that a mode's workflow can be added later. On error it returns no
// paths, and the files it created are removed again.
func Write(dir string, o Options) ([]string, error) {
	all, err := render(o.Agent, o.Modes)
	if err != nil {
		return nil, err
	}
	var files []file
	var existing []string
	for _, f := range all {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.path))); err == nil {
			if f.shared && !o.Force {
				continue
			}
			existing = append(existing, filepath.FromSlash(f.path))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("scaffold %s: %w", f.path, err)
		}
		files = append(files, f)
	}
	if len(existing) > 0 && !o.Force {
		return nil, &ExistError{Paths: existing}
	}

	var written []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := writeFile(path, f.content, o.Force); err != nil {
			// Take back the files this call created, so that a failure leaves no half scaffold.
			// Files replaced under Force stay replaced: their old content is gone.
			for _, w := range written {
				if !slices.Contains(existing, w) {
					os.Remove(filepath.Join(dir, w))
				}
			}
			return nil, fmt.Errorf("scaffold %s: %w", f.path, err)
		}
		written = append(written, filepath.FromSlash(f.path))
	}
	return written, nil
}

// writeFile creates path with content. An existing file is replaced only with force, and then
// removed first, so that a symlink in its place is replaced rather than written through.
// Creating with O_EXCL keeps a file that appeared since the check from being clobbered.
func writeFile(path string, content []byte, force bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if force {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// source is a starter file, the template it is rendered from, and whether every mode's
// workflow shares it (file.shared).
type source struct {
	path, template string
	shared         bool
}

// sources are the starter files of modes, in the order Write writes them: without modes, the
// run mode's starter workflow with its own prompt file; else a workflow per mode, beside the
// files they share.
func sources(modes []string) ([]source, error) {
	if len(modes) == 0 {
		return []source{
			{".sandcastle/Dockerfile", "Dockerfile", false},
			{".sandcastle/prompt.md", "prompt.md", false},
			{".sandcastle/.gitignore", "gitignore", false},
			{".sandcastle/.env.example", "env.example", false},
			{".github/workflows/sandcastle.yml", "sandcastle.yml", false},
		}, nil
	}
	list := []source{
		{".sandcastle/Dockerfile", "Dockerfile", true},
		{".sandcastle/.gitignore", "gitignore", true},
		{".sandcastle/.env.example", "env.example", true},
	}
	valid := Modes()
	for _, m := range modes {
		if !slices.Contains(valid, m) {
			return nil, fmt.Errorf("scaffold for mode %q: no such mode with a workflow; valid modes are %s (run, the default, is what init writes without a mode)", m, strings.Join(valid, ", "))
		}
		if p := ".github/workflows/sandcastle-" + m + ".yml"; !slices.ContainsFunc(list, func(s source) bool { return s.path == p }) {
			list = append(list, source{p, "workflow-" + m + ".yml", false})
		}
	}
	return list, nil
}

// render returns the starter files for agent and modes, in the order Write writes them.
func render(name string, modes []string) ([]file, error) {
	if name == "" {
		name = DefaultAgent
	}
	p, err := agent.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	// The keys .env.example lists: those the CLI logs in with, or, for one that needs none,
	// the one the workflow passes.
	credentials := p.Credentials
	if len(credentials) == 0 {
		credentials = []string{p.Secret}
	}
	data := struct {
		Label, Secret          string
		Credentials, Notes     []string
		Agent, Image           string
		ActionRef, CheckoutRef string
	}{p.Label, p.Secret, credentials, notes(name), name, release.SandboxImage(name), ActionRef(), CheckoutRef}

	list, err := sources(modes)
	if err != nil {
		return nil, err
	}
	files := make([]file, 0, len(list))
	for _, s := range list {
		text, err := templates.ReadFile("templates/" + s.template)
		if err != nil {
			return nil, fmt.Errorf("scaffold %s: %w", s.path, err)
		}
		// [[ ]] because the files are full of {{ }}: prompt placeholders and workflow expressions.
		t, err := template.New(s.template).Delims("[[", "]]").Option("missingkey=error").Parse(string(text))
		if err != nil {
			return nil, fmt.Errorf("scaffold %s: parse template: %w", s.path, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("scaffold %s: render template: %w", s.path, err)
		}
		files = append(files, file{path: s.path, content: b.Bytes(), shared: s.shared})
	}
	return files, nil
}
