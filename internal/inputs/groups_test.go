package inputs

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLoad_mapInputForms: a map input's keys given as a YAML block, as JSON, as KEY=VALUE lines
// and as repeated flags all make the same Config.
func TestLoad_mapInputForms(t *testing.T) {
	t.Parallel()
	files := map[string]string{"cache/x": "", "docker/Dockerfile": "FROM x\n"}
	want := func(t *testing.T, c Config) {
		t.Helper()
		d := c.Docker
		if d.Memory != 8<<30 || d.Network != "host" || len(d.Mounts) != 2 || d.Mounts[1].Sandbox != "/b" ||
			!reflect.DeepEqual(d.BuildArgs, map[string]string{"A": "1", "B": "two"}) || c.IdleTimeout != 1200*time.Second {
			t.Errorf("Docker = %+v, IdleTimeout = %v; want memory 8g, network host, two mounts, build-args A and B, idle 1200s", d, c.IdleTimeout)
		}
	}
	forms := map[string]Raw{
		"yaml":            with(InputDockerfile, "docker/Dockerfile", InputDocker, "memory: 8g\nnetwork: host\nmounts:\n  - cache:/a\n  - cache:/b\nbuild-args:\n  A: 1\n  B: two\n", InputTimeouts, "idle-seconds: 1200"),
		"json":            with(InputDockerfile, "docker/Dockerfile", InputDocker, `{"memory": "8g", "network": "host", "mounts": ["cache:/a", "cache:/b"], "build-args": {"A": "1", "B": "two"}}`, InputTimeouts, `{"idle-seconds": 1200}`),
		"block_list":      with(InputDockerfile, "docker/Dockerfile", InputDocker, "memory: 8g\nnetwork: host\nmounts: |\n  cache:/a\n  cache:/b\nbuild-args: \"A=1\\nB=two\"\n", InputTimeouts, "idle-seconds: 1200"),
		"key_value_lines": with(InputDockerfile, "docker/Dockerfile", InputDocker, "memory=8g\nnetwork = host\nmounts=cache:/a\nmounts=cache:/b\nbuild-args=A=1\nbuild-args=B=two\n", InputTimeouts, "idle-seconds=1200"),
	}
	flags, err := FromFlags([]string{"--prompt", "p", "--dockerfile", "docker/Dockerfile", "--docker", "memory=8g", "--docker", "network=host", "--docker", "mounts=cache:/a",
		"--docker", "mounts=cache:/b", "--docker", "build-args=A=1", "--docker", "build-args=B=two", "--timeouts", "idle-seconds=1200"})
	if err != nil {
		t.Fatalf("FromFlags: %v", err)
	}
	forms["flags"] = flags
	for name, raw := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(raw, testEnv(files))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want(t, c)
		})
	}
}

// TestLoad_mapInputProblems: a misspelt key is named with the key most likely meant, as a
// misspelt input is; a value of the wrong shape is named by its key, and never shown.
func TestLoad_mapInputProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raw   Raw
		input string
		valid string
	}{
		{"misspelt_key", with(InputDocker, "memry: 8g"), InputDocker, `has no key "memry" on line 1 (did you mean memory?); its keys are build-image, build-context`},
		{"underscore_key", with(InputTriage, "max_actions=3"), InputTriage, `has no key "max_actions" on line 1 (did you mean max-actions?)`},
		{"unknown_key_no_hint", with(InputHooks, "after-push: echo hi"), InputHooks, `has no key "after-push" on line 1; its keys are worktree-ready, host-sandbox-ready, sandbox-ready`},
		{"not_a_map", with(InputDocker, "- memory"), InputDocker, "is a YAML list, not a map"},
		{"list_for_a_single_value", with(InputDocker, "memory: [8g]"), InputDocker, "key memory on line 1 is a list, but it takes a single value"},
		{"map_for_a_list", with(InputDocker, "mounts: {a: b}"), InputDocker, "key mounts on line 1 is a map, but it takes a list"},
		{"nested_list_item", with(InputTriage, "allowed-labels:\n  - [bug]"), InputTriage, "an item of key allowed-labels on line 1 is not a single line"},
		{"no_value", with(InputTimeouts, "idle-seconds:"), InputTimeouts, "key idle-seconds on line 1 has no value"},
		{"single_key_twice", with(InputDocker, "memory=8g\nmemory=4g"), InputDocker, "key memory on line 2 is given twice"},
		{"line_without_equals", with(InputDocker, "memory=8g\nsecret-looking"), InputDocker, "line 2 is not KEY=VALUE (not shown"},
		{"key_value_checked_as_input", with(InputTimeouts, "hook-seconds: 0"), InputHookTimeoutSeconds, "0 is too small; use 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tt.raw, testEnv(nil))
			checkOneProblem(t, err, tt.input, tt.valid)
		})
	}
}

// TestLoad_movedInput: an input that became a key says where it went.
func TestLoad_movedInput(t *testing.T) {
	t.Parallel()
	_, err := Load(with("hook-sandbox-ready", "npm ci"), testEnv(nil))
	p := checkOneProblem(t, err, "hook-sandbox-ready", `it moved into input hooks as its key sandbox-ready: set hooks: "sandbox-ready: VALUE"`)
	if !strings.HasPrefix(p.Error(), `input "hook-sandbox-ready": there is no such input`) {
		t.Errorf("Error() = %q", p.Error())
	}
}

// TestLoad_triageKeyKeepsModesOthers: a triage map that sets one key leaves the mode's value of
// the others.
func TestLoad_triageKeyKeepsModesOthers(t *testing.T) {
	t.Parallel()
	c, err := Load(Raw{InputMode: ModeTriage, InputTriage: "max-actions: 3"}, testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := c.GitHub.Triage; got.MaxActions != 3 || len(got.AllowedLabels) != 9 || got.TriagedLabel != "sandcastle:triaged" {
		t.Errorf("Triage = %+v; want max-actions 3, the mode's nine labels and the default triaged label", got)
	}
}

// TestLoad_anyBot: * in allowed-bots lets any bot start runs.
func TestLoad_anyBot(t *testing.T) {
	t.Parallel()
	c, err := Load(with(InputAllowedBots, "renovate\n*"), testEnv(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !c.GitHub.AllowBots || !reflect.DeepEqual(c.GitHub.AllowedBots, []string{"renovate"}) {
		t.Errorf("AllowBots %v, AllowedBots %q; want true and renovate", c.GitHub.AllowBots, c.GitHub.AllowedBots)
	}
}
