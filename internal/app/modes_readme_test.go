package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/scaffold"
)

// The table stays a restate-and-test pair rather than generated into the README: the README is
// hand-written prose, and a generator rewriting a part of it would fight its editors. So do the
// modes' workflows in README.md and docs/modes.md, which are what init writes.
//
// modesTable is the README's table of what each mode sets, made from the mode table: a row for
// what starts it, the branch it works on, the prompt, then each input a mode sets (blank: the
// input's own default; "needed": another value is refused).
func modesTable() string {
	var modes []inputs.Mode
	for _, m := range inputs.Modes {
		if m.Name != inputs.ModeRun {
			modes = append(modes, m)
		}
	}
	var b strings.Builder
	row := func(first string, cell func(m inputs.Mode) string) {
		b.WriteString("| " + first + " |")
		for _, m := range modes {
			b.WriteString(" " + cell(m) + " |")
		}
		b.WriteString("\n")
	}
	row("", func(m inputs.Mode) string { return "`" + m.Name + "`" })
	row("---", func(inputs.Mode) string { return "---" })
	row("started by", func(m inputs.Mode) string { return m.Started })
	row("works on", func(m inputs.Mode) string {
		switch {
		case m.IssueBranch:
			return "a branch `" + inputs.IssueBranchPrefix + "<number>-<title>`"
		case m.OnPullRequest:
			return "the pull request's own branch"
		}
		return "the checkout, changing no branch"
	})
	row("built-in prompt", func(m inputs.Mode) string {
		return "[" + m.Name + ".md](internal/inputs/prompts/" + m.Name + ".md)"
	})
	for _, d := range inputs.Definitions {
		if !slices.ContainsFunc(modes, func(m inputs.Mode) bool {
			return slices.ContainsFunc(m.Settings, func(s inputs.Setting) bool { return s.Input == d.Name })
		}) {
			continue
		}
		name := "`" + d.Name + "`"
		if key := inputs.KeyName(d.Name); key != d.Name {
			name = "`" + key + "` (`" + strings.TrimSuffix(d.Name, "."+key) + "`)"
		}
		row(name, func(m inputs.Mode) string {
			for _, s := range m.Settings {
				if s.Input == d.Name {
					cell := "`" + strings.Join(strings.Split(s.Value, "\n"), "`, `") + "`"
					if s.Needed != "" {
						cell += " (needed)"
					}
					return cell
				}
			}
			return ""
		})
	}
	return b.String()
}

// TestREADMEModes: the README shows the mode table as it is, each mode's built-in prompt where
// it links it, and, as its quick start, exactly the workflow `sandcastle init --mode implement`
// writes; docs/modes.md shows, for every mode, exactly the workflow init writes for it.
func TestREADMEModes(t *testing.T) {
	t.Parallel()
	readme := readFile(t, filepath.Join("..", "..", "README.md"))
	if table := modesTable(); !strings.Contains(readme, table) {
		t.Errorf("README lacks the modes table as the mode table makes it:\n%s", table)
	}
	for _, m := range inputs.Modes {
		if m.Prompt == "" {
			continue
		}
		if got := readFile(t, filepath.Join("..", "inputs", "prompts", m.Name+".md")); got != m.Prompt {
			t.Errorf("internal/inputs/prompts/%s.md, which README links, is not mode %s's built-in prompt", m.Name, m.Name)
		}
	}
	dir := t.TempDir()
	if _, err := scaffold.Write(dir, scaffold.Options{Modes: scaffold.Modes()}); err != nil {
		t.Fatal(err)
	}
	shows := func(page string) []string {
		var blocks []string
		for _, b := range yamlBlocks(readFile(t, filepath.Join("..", "..", filepath.FromSlash(page)))) {
			blocks = append(blocks, b.text)
		}
		return blocks
	}
	readmeBlocks, modesBlocks := shows("README.md"), shows("docs/modes.md")
	for _, m := range scaffold.Modes() {
		wf := readFile(t, filepath.Join(dir, ".github", "workflows", "sandcastle-"+m+".yml"))
		if m == inputs.ModeImplement && !slices.Contains(readmeBlocks, wf) {
			t.Errorf("README shows no workflow block equal to what sandcastle init --mode %s writes:\n%s", m, wf)
		}
		if !slices.Contains(modesBlocks, wf) {
			t.Errorf("docs/modes.md shows no workflow block equal to what sandcastle init --mode %s writes:\n%s", m, wf)
		}
	}
}
