package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// agentSpec is what a run needs to know of its agent. It is the one place that reads an
// agent's Spec: the rest of the program sees the CLI through run.Agent.
type agentSpec struct {
	cli         run.Agent
	name        string
	program     string   // argv[0] of every invocation
	credentials []string // one must be set for the CLI to log in inside a container
	envNames    []string // what the CLI reads from the environment
	maxPrompt   int      // bytes; 0: no limit
	sessions    *agent.Sessions
}

// The loop runs the agent's CLI.
var _ run.Agent = agent.Provider{}

func agentOf(p agent.Provider) agentSpec {
	return agentSpec{cli: p, name: p.Name, program: p.Program, credentials: p.Credentials, envNames: p.EnvNames, maxPrompt: p.MaxPromptBytes, sessions: p.Sessions}
}

// agentInfos are the agents the agent input accepts, as inputs checks them.
func agentInfos() []inputs.AgentInfo {
	var infos []inputs.AgentInfo
	for _, s := range agent.Specs() {
		infos = append(infos, inputs.AgentInfo{Name: s.Name, Efforts: s.Efforts, PermissionModes: s.PermissionModes, Resumable: s.Sessions != nil, Forkable: s.Sessions != nil && s.Sessions.Fork, ReportsCost: s.ReportsCost})
	}
	return infos
}

// check checks, once and before anything is created, that the agent takes the request the
// inputs make (inputs.Load has checked effort, permission mode and sessions against what the
// agent accepts, so what is left is the model), that it can log in inside a container, and
// that its program is on the PATH it runs with on the host.
func (a agentSpec) check(cfg inputs.Config, getenv func(string) string, path string) []error {
	var errs []error
	_, err := a.cli.Command(agent.Request{Model: cfg.Model, Effort: cfg.Effort, PermissionMode: cfg.PermissionMode,
		ResumeSession: cfg.ResumeSession, ForkSession: cfg.ForkSession})
	if err != nil {
		errs = append(errs, &inputs.Problem{Input: inputs.InputModel, Message: err.Error()})
	}
	switch {
	case cfg.Sandbox == inputs.SandboxDocker:
		errs = append(errs, engine.CheckCredentials(a.name, a.credentials, getenv))
	case err == nil:
		errs = append(errs, a.onPath(path))
	}
	return errs
}

// onPath checks that the agent's program is on path, so that a missing CLI fails before
// anything is created.
func (a agentSpec) onPath(path string) error {
	prog := a.program
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return nil
		}
	}
	return &inputs.Problem{Input: inputs.InputAgent, Message: fmt.Sprintf("%s runs %q, which is not on PATH (%s); install the %s CLI, or run in a sandbox image that has it", a.name, prog, path, a.name)}
}
