package models

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is the decoded body of one main request, as the CLI sent it: a Messages API request,
// or a Responses API request mapped onto the same shape (see Messages).
type Request struct {
	Model string `json:"model"`
	// System is the system prompt; for the Responses API, its instructions.
	System Content `json:"system"`
	// Messages is the conversation. A Responses API request's input items map onto it one
	// message per item: message items keep their role (user, assistant, developer) with
	// input_text and output_text parts as text blocks; function_call and custom_tool_call items
	// become assistant tool_use blocks (ID = call_id, Input = the arguments); their *_output
	// items become tool_result blocks of role "tool"; other items (reasoning, ...) keep their
	// role and leave a block with only their type.
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
	Stream   bool      `json:"stream"`
	// Body is the raw JSON, for assertions on fields not decoded here.
	Body json.RawMessage `json:"-"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Tool is one tool definition offered to the model.
type Tool struct {
	Name string `json:"name"` // empty for the Responses API's built-in tools (web_search, ...)
	Type string `json:"type,omitempty"`
}

// Block is one content block: text, tool_use, tool_result (or anything else, by Type).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`          // tool_use
	Name      string          `json:"name,omitempty"`        // tool_use
	Input     json.RawMessage `json:"input,omitempty"`       // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"` // tool_result
	Content   Content         `json:"content,omitempty"`     // tool_result
	IsError   bool            `json:"is_error,omitempty"`    // tool_result
}

// Content is a list of blocks. The API accepts a bare string wherever content goes; it decodes
// to one text block so tests need not care which form the CLI chose.
type Content []Block

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(data, &blocks); err != nil {
		return fmt.Errorf("decode content: %w", err)
	}
	*c = blocks
	return nil
}

// Text joins the text of the text blocks and of tool results, one per line.
func (c Content) Text() string {
	var parts []string
	for _, b := range c {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, b.Content.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// Transcript renders the conversation as "role: text" lines, tool calls as "role: [tool_use
// NAME INPUT]"; handy for substring assertions such as "the resumed session sent turn 1".
func (r Request) Transcript() string {
	var sb strings.Builder
	for _, m := range r.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				fmt.Fprintf(&sb, "%s: %s\n", m.Role, b.Text)
			case "tool_use":
				fmt.Fprintf(&sb, "%s: [tool_use %s %s]\n", m.Role, b.Name, b.Input)
			case "tool_result":
				fmt.Fprintf(&sb, "%s: [tool_result %s]\n", m.Role, b.Content.Text())
			}
		}
	}
	return sb.String()
}

// responsesRequest is the part of a Responses API request body that Request holds.
type responsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"` // a string, or a list of items
	Tools        []Tool          `json:"tools"`
	Stream       bool            `json:"stream"`
}

// responsesItem is one input item of a Responses API request.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`   // message: a string, or content parts
	CallID    string          `json:"call_id"`   // *_call and *_call_output
	Name      string          `json:"name"`      // function_call, custom_tool_call
	Arguments string          `json:"arguments"` // function_call: JSON text
	Input     string          `json:"input"`     // custom_tool_call: free text
	Output    json.RawMessage `json:"output"`    // *_call_output: a string, or content parts
}

// decodeResponsesRequest decodes a Responses API request body into a Request.
func decodeResponsesRequest(body []byte) (Request, error) {
	var rr responsesRequest
	if err := json.Unmarshal(body, &rr); err != nil {
		return Request{}, err
	}
	req := Request{Model: rr.Model, Tools: rr.Tools, Stream: rr.Stream}
	if rr.Instructions != "" {
		req.System = Content{{Type: "text", Text: rr.Instructions}}
	}
	var prompt string
	if json.Unmarshal(rr.Input, &prompt) == nil {
		req.Messages = []Message{{Role: "user", Content: Content{{Type: "text", Text: prompt}}}}
		return req, nil
	}
	var items []responsesItem
	if len(rr.Input) > 0 {
		if err := json.Unmarshal(rr.Input, &items); err != nil {
			return Request{}, fmt.Errorf("decode input: %w", err)
		}
	}
	for i, it := range items {
		m, err := it.message()
		if err != nil {
			return Request{}, fmt.Errorf("decode input item %d (%s): %w", i, it.Type, err)
		}
		req.Messages = append(req.Messages, m)
	}
	return req, nil
}

// message maps an input item onto a Message, as Request.Messages describes.
func (it responsesItem) message() (Message, error) {
	switch it.Type {
	case "message", "": // an item with a role and no type is a message too
		content, err := responsesContent(it.Content)
		return Message{Role: it.Role, Content: content}, err
	case "function_call":
		input := json.RawMessage(it.Arguments)
		if !json.Valid(input) {
			input = jsonString(it.Arguments)
		}
		return Message{Role: "assistant", Content: Content{{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: input}}}, nil
	case "custom_tool_call":
		return Message{Role: "assistant", Content: Content{{Type: "tool_use", ID: it.CallID, Name: it.Name, Input: jsonString(it.Input)}}}, nil
	case "function_call_output", "custom_tool_call_output":
		output, err := responsesContent(it.Output)
		return Message{Role: "tool", Content: Content{{Type: "tool_result", ToolUseID: it.CallID, Content: output}}}, err
	default:
		return Message{Role: it.Role, Content: Content{{Type: it.Type}}}, nil
	}
}

// responsesContent decodes a string or a list of content parts; input_text and output_text
// parts become text blocks, other parts stay as they decode.
func responsesContent(raw json.RawMessage) (Content, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var parts Content
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	for i, p := range parts {
		switch p.Type {
		case "input_text", "output_text":
			parts[i] = Block{Type: "text", Text: p.Text}
		}
	}
	return parts, nil
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // cannot fail for a string
	return b
}
