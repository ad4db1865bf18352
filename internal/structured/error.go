package structured

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxFeedbackRaw bounds how much of the previous answer is quoted back to the agent.
const maxFeedbackRaw = 2000

// Error is structured output that could not be extracted: no block, invalid JSON, or a schema
// violation. It is an outcome the run can retry by resuming the agent's session with Feedback.
type Error struct {
	Tag     string
	Found   bool   // a complete block was present
	Raw     string // the block's content, untrimmed; "" when not found
	Problem string // one line: what went wrong
	Detail  string // the parser's or validator's account, one problem a line; may be ""
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Problem
	}
	return e.Problem + ": " + strings.ReplaceAll(e.Detail, "\n", "; ")
}

// Feedback is the prompt for a retry in the agent's resumed session. retriesLeft is how many
// retries remain after the one this prompt starts. The prompt contains "<tag>", so it passes
// the check that a prompt names the output tag.
func (e *Error) Feedback(retriesLeft int) string {
	var b strings.Builder
	b.WriteString("Your previous answer had no valid structured output.\n")
	fmt.Fprintf(&b, "Problem: %s.\n", e.Problem)
	if e.Detail != "" {
		fmt.Fprintf(&b, "Detail:\n%s\n", e.Detail)
	}
	raw := strings.TrimSpace(e.Raw)
	switch {
	case e.Found && raw == "":
		fmt.Fprintf(&b, "Your <%s> block was empty.\n", e.Tag)
	case e.Found:
		fmt.Fprintf(&b, "Your <%s> block contained:\n%s\n", e.Tag, truncate(raw, maxFeedbackRaw))
	default:
		fmt.Fprintf(&b, "(no <%s> block was emitted)\n", e.Tag)
	}
	fmt.Fprintf(&b, "Retries left after this one: %d.\n", max(retriesLeft, 0))
	fmt.Fprintf(&b, "Reply with only a corrected <%s>...</%s> block. Do not change files or run commands.\n", e.Tag, e.Tag)
	return b.String()
}

// truncate keeps the first n characters of s and says how many were dropped.
func truncate(s string, n int) string {
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s
	}
	return fmt.Sprintf("%s\n[... %d more characters]", string([]rune(s)[:n]), count-n)
}
