package inputs

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ParseEnvFile reads an env file (.sandcastle/.env): KEY=VALUE per line. Blank lines and lines
// starting with # are skipped, and a leading "export " is allowed so the file can also be
// sourced by a shell. Unquoted values end at " #" (an inline comment) and are trimmed. A value in
// single quotes is literal; in double quotes \n, \r, \t, \\ and \" are unescaped (other
// backslashes are kept). Text after a closing quote may only be a comment. A later key replaces
// an earlier one; an empty value is kept as "". Every bad line is reported, naming its number
// and, when it can be told, its key: never its text, which may hold a secret.
func ParseEnvFile(data []byte) (map[string]string, error) {
	values := map[string]string{}
	var errs []error
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		key, value, err := parseEnvLine(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", i+1, err))
			continue
		}
		values[key] = value
	}
	return values, errors.Join(errs...)
}

func parseEnvLine(line string) (key, value string, err error) {
	key, raw, ok := strings.Cut(line, "=")
	key = strings.TrimSpace(key)
	if !ok || !identRe.MatchString(key) {
		return "", "", badEnvLine(line, ok)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" || (raw[0] != '"' && raw[0] != '\'') {
		if i := strings.Index(raw, " #"); i >= 0 {
			raw = raw[:i]
		}
		if i := strings.Index(raw, "\t#"); i >= 0 {
			raw = raw[:i]
		}
		return key, strings.TrimSpace(raw), nil
	}
	value, rest, err := unquote(raw)
	if err != nil {
		return "", "", fmt.Errorf("value of %s: %w", key, err)
	}
	if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
		return "", "", fmt.Errorf("value of %s has text after its closing quote (not shown, as it may be part of a secret); quote the whole value", key)
	}
	return key, value, nil
}

// yamlKeyRe is the start of a KEY: value line, the YAML habit in a file of KEY=VALUE lines.
var yamlKeyRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)[ \t]*:`)

// badEnvLine says why a line is not KEY=VALUE (hasEquals: it has an = but no name before it). It
// names the key of a KEY: value line, and never shows the rest: a line that is not what it
// should be may be a secret pasted alone, and what stands before an = may be one too (base64
// ends in =).
func badEnvLine(line string, hasEquals bool) error {
	switch m := yamlKeyRe.FindStringSubmatch(line); {
	case m != nil:
		return fmt.Errorf("%s is followed by a colon, not =; write %s=value (the value is not shown, as it may be a secret)", m[1], m[1])
	case hasEquals:
		return errors.New("the text before = is not a variable name (not shown, as it may be a value); use letters, digits and _, not starting with a digit")
	default:
		return errors.New("not KEY=VALUE (the line is not shown, as it may hold a secret)")
	}
}

// unquote reads the quoted string at the start of s and returns its value and what follows it.
func unquote(s string) (value, rest string, err error) {
	quote := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), s[i+1:], nil
		case c == '\\' && quote == '"' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '\\', '"':
				b.WriteByte(s[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("no closing %c; values span one line (write \\n for a newline inside double quotes)", quote)
}
