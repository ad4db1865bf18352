package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Kind is what a structured output holds.
type Kind string

const (
	// Object is a JSON value, optionally validated by a schema.
	Object Kind = "object"
	// String is the tag's trimmed text, taken as is.
	String Kind = "string"
)

// Spec says what to extract.
type Spec struct {
	Tag    string  // the tag name, without angle brackets
	Kind   Kind    // Object or String
	Schema *Schema // for Object; nil accepts any JSON value
}

// Value is an extracted output.
type Value struct {
	JSON []byte // compact JSON; for String, the text as a JSON string
	Text string // for String, the text; for Object, the compact JSON
}

// fence matches a bare or json Markdown code fence around the whole (trimmed) content; the
// pattern is the reference implementation's, so agents prompted for it behave the same here.
var fence = regexp.MustCompile("^```(?:json)?\\s*\\n([\\s\\S]*?)\\n\\s*```\\s*$")

// Extract finds s.Tag's last complete block in text and turns it into a Value. A missing
// block, invalid JSON and schema violations are reported as *Error; other errors mean s itself
// is unusable.
func Extract(text string, s Spec) (Value, error) {
	if s.Tag == "" {
		return Value{}, errors.New("extract structured output: empty tag")
	}
	if s.Kind != Object && s.Kind != String {
		return Value{}, fmt.Errorf("extract structured output <%s>: unknown kind %q", s.Tag, s.Kind)
	}
	raw, ok := lastBlock(text, s.Tag)
	if !ok {
		return Value{}, &Error{Tag: s.Tag, Problem: fmt.Sprintf("tag <%s> not found in the agent's final message", s.Tag)}
	}
	if s.Kind == String {
		t := strings.TrimSpace(raw)
		return Value{JSON: jsonString(t), Text: t}, nil
	}
	return parseObject(raw, s)
}

// lastBlock returns the content of the last complete <tag>...</tag> pair. Each open tag is
// closed by the first close tag after it, and scanning resumes after that close, so nesting is
// not supported and an unclosed open tag after a complete pair is ignored.
func lastBlock(text, tag string) (string, bool) {
	open, end := "<"+tag+">", "</"+tag+">"
	var last string
	found := false
	for {
		i := strings.Index(text, open)
		if i < 0 {
			break
		}
		rest := text[i+len(open):]
		j := strings.Index(rest, end)
		if j < 0 {
			break
		}
		last, found = rest[:j], true
		text = rest[j+len(end):]
	}
	return last, found
}

func parseObject(raw string, s Spec) (Value, error) {
	body := strings.TrimSpace(raw)
	if m := fence.FindStringSubmatch(body); m != nil {
		body = strings.TrimSpace(m[1])
	}
	compact, err := compactJSON([]byte(body))
	if err != nil {
		return Value{}, &Error{Tag: s.Tag, Found: true, Raw: raw,
			Problem: fmt.Sprintf("tag <%s> contains invalid JSON", s.Tag), Detail: err.Error()}
	}
	if s.Schema != nil {
		if err := s.Schema.validate(compact); err != nil {
			return Value{}, &Error{Tag: s.Tag, Found: true, Raw: raw,
				Problem: fmt.Sprintf("tag <%s> failed schema validation", s.Tag), Detail: err.Error()}
		}
	}
	return Value{JSON: compact, Text: string(compact)}, nil
}

// compactJSON checks that b is exactly one strict JSON value and returns it compacted, keeping
// key order and number spelling. Errors say where, in lines and columns.
func compactJSON(b []byte) ([]byte, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8")
	}
	// Unmarshal, unlike Compact, reports where the syntax error is.
	var check json.RawMessage
	if err := json.Unmarshal(b, &check); err != nil {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok && se.Offset > 0 {
			// Offset counts the offending byte itself.
			line, col := position(b, se.Offset-1)
			return nil, fmt.Errorf("line %d, column %d: %s", line, col, syntaxMessage(se, b))
		}
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// syntaxMessage is the parser's message, except that encoding/json names a non-ASCII character
// by its first byte; name the whole character instead.
func syntaxMessage(se *json.SyntaxError, b []byte) string {
	i := se.Offset - 1
	if i < 0 || i >= int64(len(b)) || b[i] < utf8.RuneSelf {
		return se.Error()
	}
	r, _ := utf8.DecodeRune(b[i:])
	return strings.Replace(se.Error(), "'"+string(rune(b[i]))+"'", "'"+string(r)+"'", 1)
}

// position turns the 0-based byte offset of a character into its 1-based line and column
// (counted in characters).
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, col
}

// jsonString encodes s as a JSON string without HTML escaping, so "<" stays readable.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// decode parses JSON already known to be valid, keeping numbers exact for validation.
func decode(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
