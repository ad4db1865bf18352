package inputs

import "testing"

// TestLoad_emptyPromptArgsWithInlinePrompt: prompt-args that hold no key (an empty map, only
// comments) are no arguments, which an inline prompt takes.
func TestLoad_emptyPromptArgsWithInlinePrompt(t *testing.T) {
	for _, args := range []string{"{}", "# none\n", "{}  # none", "--- {}\n"} {
		c, err := load(with(InputPromptArgs, args), testEnv(nil))
		if err != nil {
			t.Errorf("prompt-args %q with an inline prompt: %v", args, err)
			continue
		}
		if c.Prompt != "Fix the bug." || len(c.PromptArgs) != 0 {
			t.Errorf("prompt-args %q: Prompt %q, PromptArgs %q", args, c.Prompt, c.PromptArgs)
		}
	}
}
