package agent

import (
	"strings"
	"unicode/utf8"
)

// maxArgs bounds Event.Args in runes: it is a display form for one log line, and tool inputs
// (a Write's file content, an MCP payload) can be arbitrarily large.
const maxArgs = 200

// oneLine turns s into a single bounded display line: control characters (newlines in
// heredocs, tabs, escape sequences) become spaces so nothing the agent wrote can start a new
// log line, and the result is clipped to maxArgs runes.
func oneLine(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, s)
	}
	return clip(s, maxArgs)
}

// clip cuts s to at most n runes, marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s // fewer bytes than n means fewer runes too
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// compactJSON renders a JSON value on one line without insignificant whitespace, keeping the
// source's key order, and stops once maxArgs runes are certain to be exceeded so a huge input
// costs no more than a small one. It never fails: it only drops whitespace outside strings.
func compactJSON(raw []byte) string {
	limit := maxArgs*utf8.UTFMax + 1
	out := make([]byte, 0, min(len(raw), limit))
	inString, escaped := false, false
	for _, c := range raw {
		if len(out) >= limit {
			break
		}
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		out = append(out, c)
	}
	// Raw JSON strings cannot hold control characters, but be safe for display anyway.
	return oneLine(string(out))
}

// toolArgs is the display form of a tool call's input: the main field of a well-known tool when
// it is a string, else the compact JSON of the whole input (MCP tools, todo lists, …). Tool
// names are matched without regard to case, since each CLI spells its built-ins its own way
// (claude's Bash, pi's and opencode's bash).
func toolArgs(tool string, input rawJSON) string {
	if len(input) == 0 || string(input) == "null" {
		return ""
	}
	// A scan rather than a decode: a write's input holds the whole file.
	for _, field := range toolFields(strings.ToLower(tool)) {
		if raw, ok := objectField(input, field); ok {
			if s, ok := jsonString(raw); ok {
				return oneLine(s)
			}
		}
	}
	return compactJSON(input)
}

// toolFields lists the input fields that say what a call of tool (lower-cased) does, in order
// of preference. The spellings differ between CLIs (file_path, filePath, path).
func toolFields(tool string) []string {
	switch tool {
	case "bash", "shell", "run_terminal_cmd":
		return []string{"command", "cmd"}
	case "read", "view", "edit", "multiedit", "write", "create", "delete":
		return []string{"file_path", "filePath", "path"}
	case "notebookedit":
		return []string{"notebook_path"}
	case "websearch", "web_search":
		return []string{"query"}
	case "webfetch", "web_fetch":
		return []string{"url"}
	case "agent", "task":
		return []string{"description"}
	case "grep", "glob", "find":
		return []string{"pattern", "globPattern"}
	case "ls":
		return []string{"path"}
	}
	return nil
}
