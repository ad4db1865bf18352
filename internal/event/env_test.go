package event

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFromEnv: outside Actions, or without a payload, there is no event; in Actions the payload
// the runner names is loaded, and one that cannot be is an error.
func TestFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte(`{"issue": {"number": 3, "title": "T"}, "sender": {"login": "me"}, "action": "opened"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	if e, err := FromEnv(env(map[string]string{"GITHUB_EVENT_PATH": path, "GITHUB_EVENT_NAME": "issues"})); e != nil || err != nil {
		t.Errorf("outside Actions: %+v, %v; want none", e, err)
	}
	e, err := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": path, "GITHUB_EVENT_NAME": "issues"}))
	if err != nil || e.Number() != 3 {
		t.Errorf("in Actions: %+v, %v; want issue 3", e, err)
	}
	if _, err := FromEnv(env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": path + ".gone", "GITHUB_EVENT_NAME": "issues"})); err == nil {
		t.Error("a payload that is gone loads")
	}
}
