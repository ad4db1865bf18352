package prompt

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// A placeholder in a command block never puts its value into the shell text. It becomes a
// reference to an environment variable of that one command's process, written for where the
// placeholder stands, so that the shell expands it into (part of) exactly one word and never
// parses it: results of parameter expansion are not read again as shell syntax.

// quoting is how a placeholder stands in the shell text, and so how its reference is written.
type quoting int

const (
	bare   quoting = iota // among words: "${V}", a quoted word of its own, or part of one
	double                // inside "...": ${V}, already one word
	single                // inside '...': '"${V}"', the quote closed, the reference, reopened
)

// ref is the shell text that stands for variable name where a placeholder stood.
func (q quoting) ref(name string) string {
	switch q {
	case double:
		return "${" + name + "}"
	case single:
		return `'"${` + name + `}"'`
	default:
		return `"${` + name + `}"`
	}
}

// part is a piece of a command block: shell text as written, or a placeholder.
type part struct {
	text  string
	key   string // a placeholder's key; "" for text
	quote quoting
}

// construct is a part of the shell language that the scanner is inside.
type construct struct {
	kind  constructKind
	open  string // how it opened, for messages: "$((", "${", ...
	close string // what ends it: ")", "))", "}", "]", "]]", "\"", "'"
	// For words: the current word as written so far ("" between words); whether it is, or the
	// next word will be, in command position (the program to run); the program of the current
	// command, once known; and the word before the current one.
	word    string
	command bool
	program string
	prev    string
}

type constructKind int

const (
	words     constructKind = iota // the top level, $(...) or (...): placeholders are bare
	dquoted                        // "...": placeholders are double
	squoted                        // '...': placeholders are single
	evaluated                      // $((...)), ((...)), $[...], [[...]], ${...}: the shell evaluates the words as an expression
	comment                        // from # to the end: nothing runs
)

var (
	// commandFollows are the words after which a command still follows.
	commandFollows = []string{"if", "then", "else", "elif", "while", "until", "do", "!", "{", "time"}
	// wrappers are programs whose first argument that is not an option is the program they run.
	wrappers = []string{"env", "exec", "command", "builtin", "nohup"}
	// interpreters are the shell's builtins that run their arguments as shell or evaluate them
	// (bash evaluates array subscripts in the names declare and friends are given, and in let).
	interpreters = []string{"eval", "trap", "alias", ".", "source", "let", "declare", "typeset", "local", "readonly", "export"}
	// shells run the argument after -c as a script.
	shells = []string{"sh", "bash", "dash", "ash", "ksh", "mksh", "zsh", "busybox"}
	// assignmentRE is the start of a word that assigns a variable rather than names a program.
	assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	// scriptFlagRE is a shell's option word that takes a script: -c, -ec, -lc, ...
	scriptFlagRE = regexp.MustCompile(`^-[A-Za-z]*c[A-Za-z]*$`)
)

// scanner follows the POSIX shell's quoting and nesting through one command block: one line (a
// command block cannot span lines) that holds no backtick (a backtick ends the block).
type scanner struct {
	body     string
	stack    []construct
	parts    []part
	problems []string
	last     int  // end of the text already cut into parts
	escaped  bool // the previous character was an unquoted backslash
	head     bool // the next character starts a word
	ansi     bool // $'...' seen
}

// scanCommand cuts the body of a command block into shell text and placeholders, telling for
// each placeholder how it stands.
//
// A placeholder is refused, with a message, where a reference cannot carry its value as data:
// where a command's name goes (its value would name the program to run); inside a construct a
// shell evaluates as an expression (bash evaluates array subscripts in the value of a variable
// used in arithmetic, running any $(...) in them); right after a backslash (which would escape
// the reference); in a command that uses $'...' quoting (which sh and bash end differently); or
// in a command whose quotes or brackets do not close.
func scanCommand(body string) ([]part, []string) {
	s := &scanner{body: body, stack: []construct{{kind: words, command: true}}, head: true}
	marks := placeholderRE.FindAllStringSubmatchIndex(body, -1)
	for i := 0; i < len(body); {
		if len(marks) > 0 && marks[0][0] == i {
			s.placeholder(i, marks[0][1], body[marks[0][2]:marks[0][3]])
			i = marks[0][1]
			marks = marks[1:]
			continue
		}
		i += s.char(i)
	}
	if s.last < len(body) {
		s.parts = append(s.parts, part{text: body[s.last:]})
	}
	keys := placeholderKeys(s.parts)
	if keys != "" && len(s.problems) == 0 {
		switch t := s.top(); {
		case s.ansi:
			s.problems = append(s.problems, fmt.Sprintf("the command uses $'...' quoting, which sh and bash end in different places, so there is no telling how to pass %s; use '...' or \"...\"", keys))
		case t.kind != comment && len(s.stack) > 1:
			s.problems = append(s.problems, fmt.Sprintf("%s is not closed in the command, so there is no telling how to pass %s; close it", t.open, keys))
		}
	}
	return s.parts, s.problems
}

func (s *scanner) top() *construct { return &s.stack[len(s.stack)-1] }

func (s *scanner) push(kind constructKind, open, close string) {
	s.stack = append(s.stack, construct{kind: kind, open: open, close: close, command: kind == words})
}

func (s *scanner) pop() { s.stack = s.stack[:len(s.stack)-1] }

// innermost returns the index of the innermost construct of kind; -1 when none encloses.
func (s *scanner) innermost(kind constructKind) int {
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].kind == kind {
			return i
		}
	}
	return -1
}

// placeholder records the placeholder body[at:end] of key and how it stands.
func (s *scanner) placeholder(at, end int, key string) {
	if s.last < at {
		s.parts = append(s.parts, part{text: s.body[s.last:at]})
	}
	p := part{key: key, quote: bare}
	w := s.innermost(words)
	switch t := s.top(); {
	case t.kind == comment:
	case s.escaped:
		s.problem(key, "follows a backslash, which would change how it is read; remove the backslash")
	case s.innermost(evaluated) >= 0:
		e := s.stack[s.innermost(evaluated)]
		s.problem(key, fmt.Sprintf("stands inside %s...%s, where a shell evaluates it as an expression and could run what it holds; use it as an argument of a command instead", e.open, e.close))
	case s.stack[w].command && !assignmentRE.MatchString(s.stack[w].word):
		s.problem(key, "stands where a command's name goes, so its value would name the program to run; use it as an argument of a command instead")
	case slices.Contains(interpreters, s.stack[w].program):
		s.problem(key, fmt.Sprintf("is an argument of %s, which runs or evaluates its arguments as shell; use it as an argument of another command", s.stack[w].program))
	case slices.Contains(shells, s.stack[w].program) && scriptFlagRE.MatchString(unquote(s.stack[w].prev)):
		sh := s.stack[w].program
		s.problem(key, fmt.Sprintf("is in the script of %s %s, which runs it as shell; pass it after the script instead, as in %s -c 'printf %%s \"$1\"' %s {{%s}}", sh, unquote(s.stack[w].prev), sh, sh, key))
	case t.kind == dquoted:
		p.quote = double
	case t.kind == squoted:
		p.quote = single
	}
	s.stack[w].word += s.body[at:end]
	s.parts = append(s.parts, p)
	s.last = end
	s.escaped, s.head = false, false
}

func (s *scanner) problem(key, msg string) {
	s.problems = append(s.problems, "{{"+key+"}} "+msg)
}

// char reads the character at i and returns how many bytes it took.
func (s *scanner) char(i int) int {
	c := s.body[i]
	rest := s.body[i:]
	n := 1
	wasEscaped := s.escaped
	w := s.innermost(words) // the words c belongs to, before c opens or closes anything
	t := *s.top()
	switch {
	case t.kind == comment:
	case t.kind == squoted:
		if c == '\'' {
			s.pop()
		}
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case t.kind == dquoted:
		switch c {
		case '"':
			s.pop()
		case '$':
			n = s.dollar(rest, false)
		}
	default: // words or evaluated
		switch {
		case c == '\'':
			s.push(squoted, "'", "'")
		case c == '"':
			s.push(dquoted, `"`, `"`)
		case c == '$':
			n = s.dollar(rest, true)
		case c == '#' && s.head && t.kind == words:
			s.push(comment, "#", "")
		case strings.HasPrefix(rest, "((") && s.head && t.kind == words:
			s.push(evaluated, "((", "))")
			n = 2
		case strings.HasPrefix(rest, "[[") && s.head && t.kind == words:
			s.push(evaluated, "[[", "]]")
			n = 2
		case c == '(':
			s.push(t.kind, "(", ")")
		case len(s.stack) > 1 && strings.HasPrefix(rest, t.close):
			n = len(t.close)
			s.pop()
			if w == len(s.stack) {
				w = -1 // c closed the words it belonged to
			}
		}
	}
	separates := strings.IndexByte(" \t;&|()<>", c) >= 0 && !wasEscaped && t.kind == words
	if w >= 0 && w < len(s.stack) {
		s.word(&s.stack[w], rest[:n], separates)
	}
	s.head = separates
	return n
}

// word follows the words of a command through text, which separates words when sep is set:
// ;, &, | and an unmatched ) (a case pattern's) start a new command.
func (s *scanner) word(w *construct, text string, sep bool) {
	if !sep {
		w.word += text
		return
	}
	if w.word != "" {
		w.endWord()
	}
	if strings.ContainsAny(text, ";&|()") {
		w.command, w.program, w.prev = true, "", ""
	}
}

// endWord ends the current word. In command position a word other than an assignment or one
// of commandFollows names the program, and ends command position unless the program is one of
// wrappers (whose options are skipped).
func (w *construct) endWord() {
	word := w.word
	w.word, w.prev = "", word
	switch {
	case !w.command || assignmentRE.MatchString(word) || slices.Contains(commandFollows, word):
	case slices.Contains(wrappers, w.program) && strings.HasPrefix(word, "-"):
	default:
		w.program = path.Base(unquote(word))
		w.command = slices.Contains(wrappers, w.program)
	}
}

// unquote drops the quotes and backslashes of a word as written: how a program name or an
// option reads once the shell has removed them.
func unquote(word string) string {
	return strings.NewReplacer(`"`, "", "'", "", `\`, "").Replace(word)
}

// expansions are what a "$" may open, longest first.
var expansions = []struct {
	kind        constructKind
	open, close string
}{
	{evaluated, "$((", "))"},
	{words, "$(", ")"},
	{evaluated, "${", "}"},
	{evaluated, "$[", "]"},
}

// dollar handles a "$" at the start of rest, in words (inWords) or inside double quotes, and
// returns how many bytes it takes.
func (s *scanner) dollar(rest string, inWords bool) int {
	for _, e := range expansions {
		if strings.HasPrefix(rest, e.open) {
			s.push(e.kind, e.open, e.close)
			return len(e.open)
		}
	}
	if inWords && strings.HasPrefix(rest, "$'") {
		s.ansi = true
		s.push(squoted, "$'", "'")
		return 2
	}
	return 1
}

// placeholderKeys names the placeholders of parts for messages: "{{A}}" or "{{A}} and {{B}}".
func placeholderKeys(parts []part) string {
	var keys []string
	for _, p := range parts {
		if p.key != "" && !slices.Contains(keys, p.key) {
			keys = append(keys, p.key)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return braces(keys)
}
