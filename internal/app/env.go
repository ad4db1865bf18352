package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// hostBase are the host variables every agent process needs to work at all. Everything else
// enters the sandbox only when the user names it (env, env-file) or the agent reads it for its
// credentials.
var hostBase = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"}

// githubCredentials never enter the sandbox: the agent holds no push credentials.
var githubCredentials = []string{"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"}

// agentEnv is the environment of processes in the sandbox and the values to mask in logs.
type agentEnv struct {
	vars    map[string]string
	secrets []string
}

// resolveEnv composes the sandbox environment: the host base, the keys declared in the env
// file (the file's value, else the host's), the names listed in the env input, and the agent's
// own credential variables when set on the host. Every value that did not come from the host
// base is treated as a secret.
func resolveEnv(getenv func(string) string, names []string, file map[string]string, agentNames []string) (agentEnv, error) {
	e := agentEnv{vars: map[string]string{}}
	for _, k := range hostBase {
		if v := getenv(k); v != "" {
			e.vars[k] = v
		}
	}
	var bad []string
	add := func(k, v string) {
		if slices.Contains(githubCredentials, k) {
			bad = append(bad, k)
			return
		}
		if v == "" {
			return
		}
		e.vars[k] = v
		e.secrets = append(e.secrets, v)
	}
	for _, k := range slices.Sorted(maps.Keys(file)) {
		v := file[k]
		if v == "" {
			v = getenv(k)
		}
		add(k, v)
	}
	for _, k := range names {
		add(k, getenv(k))
	}
	for _, k := range agentNames {
		if v := getenv(k); v != "" && !secretName(k) && !slices.Contains(githubCredentials, k) {
			e.vars[k] = v // an endpoint or proxy setting, not a secret
			continue
		}
		add(k, getenv(k))
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		bad = slices.Compact(bad)
		return e, &inputs.Problem{Input: inputs.InputEnv, Message: fmt.Sprintf("%s never enter the sandbox: the agent holds no GitHub credentials; remove %s from env and env-file",
			strings.Join(bad, ", "), plural(len(bad), "it", "them"))}
	}
	return e, nil
}

// secretName reports whether an agent variable holds a credential, judging by its name.
func secretName(name string) bool {
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL", "HEADERS"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// environ renders vars as KEY=VALUE lines in a stable order.
func environ(vars map[string]string) []string {
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+vars[k])
	}
	return out
}
