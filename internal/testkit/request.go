package testkit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is the decoded body of one main Messages API request, as the CLI sent it.
type Request struct {
	Model    string    `json:"model"`
	System   Content   `json:"system"`
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
	Name string `json:"name"`
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
