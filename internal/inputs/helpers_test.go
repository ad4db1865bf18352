package inputs

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// testAgents stand in for the agent registry: one agent of each shape validation cares about.
var testAgents = []AgentInfo{
	{
		Name:            "claude-code",
		Efforts:         []string{"low", "medium", "high", "xhigh", "max"},
		PermissionModes: []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"},
		Resumable:       true,
		Forkable:        true,
		ReportsCost:     true,
	},
	{Name: "codex", Efforts: []string{"low", "medium", "high", "xhigh"}, Resumable: true},
	{Name: "pi"},
}

// testEnv is an Env over an in-memory tree holding /repo; files are keyed relative to /repo,
// or absolute when they start with /. A name ending in "|" is a named pipe.
func testEnv(files map[string]string) Env {
	fsys := fstest.MapFS{"repo": &fstest.MapFile{Mode: fs.ModeDir | 0o755}}
	for name, text := range files {
		f := &fstest.MapFile{Data: []byte(text)}
		if pipe, ok := strings.CutSuffix(name, "|"); ok {
			name, f.Mode = pipe, fs.ModeNamedPipe
		}
		if abs, ok := strings.CutPrefix(name, "/"); ok {
			fsys[abs] = f
			continue
		}
		fsys["repo/"+name] = f
	}
	rel := func(p string) string { return strings.TrimPrefix(filepath.ToSlash(p), "/") }
	return Env{
		WorkDir: "/repo",
		ReadFile: func(p string, limit int64) ([]byte, error) {
			if info, err := fs.Stat(fsys, rel(p)); err == nil && info.IsDir() {
				return nil, &NotRegularError{Kind: "a directory"}
			} else if err == nil && !info.Mode().IsRegular() {
				return nil, &NotRegularError{Kind: "a named pipe"}
			}
			data, err := fs.ReadFile(fsys, rel(p))
			return data[:min(int64(len(data)), limit)], err
		},
		Stat:   func(p string) (fs.FileInfo, error) { return fs.Stat(fsys, rel(p)) },
		Agents: testAgents,
	}
}

// with returns a Raw holding an inline prompt plus the given name, value pairs.
func with(kv ...string) Raw {
	raw := Raw{InputPrompt: "Fix the bug."}
	for i := 0; i+1 < len(kv); i += 2 {
		raw[kv[i]] = kv[i+1]
	}
	return raw
}

// problemsOf returns every *Problem inside err, in order.
func problemsOf(t *testing.T, err error) []*Problem {
	t.Helper()
	var out []*Problem
	for _, e := range Unjoin(err) {
		var p *Problem
		if !errors.As(e, &p) {
			t.Fatalf("error %q is not a *Problem", e)
		}
		out = append(out, p)
	}
	return out
}

// golden compares got with testdata/name, rewriting the file when UPDATE_GOLDEN=1.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), []byte(got))
}

// checkOneProblem fails the test unless err is exactly one problem, with input, whose message
// contains valid; it returns that problem.
func checkOneProblem(t *testing.T, err error, input, valid string) *Problem {
	t.Helper()
	if err == nil {
		t.Fatal("Load succeeded, want a problem")
	}
	problems := problemsOf(t, err)
	if got, want := len(problems), 1; got != want {
		t.Fatalf("got %d problems, want %d:\n%v", got, want, err)
	}
	p := problems[0]
	if got, want := p.Input, input; got != want {
		t.Errorf("Problem.Input = %q, want %q (%v)", got, want, p)
	}
	if !strings.Contains(p.Message, valid) {
		t.Errorf("Problem.Message = %q, want it to contain %q", p.Message, valid)
	}
	return p
}

// load is Load of raw in which the keys of map inputs may be given as inputs of their own
// ("docker.memory"), as the tables of these tests write them: grouped moves them into their map
// input first, as a workflow gives them.
func load(raw Raw, env Env) (Config, error) {
	return Load(grouped(raw), env)
}

// grouped returns raw with each "input.key" entry moved into input's value, a YAML map whose
// values are quoted as JSON strings (which YAML reads as written).
func grouped(raw Raw) Raw {
	out := Raw{}
	for name, v := range raw {
		group, key, isKey := strings.Cut(name, ".")
		if !isKey {
			out[name] += v
			continue
		}
		q, _ := json.Marshal(v)
		out[group] += key + ": " + string(q) + "\n"
	}
	return out
}
