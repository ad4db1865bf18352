package workspace_test

import (
	"maps"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// TestAgentEnv: the agent's git trusts the repository through the environment, after any
// git configuration the agent was given itself, and commits as the bot only where the
// repository names nobody.
func TestAgentEnv(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	o := f.opts(inputs.StrategyHead)
	o.GitConfig = []string{"safe.directory=*"}
	w := f.prepare(o)
	defer f.finish(w)
	base := map[string]string{"PATH": "/bin", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.quotePath", "GIT_CONFIG_VALUE_0": "false", "GIT_AUTHOR_NAME": "Given"}
	got, err := w.AgentEnv(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"PATH": "/bin", "GIT_CONFIG_COUNT": "2",
		"GIT_CONFIG_KEY_0": "core.quotePath", "GIT_CONFIG_VALUE_0": "false",
		"GIT_CONFIG_KEY_1": "safe.directory", "GIT_CONFIG_VALUE_1": "*",
		"GIT_AUTHOR_NAME": "Given", "GIT_COMMITTER_NAME": "sandcastle-agent[bot]",
		"GIT_AUTHOR_EMAIL": "sandcastle-agent[bot]@users.noreply.github.com", "GIT_COMMITTER_EMAIL": "sandcastle-agent[bot]@users.noreply.github.com",
	}
	if !maps.Equal(got, want) {
		t.Errorf("AgentEnv =\n%v\nwant\n%v", got, want)
	}

	f.git(f.dir, "config", "user.name", "Owner")
	f.git(f.dir, "config", "user.email", "owner@example.com")
	got, err = w.AgentEnv(t.Context(), map[string]string{"PATH": "/bin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s = %q although the repository names its committer", k, v)
		}
	}
}
