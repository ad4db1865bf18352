package agent

import (
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %q, not sorted", names)
	}
	if !slices.Contains(names, "claude-code") {
		t.Errorf("Names() = %q, missing claude-code", names)
	}
	if got := len(slices.Compact(slices.Clone(names))); got != len(names) {
		t.Errorf("Names() = %q has duplicates", names)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q) error = %v", name, err)
		}
		if got := p.Name; got != name {
			t.Errorf("Lookup(%q).Name = %q", name, got)
		}
		if p.DefaultModel == "" {
			t.Errorf("Lookup(%q).DefaultModel is empty", name)
		}
		cmd, err := p.Command(Request{Prompt: "hi"})
		if err != nil {
			t.Fatalf("Lookup(%q).Command(defaults) error = %v", name, err)
		}
		if len(cmd.Argv) == 0 || cmd.Argv[0] != p.Program || p.Program == "" {
			t.Errorf("Lookup(%q).Command(defaults).Argv = %q, want it to run Program %q", name, cmd.Argv, p.Program)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"gemini", "Claude-Code", ""} {
		p, err := Lookup(name)
		if err == nil {
			t.Fatalf("Lookup(%q) = %v, want an error", name, p)
		}
		msg := err.Error()
		if !strings.Contains(msg, `"`+name+`"`) || !strings.Contains(msg, strings.Join(Names(), ", ")) {
			t.Errorf("Lookup(%q) error = %q, want it to name the input and list %q", name, msg, Names())
		}
	}
}

func TestSpecs(t *testing.T) {
	specs := Specs()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		if s.Program == "" || s.DefaultModel == "" {
			t.Errorf("Specs(): %s has Program %q and DefaultModel %q, want both set", s.Name, s.Program, s.DefaultModel)
		}
		p, err := Lookup(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Program != s.Program || !slices.Equal(p.EnvNames, s.EnvNames) || (p.Sessions == nil) != (s.Sessions == nil) {
			t.Errorf("Specs() and Lookup(%q) disagree: %+v, %+v", s.Name, s, p.Spec)
		}
	}
	if !slices.Equal(names, Names()) {
		t.Errorf("Specs() names = %q, want Names() = %q", names, Names())
	}
}

// TestSpecFacts pins what each agent's Spec says, then checks what every Spec promises.
func TestSpecFacts(t *testing.T) {
	const id = "019e9a41-7c2b-7d30-a1f4-5b6c7d8e9f01"
	tests := []struct {
		p              Provider
		name, program  string
		model          string
		maxPromptBytes int      // 0: the prompt goes on stdin
		credentials    []string // exactly these, unless moreCredentials
		// moreCredentials: the CLI takes others too (a key per model provider).
		moreCredentials bool
		envNames        []string // among others
		// The sessions: none when sessionRoot is ""; else where id's file is (Root, Pattern(id)),
		// the directory of /srv/ci/my.repo/my_repo's sessions ("" when kept by date, not by
		// directory), and whether they fork.
		sessionRoot, sessionFile, sessionDir string
		fork                                 bool
	}{{
		p: claudeCode(), name: "claude-code", program: "claude", model: "claude-opus-4-8",
		credentials: []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"},
		envNames:    []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"},
		sessionRoot: ".claude/projects", sessionFile: id + ".jsonl", sessionDir: "-srv-ci-my-repo-my-repo", fork: true,
	}, {
		// codex exec logs in with no other variable.
		p: codex(), name: "codex", program: "codex", model: "gpt-5.5",
		credentials: []string{"CODEX_API_KEY"},
		envNames:    []string{"OPENAI_API_KEY", "CODEX_API_KEY", "HTTPS_PROXY"},
		sessionRoot: ".codex/sessions", sessionFile: "rollout-*-" + id + ".jsonl", fork: true,
	}, {
		// Sessions are directories indexed in SQLite.
		p: copilot(), name: "copilot", program: "copilot", model: "claude-sonnet-4.5",
		credentials: []string{"COPILOT_GITHUB_TOKEN", "COPILOT_PROVIDER_BASE_URL"},
		envNames:    []string{"COPILOT_PROVIDER_API_KEY", "HTTPS_PROXY"},
	}, {
		// Chats live in SQLite stores; the prompt is an argument.
		p: cursor(), name: "cursor", program: "agent", model: "composer-2", maxPromptBytes: argMax,
		credentials: []string{"CURSOR_API_KEY"},
		envNames:    []string{"CURSOR_API_KEY"},
	}, {
		// The default model is free and needs no key; sessions live in SQLite.
		p: openCode(), name: "opencode", program: "opencode", model: "opencode/big-pickle",
		envNames: []string{"OPENCODE_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENCODE_CONFIG_CONTENT", "HTTPS_PROXY"},
	}, {
		p: pi(), name: "pi", program: "pi", model: "claude-sonnet-4-6",
		credentials: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY"}, moreCredentials: true,
		envNames:    []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "HTTPS_PROXY"},
		sessionRoot: ".pi/agent/sessions", sessionFile: "*_" + id + ".jsonl", sessionDir: "--srv-ci-my.repo-my_repo--", fork: true,
	}}
	if len(tests) != len(Names()) {
		t.Errorf("%d agents pinned, want every one of %q", len(tests), Names())
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if p.Name != tt.name || p.Program != tt.program || p.DefaultModel != tt.model || p.MaxPromptBytes != tt.maxPromptBytes {
				t.Errorf("Name, Program, DefaultModel, MaxPromptBytes = %q, %q, %q, %d; want %q, %q, %q, %d",
					p.Name, p.Program, p.DefaultModel, p.MaxPromptBytes, tt.name, tt.program, tt.model, tt.maxPromptBytes)
			}
			creds := p.Credentials
			if tt.moreCredentials && len(creds) > len(tt.credentials) {
				creds = creds[:len(tt.credentials)]
			}
			if !slices.Equal(creds, tt.credentials) {
				t.Errorf("Credentials = %q, want %q", p.Credentials, tt.credentials)
			}
			for _, name := range tt.envNames {
				if !slices.Contains(p.EnvNames, name) {
					t.Errorf("EnvNames = %q, missing %s", p.EnvNames, name)
				}
			}
			checkSessions(t, p.Sessions, id, tt.sessionRoot, tt.sessionFile, tt.sessionDir, tt.fork)
			checkProviderLists(t, p)
		})
	}
}

// checkSessions compares a Spec's Sessions with the wanted root (none when ""), the file
// pattern of id, the directory of /srv/ci/my.repo/my_repo ("" for no Dir) and Fork.
func checkSessions(t *testing.T, s *Sessions, id, root, file, dir string, fork bool) {
	t.Helper()
	if s == nil || root == "" {
		if s != nil || root != "" {
			t.Errorf("Sessions = %+v, want root %q", s, root)
		}
		return
	}
	var gotDir string
	if s.Dir != nil {
		gotDir = s.Dir("/srv/ci/my.repo/my_repo")
	}
	if s.Root != root || s.Pattern(id) != file || gotDir != dir || s.Fork != fork {
		t.Errorf("Sessions = root %q, file %q, dir %q, fork %v; want %q, %q, %q, %v", s.Root, s.Pattern(id), gotDir, s.Fork, root, file, dir, fork)
	}
}
