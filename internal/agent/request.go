package agent

import (
	"fmt"
	"slices"
	"strings"
)

// PromptTooLongError means the prompt cannot be passed to a CLI that takes it as a
// command-line argument.
type PromptTooLongError struct {
	Agent string
	Size  int // bytes
	Max   int // bytes
}

func (e *PromptTooLongError) Error() string {
	return fmt.Sprintf("%s takes the prompt as a command-line argument, which holds at most %d bytes, and this prompt is %d bytes; shorten the prompt or pick an agent that reads it from stdin (%s)",
		e.Agent, e.Max, e.Size, strings.Join(agentsWhere(func(s Spec) bool { return s.MaxPromptBytes == 0 }), ", "))
}

// argMax is the most a single argv entry may hold on Linux (MAX_ARG_STRLEN, 32 pages), less a
// margin for the flags around it.
const argMax = 120 << 10

// checkRequest validates what every Command shares and returns the model to run: the model
// (defaulted), effort and permission mode against the spec's lists, the session to resume or
// fork, and the prompt's size for CLIs that take it in argv.
func checkRequest(spec Spec, r Request) (string, error) {
	name := spec.Name
	model := r.Model
	if model == "" {
		model = spec.DefaultModel
	}
	if err := argValue(name, "model", model); err != nil {
		return "", err
	}
	if err := choice(name, "effort", r.Effort, spec.Efforts); err != nil {
		return "", err
	}
	if err := choice(name, "permission-mode", r.PermissionMode, spec.PermissionModes); err != nil {
		return "", err
	}
	s := spec.Sessions
	switch {
	case r.ResumeSession != "" && s == nil:
		return "", fmt.Errorf("%s cannot resume sessions; resume-session works with %s", name, strings.Join(agentsWhere(func(s Spec) bool { return s.Sessions != nil }), ", "))
	case r.ForkSession && r.ResumeSession == "":
		return "", fmt.Errorf("%s: fork-session needs a session to resume (resume-session)", name)
	case r.ForkSession && !s.Fork:
		return "", fmt.Errorf("%s cannot fork a session without changing it; leave fork-session off to continue session %s in place", name, r.ResumeSession)
	}
	if r.ResumeSession != "" {
		if err := ValidSessionID(r.ResumeSession); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	if max := spec.MaxPromptBytes; max > 0 && len(r.Prompt) > max {
		return "", &PromptTooLongError{Agent: name, Size: len(r.Prompt), Max: max}
	}
	return model, nil
}

// argValue rejects a value that the CLI's argument parser would read as a flag, or that could
// not be a single argument at all.
func argValue(agent, input, v string) error {
	if strings.HasPrefix(v, "-") {
		return fmt.Errorf("%s: %s %q must not start with '-'", agent, input, v)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%s: %s %q must not contain control characters", agent, input, v)
	}
	return nil
}

// choice checks v against the values a CLI accepts; "" always passes (the CLI's default).
func choice(agent, input, v string, valid []string) error {
	switch {
	case v == "" || slices.Contains(valid, v):
		return nil
	case len(valid) == 0:
		return fmt.Errorf("%s has no %s setting; leave %s empty", agent, input, input)
	}
	return fmt.Errorf("%s: invalid %s %q: valid values are %s", agent, input, v, strings.Join(valid, ", "))
}
