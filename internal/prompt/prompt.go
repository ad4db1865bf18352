package prompt

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var (
	// commandRE is a command block in the raw template: the body is one or more non-backtick
	// characters, newlines included.
	commandRE = regexp.MustCompile("!`([^`]+)`")
	// placeholderRE is a {{KEY}} placeholder; anything else in braces stays literal text.
	placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
)

// Prompt is a resolved prompt: literal text and the command blocks still to be expanded.
// It is immutable and safe for concurrent use.
type Prompt struct {
	segments []segment
}

// segment is literal text or, when command is set, the body of a command block.
type segment struct {
	text    string
	command bool
}

// Inline returns a prompt delivered byte for byte: no substitution, no expansion.
func Inline(text string) *Prompt {
	return &Prompt{segments: []segment{{text: text}}}
}

// Template resolves a prompt file. args are the caller's values and builtins the values the
// action provides (SOURCE_BRANCH, TARGET_BRANCH); args may not set a built-in. It returns one
// warning per arg the template never uses, in key order. Its error reports every problem at
// once: each built-in an arg tries to set, and all placeholders without a value.
func Template(text string, args, builtins map[string]string) (*Prompt, []string, error) {
	values := make(map[string]string, len(args)+len(builtins))
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if _, ok := builtins[k]; ok {
			errs = append(errs, fmt.Errorf("prompt-args: %q is a built-in and cannot be set", k))
		}
		values[k] = args[k]
	}
	for k, v := range builtins {
		values[k] = v
	}

	segs := split(text)
	used := map[string]bool{}
	var missing []string
	for _, s := range segs {
		for _, m := range placeholderRE.FindAllStringSubmatch(s.text, -1) {
			k := m[1]
			if _, ok := values[k]; !ok && !slices.Contains(missing, k) {
				missing = append(missing, k)
			}
			used[k] = true
		}
	}
	if len(missing) > 0 {
		errs = append(errs, missingError(missing))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	var warnings []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if !used[k] {
			warnings = append(warnings, fmt.Sprintf("prompt-args: %q is not used by the prompt", k))
		}
	}
	for i := range segs {
		segs[i].text = substitute(segs[i].text, values)
	}
	return &Prompt{segments: segs}, warnings, nil
}

// Text is the prompt after substitution with its command blocks written back as !`command`:
// what is logged, and what the output-tag check looks at.
func (p *Prompt) Text() string {
	var b strings.Builder
	for _, s := range p.segments {
		if s.command {
			b.WriteString("!`" + s.text + "`")
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
		if !s.command {
			n += len(s.text)
		}
	}
	return n
}

// Commands returns the bodies of the command blocks after substitution, in order.
func (p *Prompt) Commands() []string {
	var cmds []string
	for _, s := range p.segments {
		if s.command {
			cmds = append(cmds, s.text)
		}
	}
	return cmds
}

// split cuts a raw template into literal and command segments. It runs before substitution,
// which is what keeps values from ever becoming commands.
func split(text string) []segment {
	var segs []segment
	last := 0
	for _, m := range commandRE.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > last {
			segs = append(segs, segment{text: text[last:m[0]]})
		}
		segs = append(segs, segment{text: text[m[2]:m[3]], command: true})
		last = m[1]
	}
	if last < len(text) || len(segs) == 0 {
		segs = append(segs, segment{text: text[last:]})
	}
	return segs
}

// substitute replaces every placeholder in one pass; values are never rescanned and "$" in them
// is literal.
func substitute(s string, values map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		return values[placeholderRE.FindStringSubmatch(m)[1]]
	})
}

func missingError(keys []string) error {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = "{{" + k + "}}"
	}
	list, pronoun := names[0], "it"
	if n := len(names); n > 1 {
		list, pronoun = strings.Join(names[:n-1], ", ")+" and "+names[n-1], "them"
	}
	return fmt.Errorf("prompt-file uses %s but prompt-args has no value for %s", list, pronoun)
}
