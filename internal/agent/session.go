package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Sessions says where a CLI keeps its session files under its HOME, so that a session can be
// carried out of one sandbox and into another (or to the host, where the CLI finds it too).
type Sessions struct {
	// Root is the directory, relative to HOME and with '/' separators, that holds the sessions.
	Root string
	// Pattern returns the name pattern (path.Match and find -name syntax) of session id's file.
	Pattern func(id string) string
	// Dir, when set, returns the directory under Root where the CLI looks for the sessions of a
	// run whose working directory is cwd; a carried file is written there. When nil, a carried
	// file keeps its path relative to Root.
	Dir func(cwd string) string
	// Fork reports whether Request.ForkSession is supported: the resumed conversation continues
	// under a new session id and the original file is left as it was.
	Fork bool
}

// ValidSessionID checks that id can name a session file and be passed as one argument: the
// ids of every supported CLI are UUIDs or similar, so letters, digits, '-', '_' and '.' suffice.
func ValidSessionID(id string) error {
	if id == "" || len(id) > 128 || strings.Trim(id, ".") == "" ||
		strings.ContainsFunc(id, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
		}) || strings.HasPrefix(id, "-") {
		return fmt.Errorf("session id %q is not valid: use the id the agent printed (letters, digits, '-', '_' and '.')", id)
	}
	return nil
}

// RewriteCwd returns data, a session file of JSON lines, with every "cwd" field (at any depth)
// whose value is the string from set to to. Nothing else changes: the replacement is made in
// place in the bytes, so key order, spacing, escapes and lines that are not JSON (a torn last
// line) stay exactly as they were. data is returned unchanged when from == to or nothing matches.
func RewriteCwd(data []byte, from, to string) []byte {
	if from == to || !bytes.Contains(data, []byte(`"cwd"`)) {
		return data
	}
	repl := jsonText(to)
	var out []byte
	last := 0
	for _, span := range cwdValues(data, from) {
		out = append(out, data[last:span[0]]...)
		out = append(out, repl...)
		last = span[1]
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// RecordedCwd returns the first working directory recorded in a session file ("" when none is):
// the directory the session was made in, which RewriteCwd replaces when the session moves.
func RecordedCwd(data []byte) string {
	for start := 0; start < len(data); {
		n := bytes.IndexByte(data[start:], '\n')
		if n < 0 {
			n = len(data) - start
		}
		if cwd, ok := firstCwd(data[start : start+n]); ok {
			return cwd
		}
		start += n + 1
	}
	return ""
}

// cwdValues returns the byte ranges of the string values of "cwd" keys that decode to from.
// It walks the JSON tokens line by line (a torn line cannot run into the next); strings are
// skipped whole, so a "cwd" inside a value (a tool's output quoting JSON, say) is never taken for
// a key.
func cwdValues(data []byte, from string) [][2]int {
	var spans [][2]int
	for start := 0; start < len(data); {
		n := bytes.IndexByte(data[start:], '\n')
		if n < 0 {
			n = len(data) - start
		}
		line := data[start : start+n]
		for _, sp := range lineCwdValues(line, from) {
			spans = append(spans, [2]int{start + sp[0], start + sp[1]})
		}
		start += n + 1
	}
	return spans
}

func lineCwdValues(line []byte, from string) [][2]int {
	var spans [][2]int
	eachCwd(line, func(v string, start, end int) bool {
		if v == from {
			spans = append(spans, [2]int{start, end})
		}
		return true
	})
	return spans
}

func firstCwd(line []byte) (cwd string, ok bool) {
	eachCwd(line, func(v string, _, _ int) bool {
		cwd, ok = v, true
		return false
	})
	return cwd, ok
}

// eachCwd calls f with the value and byte range of every "cwd" key's string value in line, in
// order, until f returns false.
func eachCwd(line []byte, f func(v string, start, end int) bool) {
	for i := 0; i < len(line); {
		if line[i] != '"' {
			i++
			continue
		}
		end := skipString(line, i)
		if string(line[i:end]) == `"cwd"` {
			j := skipSpace(line, end)
			if j < len(line) && line[j] == ':' {
				if j = skipSpace(line, j+1); j < len(line) && line[j] == '"' {
					vend := skipString(line, j)
					v := line[j:vend]
					if s, ok := jsonString(v); ok && json.Valid(v) { // Valid: not torn
						if !f(s, j, vend) {
							return
						}
					}
					end = vend
				}
			}
		}
		i = end
	}
}

// jsonText encodes s as a JSON string without HTML escaping, as the CLIs write their files.
func jsonText(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
