package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
)

// renderPrompt is the prompt of the run, rendered once, in preflight: an inline prompt as it
// is, a prompt file parsed and filled with prompt.Values of the run's branches, the event's
// built-ins and prompt-args. Only the literal text is known before the commands run, so the
// checks here are of that: a command that does not close, a missing {{KEY}}, a value no
// command can take, an output-tag the prompt never mentions, a prompt longer than an agent
// taking it in argv accepts (maxPrompt bytes; 0: no limit). Each problem is an *inputs.Problem
// naming the input to change. The warnings name the prompt-args keys the file does not use.
func renderPrompt(cfg inputs.Config, source, target string, eventArgs map[string]string, maxPrompt int) (*prompt.Prompt, []string, error) {
	pr, warnings, err := render(cfg, source, target, eventArgs)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	if o := cfg.Output; o != nil && !strings.Contains(pr.Text(), "<"+o.Tag+">") {
		errs = append(errs, &inputs.Problem{Input: inputs.InputOutputTag, Message: fmt.Sprintf("the prompt never mentions <%s>; tell the agent to answer inside <%s>...</%s>", o.Tag, o.Tag, o.Tag)})
	}
	if maxPrompt > 0 && pr.LiteralLen() > maxPrompt {
		errs = append(errs, &inputs.Problem{Input: promptInput(cfg), Message: (&agent.PromptTooLongError{Agent: cfg.Agent, Size: pr.LiteralLen(), Max: maxPrompt}).Error()})
	}
	return pr, warnings, errors.Join(errs...)
}

func render(cfg inputs.Config, source, target string, eventArgs map[string]string) (*prompt.Prompt, []string, error) {
	if cfg.PromptFile == "" && !cfg.BuiltInPrompt {
		return prompt.Inline(cfg.Prompt), nil, nil
	}
	tmpl, err := prompt.Parse(cfg.Prompt)
	if err != nil {
		return nil, nil, promptProblems(cfg, err, nil)
	}
	values := prompt.Values(source, target, eventArgs, cfg.PromptArgs)
	pr, err := tmpl.Render(values)
	if err != nil {
		return nil, nil, promptProblems(cfg, err, values)
	}
	var warnings []string
	used := tmpl.Keys()
	for _, k := range slices.Sorted(maps.Keys(cfg.PromptArgs)) {
		if !slices.Contains(used, k) {
			warnings = append(warnings, fmt.Sprintf("prompt-args: %q is not used by the prompt", k))
		}
	}
	return pr, warnings, nil
}

// promptProblems words the errors of Parse and Render as input problems, each naming the file
// and the line: the file's (the mode's, for its built-in prompt), or prompt-args' when the value
// came from there.
func promptProblems(cfg inputs.Config, err error, values map[string]string) error {
	file := cfg.PromptFile
	if cfg.BuiltInPrompt {
		file = "the built-in prompt of mode " + cfg.Mode
	}
	var mk *prompt.MissingKeysError
	if errors.As(err, &mk) {
		return &inputs.Problem{Input: promptInput(cfg), Message: fmt.Sprintf("%s: %v; set %s in prompt-args (values known: %s)",
			file, mk, plural(len(mk.Keys), "it", "them"), strings.Join(slices.Sorted(maps.Keys(values)), ", "))}
	}
	var errs []error
	for _, e := range inputs.Unjoin(err) {
		input := promptInput(cfg)
		var ve *prompt.ValueError
		if errors.As(e, &ve) {
			if _, given := cfg.PromptArgs[ve.Key]; given {
				input = inputs.InputPromptArgs
			}
		}
		errs = append(errs, &inputs.Problem{Input: input, Message: file + ": " + e.Error()})
	}
	return errors.Join(errs...)
}

// promptInput names the input the prompt came from.
func promptInput(cfg inputs.Config) string {
	switch {
	case cfg.BuiltInPrompt:
		return inputs.InputMode
	case cfg.PromptFile != "":
		return inputs.InputPromptFile
	}
	return inputs.InputPrompt
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
