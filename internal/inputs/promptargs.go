package inputs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"go.yaml.in/yaml/v3"
)

// keyValueLineRe matches a line that starts like KEY=VALUE rather than like YAML or JSON: no
// space, colon, quote or bracket before the first "=".
var keyValueLineRe = regexp.MustCompile(`^[^\s=:{}\[\]"'#]+\s*=`)

// parsePromptArgs reads prompt-args, whose built-in keys are the run's to set.
func parsePromptArgs(text string) (map[string]string, []string) {
	return parseMap(text, prompt.BuiltInKeys())
}

// parseMap reads a map input: KEY=VALUE lines when the first line looks like one, else a YAML
// map (JSON being YAML). Values become strings: scalars as written, lists and maps as JSON. Keys
// are identifiers and none of reserved. It returns every problem found, as messages.
func parseMap(text string, reserved []string) (map[string]string, []string) {
	b := &argsBuilder{reserved: reserved}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if keyValueLineRe.MatchString(line) {
			return b.keyValueLines(text)
		}
		break
	}
	return b.yaml(text)
}

// argsBuilder collects keys, rejecting bad, reserved and repeated ones.
type argsBuilder struct {
	reserved []string
	args     map[string]string
	problems []string
}

func (b *argsBuilder) problemf(format string, a ...any) {
	b.problems = append(b.problems, fmt.Sprintf(format, a...))
}

// add records key=value; where locates the key in messages ("" or " on line 3").
func (b *argsBuilder) add(key, value, where string) {
	switch _, dup := b.args[key]; {
	case !identRe.MatchString(key):
		b.problemf("key %q%s is not a valid name; use letters, digits and _, not starting with a digit", key, where)
	case slices.Contains(b.reserved, key):
		b.problemf("key %s%s is built in and set by the run; remove it (built-ins: %s)", key, where, strings.Join(b.reserved, ", "))
	case dup:
		b.problemf("key %s%s is given twice; give it once", key, where)
	default:
		if b.args == nil {
			b.args = map[string]string{}
		}
		b.args[key] = value
	}
}

func (b *argsBuilder) keyValueLines(text string) (map[string]string, []string) {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Build arguments may be secrets: a bad line is named by its number, never shown, and
		// neither is what stands before its = unless it is a name (it may be a value).
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		switch {
		case !ok:
			b.problemf("line %d is not KEY=VALUE (not shown, as it may hold a secret); give one KEY=VALUE per line, or use YAML or JSON", i+1)
		case !identRe.MatchString(key):
			b.problemf("the key on line %d is not a valid name (not shown, as it may be a value); use letters, digits and _, not starting with a digit", i+1)
		default:
			b.add(key, strings.TrimSpace(value), fmt.Sprintf(" on line %d", i+1))
		}
	}
	return b.args, b.problems
}

func (b *argsBuilder) yaml(text string) (map[string]string, []string) {
	yamlPairs(text, "KEY: value pairs", b.problemf, func(key string, v *yaml.Node, where string) {
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			b.problemf("key %s%s has no value; give \"\" for an empty string", key, where)
		case v.Kind == yaml.ScalarNode:
			// Value is the text as written, so 007 and 1.50 keep their form.
			b.add(key, v.Value, where)
		default:
			s, err := nodeJSON(v)
			if err != nil {
				b.problemf("value of key %s%s cannot be written as JSON: %s; give a string", key, where, yamlProblem(err))
				return
			}
			b.add(key, s, where)
		}
	})
	return b.args, b.problems
}

// yamlPairs reads text as a YAML (or JSON) map and calls each with every key, its value (an
// alias resolved) and where it stands; what is no map, or a key that is no name, is a problem
// (pairs says what a map holds, for the message).
func yamlPairs(text, pairs string, problemf func(format string, a ...any), each func(key string, v *yaml.Node, where string)) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		problemf("is not a YAML or JSON map, nor KEY=VALUE lines: %s", yamlProblem(err))
		return
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return // only comments
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		problemf("is a YAML %s, not a map; give %s, a JSON object or KEY=VALUE lines", nodeKind(root), pairs)
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		where := fmt.Sprintf(" on line %d", k.Line)
		if k.Kind != yaml.ScalarNode {
			problemf("the key%s is a %s; keys are names", where, nodeKind(k))
			continue
		}
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		each(k.Value, v, where)
	}
}

// yamlProblem is what a YAML error says, unless it is one of the few that quote the text (an
// alias's anchor name, a value that did not decode, a map key), which may be a secret: then only
// where it is, when the error says. The parser's own messages are fixed phrases.
func yamlProblem(err error) string {
	msg := err.Error()
	if !strings.Contains(msg, "anchor '") && !strings.Contains(msg, "`") && !strings.Contains(msg, "invalid map key") {
		return msg
	}
	where := "the YAML is wrong"
	if m := yamlLineRe.FindString(msg); m != "" {
		where += " on " + m
	}
	return where + " (the error quotes the text, which is not shown, as it may hold a secret)"
}

var yamlLineRe = regexp.MustCompile(`line [0-9]+`)

// nodeJSON renders a YAML list or map as compact JSON, so a template gets text a model reads well.
func nodeJSON(n *yaml.Node) (string, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return "", err
	}
	data, err := json.Marshal(v)
	return string(data), err
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "map"
	case yaml.ScalarNode:
		return "single value"
	default:
		return "value"
	}
}
