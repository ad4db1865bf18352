package testkit

import (
	"encoding/json"
	"fmt"
)

// Step decides the reply to one main request. Build steps with Text, Bash, Error, Hang and
// TextThenHang.
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

// Text replies with assistant text and stop_reason end_turn: the CLI ends the turn and prints its
// result line with s as the result.
func Text(s string) Step { return Step{kind: stepText, text: s} }

// Bash replies with one tool_use of the Bash tool and stop_reason tool_use: the CLI runs command
// in its working directory and calls back with the tool_result, which is the next main request.
func Bash(command string) Step { return Step{kind: stepBash, command: command} }

// Error replies with an HTTP error. body is the error message, wrapped in the API's error JSON
// with the type that belongs to status; a body that is already a JSON object is sent verbatim.
//
// With Env's CLAUDE_CODE_MAX_RETRIES=0 most statuses cost exactly one request, but two do not
// (claude 2.1.332): 400 makes the CLI retry five more times, dropping beta headers and features
// step by step (it guesses a gateway rejected them), and 404 makes it retry once without
// streaming. Script six Error(400, …) or two Error(404, …) steps, or prefer 401, 403 or 500.
func Error(status int, body string) Step { return Step{kind: stepError, status: status, body: body} }

// Hang accepts the request and never answers, until the request is cancelled (the CLI was killed)
// or the test ends. The CLI prints nothing more and waits: an idle agent.
func Hang() Step { return Step{kind: stepHang} }

// TextThenHang streams s as a complete text block and then keeps the response open without
// message_delta or message_stop. The CLI prints the assistant line carrying s (it emits a block as
// soon as the block stops) and then waits for the rest of the response, never printing a result
// line nor exiting: an agent that prints the completion signal and hangs.
func TextThenHang(s string) Step { return Step{kind: stepTextThenHang, text: s} }

// block is one content block of a scripted reply.
type block struct {
	kind  string // "text" or "tool_use"
	text  string
	id    string
	name  string
	input json.RawMessage
}

// reply is what a step answers, ready to be written as a stream or as one JSON message.
type reply struct {
	blocks     []block
	stopReason string
	hang       bool // after the blocks, hold the response open instead of finishing it
}

// reply builds the answer of a text or tool step; n numbers the step (from 0) for stable ids.
func (s Step) reply(n int) (reply, error) {
	switch s.kind {
	case stepText:
		return reply{blocks: []block{{kind: "text", text: s.text}}, stopReason: "end_turn"}, nil
	case stepTextThenHang:
		return reply{blocks: []block{{kind: "text", text: s.text}}, hang: true}, nil
	case stepBash:
		input, err := json.Marshal(bashInput{Command: s.command, Description: "Run scripted step " + fmt.Sprint(n)})
		if err != nil {
			return reply{}, fmt.Errorf("encode bash input: %w", err)
		}
		id := fmt.Sprintf("toolu_testkit_%02d", n)
		return reply{blocks: []block{{kind: "tool_use", id: id, name: "Bash", input: input}}, stopReason: "tool_use"}, nil
	default:
		return reply{}, fmt.Errorf("step %d: %v has no reply body", n, s.kind)
	}
}

type bashInput struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// errorType is the API's error type for an HTTP status.
func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

// errorBody is the API's error JSON for status and message, or message itself when it already
// is a JSON object.
func errorBody(status int, message string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(message), &obj) == nil {
		return []byte(message)
	}
	type apiError struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	b, _ := marshal(struct { // cannot fail: strings only
		Type  string   `json:"type"`
		Error apiError `json:"error"`
	}{"error", apiError{errorType(status), message}})
	return b
}
