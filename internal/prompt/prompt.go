package prompt

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// placeholderRE is a {{KEY}} placeholder; anything else in braces stays literal text.
var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// varPrefix starts the name of the environment variable that carries a placeholder's value to
// a command: {{ISSUE_TITLE}} is ${SANDCASTLE_ARG_ISSUE_TITLE}.
const varPrefix = "SANDCASTLE_ARG_"

// maxCommandValue is the most bytes a value used in a command may have. Linux takes at most
// 128 KiB for one environment variable or argument; the rest leaves room for its name.
const maxCommandValue = 120 << 10

// Template is a parsed prompt file: literal text and command blocks, each with its placeholders.
// It is immutable and safe for concurrent use.
type Template struct {
	segments []tsegment
}

// tsegment is literal text or, when command is set, a command block.
type tsegment struct {
	text    string // literal text, placeholders and all; a command block's body as written
	command bool
	line    int    // where a command block starts
	parts   []part // a command block's shell text and placeholders
}

// SyntaxError is one thing wrong in a template, where it is.
type SyntaxError struct {
	Line, Column int // 1-based; Column counts characters
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Parse cuts a prompt file into literal text and command blocks. A command block is !`body`:
// a body of one or more characters other than a backtick, closed on the line it opens on; "!`"
// followed at once by another backtick is text. Parse runs before any value is substituted,
// which is what keeps values from ever becoming commands.
//
// Its error joins a *SyntaxError for each problem: each !` that does not close on its line, and
// each command that uses a placeholder but leaves the plain subset of the shell in which a value
// can only be data (see shell.go), at the first place where it does.
func Parse(text string) (*Template, error) {
	t := &Template{}
	var errs []error
	fail := func(at int, msg string) {
		line := strings.Count(text[:at], "\n") + 1
		col := utf8.RuneCountInString(text[strings.LastIndexByte(text[:at], '\n')+1:at]) + 1
		errs = append(errs, &SyntaxError{Line: line, Column: col, Msg: msg})
	}
	last := 0
	for i := 0; ; {
		j := strings.Index(text[i:], "!`")
		if j < 0 {
			break
		}
		open := i + j
		body := open + 2
		if body < len(text) && text[body] == '`' {
			i = body // !`` is text
			continue
		}
		end := strings.IndexAny(text[body:], "`\n")
		if end < 0 || text[body+end] == '\n' {
			fail(open, "!` starts a command that is not closed on its line; end it with a backtick on the same line (a command cannot span lines)")
			if end < 0 {
				break
			}
			i = body + end
			continue
		}
		end += body
		if last < open {
			t.segments = append(t.segments, tsegment{text: text[last:open]})
		}
		line := strings.Count(text[:open], "\n") + 1
		parts, problem := scanCommand(text[body:end])
		if problem != nil {
			fail(body+problem.at, fmt.Sprintf("in !`%s`: %s", text[body:end], problem.msg))
		}
		t.segments = append(t.segments, tsegment{text: text[body:end], command: true, line: line, parts: parts})
		i, last = end+1, end+1
	}
	if last < len(text) || len(t.segments) == 0 {
		t.segments = append(t.segments, tsegment{text: text[last:]})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Keys returns the keys of the template's placeholders, in order of first appearance.
func (t *Template) Keys() []string {
	var keys []string
	for _, s := range t.segments {
		for _, m := range placeholderRE.FindAllStringSubmatch(s.text, -1) {
			if !slices.Contains(keys, m[1]) {
				keys = append(keys, m[1])
			}
		}
	}
	return keys
}

// MissingKeysError is a template whose placeholders have no value.
type MissingKeysError struct {
	Keys []string // in order of first appearance
}

func (e *MissingKeysError) Error() string {
	return "no value for " + braces(e.Keys)
}

// ValueError is a value that cannot reach a command intact.
type ValueError struct {
	Key  string
	Line int  // where the command that uses it starts
	NUL  bool // the value holds a NUL byte; else it is longer than maxCommandValue
	Size int
}

func (e *ValueError) Error() string {
	if e.NUL {
		return fmt.Sprintf("{{%s}} is used in the command on line %d, but its value holds a NUL byte, which no command can be given", e.Key, e.Line)
	}
	return fmt.Sprintf("{{%s}} is used in the command on line %d, but its value is %d bytes, more than the %d a command can be given; use it in the prompt text instead", e.Key, e.Line, e.Size, maxCommandValue)
}

// Render fills the placeholders with values. Literal text gets the values as they are; in
// commands each placeholder becomes a reference to a variable that the command's process gets
// (see Command). Its error is a *MissingKeysError for placeholders without a value, else a
// *ValueError for each value a command cannot be given.
func (t *Template) Render(values map[string]string) (*Prompt, error) {
	var missing []string
	for _, k := range t.Keys() {
		if _, ok := values[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingKeysError{Keys: missing}
	}
	p := &Prompt{}
	var errs []error
	for _, s := range t.segments {
		if !s.command {
			p.segments = append(p.segments, literal(s.text, values)...)
			continue
		}
		c := &Command{Source: s.text, Line: s.line, Env: map[string]string{}}
		var shell strings.Builder
		for _, part := range s.parts {
			if part.key == "" {
				shell.WriteString(part.text)
				continue
			}
			v := values[part.key]
			switch name := varPrefix + part.key; {
			case strings.IndexByte(v, 0) >= 0:
				errs = append(errs, &ValueError{Key: part.key, Line: s.line, NUL: true})
			case len(v) > maxCommandValue:
				errs = append(errs, &ValueError{Key: part.key, Line: s.line, Size: len(v)})
			default:
				shell.WriteString(part.quote.ref(name))
				c.Env[name] = v
			}
		}
		c.Shell = shell.String()
		p.segments = append(p.segments, segment{cmd: c})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// Fill substitutes every placeholder of text, commands included: for text that is shown, never
// run. Its error is a *MissingKeysError.
func Fill(text string, values map[string]string) (string, error) {
	var missing []string
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		if _, ok := values[m[1]]; !ok && !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	if len(missing) > 0 {
		return "", &MissingKeysError{Keys: missing}
	}
	return substitute(text, values), nil
}

// Prompt is a resolved prompt: literal text and the commands still to be run. It is immutable
// and safe for concurrent use.
type Prompt struct {
	segments []segment
}

// segment is literal text or, when cmd is set, a command. A segment with late set is the
// value of that late built-in (see With): "" until it is given one.
type segment struct {
	text string
	cmd  *Command
	late string
}

// literal is the template's literal text s with its placeholders filled from values, each late
// built-in's a segment of its own, for With to fill again.
func literal(s string, values map[string]string) []segment {
	var out []segment
	last := 0
	for _, m := range placeholderRE.FindAllStringSubmatchIndex(s, -1) {
		if key := s[m[2]:m[3]]; key == VerifyOutput {
			out = append(out, segment{text: substitute(s[last:m[0]], values)}, segment{text: values[key], late: key})
			last = m[1]
		}
	}
	return append(out, segment{text: substitute(s[last:], values)})
}

// Uses reports whether the prompt has a placeholder of the late built-in key, in its text or
// in a command.
func (p *Prompt) Uses(key string) bool {
	for _, s := range p.segments {
		if _, ok := s.cmd.env(varPrefix + key); s.late == key || ok {
			return true
		}
	}
	return false
}

// With is the prompt with the late built-in key (VerifyOutput) set to value: in the text as it
// is, in a command as its variable, like every value (a NUL byte, which no variable can hold,
// left out). p is unchanged.
func (p *Prompt) With(key, value string) *Prompt {
	out := &Prompt{segments: slices.Clone(p.segments)}
	for i, s := range out.segments {
		switch _, ok := s.cmd.env(varPrefix + key); {
		case s.late == key:
			out.segments[i].text = value
		case ok:
			c := *s.cmd
			c.Env = maps.Clone(c.Env)
			c.Env[varPrefix+key] = strings.ReplaceAll(value, "\x00", "")
			out.segments[i].cmd = &c
		}
	}
	return out
}

// env is the value of the variable name that c is given; false for no command.
func (c *Command) env(name string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.Env[name]
	return v, ok
}

// Command is a command block ready to run: Shell, run by sh -c with Env added to its
// environment, prints what replaces the block.
type Command struct {
	// Source is the body as written in the template, placeholders unfilled: what logs and
	// errors show, since it holds no text of strangers.
	Source string
	Line   int // where it starts in the template
	// Shell is the shell text: Source with each placeholder replaced by a quoted reference to
	// a variable of Env.
	Shell string
	// Env holds the placeholders' values by variable name (varPrefix + key).
	Env map[string]string
}

// Inline returns a prompt delivered byte for byte: no substitution, no expansion.
func Inline(text string) *Prompt {
	return &Prompt{segments: []segment{{text: text}}}
}

// Text is the prompt with its command blocks written back as in the template, !`Source`: what
// the output-tag check looks at before the commands run.
func (p *Prompt) Text() string {
	var b strings.Builder
	for _, s := range p.segments {
		if s.cmd != nil {
			b.WriteString("!`" + s.cmd.Source + "`")
		} else {
			b.WriteString(s.text)
		}
	}
	return b.String()
}

// LiteralLen is the size in bytes of the prompt outside its command blocks: the least the
// expanded prompt can be, known before any command runs.
func (p *Prompt) LiteralLen() int {
	n := 0
	for _, s := range p.segments {
		if s.cmd == nil {
			n += len(s.text)
		}
	}
	return n
}

// Commands returns the commands, in order.
func (p *Prompt) Commands() []Command {
	var cmds []Command
	for _, s := range p.segments {
		if s.cmd != nil {
			c := *s.cmd
			c.Env = maps.Clone(c.Env)
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// substitute replaces every placeholder in one pass; values are never rescanned and "$" in them
// is literal.
func substitute(s string, values map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		return values[placeholderRE.FindStringSubmatch(m)[1]]
	})
}

// braces lists keys as placeholders: "{{A}}", "{{A}} and {{B}}", "{{A}}, {{B}} and {{C}}".
func braces(keys []string) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = "{{" + k + "}}"
	}
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}

// The built-in keys that name the run's branches: the branch the agent works on and the one
// the run started from (merged into, for merge-to-head). Only the run sets them.
const (
	SourceBranch = "SOURCE_BRANCH"
	TargetBranch = "TARGET_BRANCH"
)

// VerifyOutput is the built-in key of what verify-command printed, its tail, when it failed
// after the iteration before; "" when it passed or has not run. It changes from one iteration
// to the next, so Render keeps its place for the loop to fill (With); in a command it is a
// variable, as every value is.
const VerifyOutput = "VERIFY_OUTPUT"

// BuiltInKeys are the keys only the run sets, which a prompt-args key may not take.
func BuiltInKeys() []string { return []string{SourceBranch, TargetBranch, VerifyOutput} }

// Values are what a template's placeholders are filled with: the run's branches and output of
// its verify-command (empty here), the event's
// built-ins (ISSUE_TITLE and the rest) and the prompt-args, which win over the event's, so that
// a workflow passing ISSUE_TITLE itself keeps working. The branch keys are the run's alone.
// This is the one place that knows which source wins.
func Values(source, target string, event, args map[string]string) map[string]string {
	values := make(map[string]string, len(event)+len(args)+2)
	maps.Copy(values, event)
	maps.Copy(values, args)
	values[SourceBranch], values[TargetBranch] = source, target
	values[VerifyOutput] = "" // With fills it as the loop goes
	return values
}
