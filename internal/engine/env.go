package engine

import (
	"errors"
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

// agentVars are the environment of the agent's processes, and the values of it to mask in logs.
type agentVars struct {
	Vars    map[string]string
	Secrets []string
}

// HostBase is the part of the host's environment that git on the host and every agent process
// get: getenv's values of the variables every process needs, KEY=VALUE.
func HostBase(getenv func(string) string) []string {
	var env []string
	for _, k := range hostBase {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// agentEnv composes the agent's environment from the host's, getenv: the host base, the keys
// declared in the env file (the file's value, else the host's), the names listed in the env
// input, and the agent's own variables (agentNames) when set on the host. Every value that did
// not come from the host base is a secret, except an agent variable whose name says it holds
// none (an endpoint, a proxy). A GitHub credential named in env or env-file, or any value equal
// to token, is an *inputs.Problem: the agent holds no GitHub credentials.
func agentEnv(getenv func(string) string, cfg inputs.Config, agentNames []string, token string) (agentVars, error) {
	e := agentVars{Vars: map[string]string{}}
	for _, kv := range HostBase(getenv) {
		k, v, _ := strings.Cut(kv, "=")
		e.Vars[k] = v
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
		e.Vars[k] = v
		e.Secrets = append(e.Secrets, v)
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.EnvFileValues)) {
		v := cfg.EnvFileValues[k]
		if v == "" {
			v = getenv(k)
		}
		add(k, v)
	}
	for _, k := range cfg.EnvNames {
		add(k, getenv(k))
	}
	for _, k := range agentNames {
		if v := getenv(k); v != "" && !secretName(k) && !slices.Contains(githubCredentials, k) {
			e.Vars[k] = v // an endpoint or proxy setting, not a secret
			continue
		}
		add(k, getenv(k))
	}
	var errs []error
	if len(bad) > 0 {
		slices.Sort(bad)
		bad = slices.Compact(bad)
		errs = append(errs, &inputs.Problem{Input: inputs.InputEnv, Message: fmt.Sprintf("%s never enter the sandbox: the agent holds no GitHub credentials; remove %s from env and env-file",
			strings.Join(bad, ", "), plural(len(bad), "it", "them"))})
	}
	for _, k := range slices.Sorted(maps.Keys(e.Vars)) {
		if token != "" && e.Vars[k] == token {
			errs = append(errs, &inputs.Problem{Input: inputs.InputEnv, Message: k + " carries the GitHub token (github-token), which never enters the sandbox; remove it from env and env-file"})
		}
	}
	return e, errors.Join(errs...)
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
