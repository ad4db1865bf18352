package workspace

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// botName and botEmail are who the agent commits as in a repository without an identity.
const (
	botName  = "sandcastle-agent[bot]"
	botEmail = "sandcastle-agent[bot]@users.noreply.github.com"
)

// AgentEnv is the environment of the agent's processes: base, plus the git configuration of
// every command of the run (Options.GitConfig, as GIT_CONFIG_* variables numbered after any
// base holds), and a commit identity when the repository has none, so that the agent can commit
// without anyone's git config being written.
func (w *Workspace) AgentEnv(ctx context.Context, base map[string]string) (map[string]string, error) {
	list := make([]string, 0, len(base))
	for _, k := range slices.Sorted(maps.Keys(base)) {
		list = append(list, k+"="+base[k])
	}
	vars := make(map[string]string, len(base)+8)
	for _, kv := range git.ConfigEnv(list, w.config...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for _, id := range []struct{ key, env, fallback string }{
		{"user.name", "NAME", botName},
		{"user.email", "EMAIL", botEmail},
	} {
		if _, ok, err := w.wt.ConfigValue(ctx, id.key); err != nil {
			return nil, err
		} else if ok {
			continue
		}
		for _, who := range []string{"GIT_AUTHOR_", "GIT_COMMITTER_"} {
			if _, set := vars[who+id.env]; !set {
				vars[who+id.env] = id.fallback
			}
		}
	}
	return vars, nil
}
