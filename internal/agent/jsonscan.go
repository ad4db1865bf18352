package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// rawJSON is a JSON value kept as bytes that alias the line being parsed: unlike
// json.RawMessage it does not copy, which matters for tool inputs holding whole files. It is
// only valid while Parse runs; anything kept is converted to a string first.
type rawJSON []byte

// UnmarshalJSON keeps b without copying (encoding/json hands over a slice of its input).
func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// objectField returns the raw value of key in the JSON object obj, or false when obj is not
// an object or has no such key (the last one wins if repeated, as with encoding/json). obj
// must already have passed encoding/json, so the scan only locates values; on malformed
// input it returns false rather than fail. Keys are compared exactly as written.
func objectField(obj []byte, key string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	var found []byte
	ok := false
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return found, ok // '}' or malformed
		}
		end := skipString(obj, i)
		k := obj[i+1 : max(i+1, end-1)]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return found, ok
		}
		i = skipSpace(obj, i+1)
		start := i
		i = skipValue(obj, i)
		if string(k) == key {
			found, ok = obj[start:i], true
		}
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return found, ok
		}
		i++
	}
}

// jsonString decodes a raw JSON string value; ok is false for any other kind of value.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at b[i]. Long strings are the
// bulk of large lines, so it jumps from quote to quote; a quote is escaped when an odd number
// of backslashes precede it.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// stringField returns the string value of key in the JSON object obj, or "" when obj has no
// such string.
func stringField(obj []byte, key string) string {
	v, ok := objectField(obj, key)
	if !ok {
		return ""
	}
	s, _ := jsonString(v)
	return s
}

// lineType returns the top-level "type" string of a JSON Lines event, or "" when line is not an
// object with one. A scan, not a decode: it lets a parser skip the many lines it has no use for
// (tool output, lifecycle chatter) without decoding them, and unlike a search for a quoted token
// it cannot be fooled by a "type" nested in a value.
func lineType(line []byte) string { return stringField(line, "type") }

// decodeLine decodes one JSON line into v and reports whether v is worth reading: a line that is
// not JSON is not, while a field of an unexpected type only leaves that field unset (encoding/json
// goes on with the rest), so the line still counts.
func decodeLine(line []byte, v any) bool {
	err := json.Unmarshal(line, v)
	if err == nil {
		return true
	}
	_, ok := errors.AsType[*json.UnmarshalTypeError](err)
	return ok
}

// decodeObject decodes raw into v when raw is a JSON object, and reports whether it was one; a
// count of an unexpected type stays zero.
func decodeObject(raw []byte, v any) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	_ = json.Unmarshal(raw, v)
	return true
}
