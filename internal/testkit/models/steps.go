package models

import (
	"encoding/json"
	"fmt"
)

// Step decides the reply to one main request, in whichever API the stand-in speaks. Build steps
// with Text, Bash, Error, Hang and TextThenHang.
type Step struct {
	kind    stepKind
	text    string // stepText, stepTextThenHang: the assistant text
	command string // stepBash
	status  int    // stepError
	body    string // stepError
}

type stepKind int

const (
	stepText stepKind = iota + 1
	stepBash
	stepError
	stepHang
	stepTextThenHang
)

func (k stepKind) String() string {
	switch k {
	case stepText:
		return "text"
	case stepBash:
		return "bash"
	case stepError:
		return "error"
	case stepHang:
		return "hang"
	case stepTextThenHang:
		return "text_then_hang"
	default:
		return fmt.Sprintf("stepKind(%d)", int(k))
	}
}

// Text replies with assistant text that ends the turn: the CLI prints s as its final message
// (claude: result line; codex: agent_message item, then turn.completed). Anthropic sends a text
// block with stop_reason end_turn; OpenAI a completed assistant message item.
func Text(s string) Step { return Step{kind: stepText, text: s} }

// Bash replies with one call of the CLI's shell tool: the CLI runs command in its working
// directory and calls back with the result, which is the next main request. Anthropic sends a
// Bash tool_use (stop_reason tool_use); OpenAI a function_call of the shell tool the request
// offers (see NewOpenAI).
func Bash(command string) Step { return Step{kind: stepBash, command: command} }

// Error replies with an HTTP error. body is the error message, wrapped in the API's error JSON
// with the type that belongs to status; a body that is already a JSON object is sent verbatim.
//
// With Anthropic's Env (CLAUDE_CODE_MAX_RETRIES=0) most statuses cost exactly one request, but
// two do not (claude 2.1.332): 400 makes the CLI retry five more times, dropping beta headers and
// features step by step (it guesses a gateway rejected them), and 404 makes it retry once
// without streaming. Script six Error(400, …) or two Error(404, …) steps, or prefer 401, 403 or
// 500. With OpenAI's codex settings (request_max_retries=0) every status costs one request.
func Error(status int, body string) Step { return Step{kind: stepError, status: status, body: body} }

// Hang accepts the request and never answers, until the request is cancelled (the CLI was killed)
// or the test ends. The CLI prints nothing more and waits: an idle agent.
func Hang() Step { return Step{kind: stepHang} }

// TextThenHang streams s as a complete piece of assistant text and then keeps the response open
// without finishing it (Anthropic: no message_delta nor message_stop; OpenAI: the message item
// is done but response.completed never comes). The CLI prints the line carrying s and then waits
// for the rest of the response, printing no result and not exiting: an agent that prints the
// completion signal and hangs.
func TextThenHang(s string) Step { return Step{kind: stepTextThenHang, text: s} }

// MarshalJSON writes the step as the fake claude's script holds it (package fakeclaude), the
// one reader of steps outside this package: {"kind": "bash", "command": ...}.
func (s Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind    string `json:"kind"`
		Text    string `json:"text,omitempty"`
		Command string `json:"command,omitempty"`
		Status  int    `json:"status,omitempty"`
		Body    string `json:"body,omitempty"`
	}{s.kind.String(), s.text, s.command, s.status, s.body})
}
