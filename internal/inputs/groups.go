package inputs

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TopLevel returns the inputs of action.yml, in the table's order: every definition but the
// keys of map inputs.
func TopLevel() []Definition {
	var out []Definition
	for _, d := range Definitions {
		if _, _, isKey := strings.Cut(d.Name, "."); !isKey {
			out = append(out, d)
		}
	}
	return out
}

// Keys returns the definitions of the keys of the map input called name, in the table's order;
// none for an input that is no map of known keys (prompt-args holds keys of the user's own).
// A key's Name is "name.key".
func Keys(name string) []Definition {
	var out []Definition
	for _, d := range Definitions {
		if strings.HasPrefix(d.Name, name+".") {
			out = append(out, d)
		}
	}
	return out
}

// KeyName is the key part of a map input's key definition ("memory" of "docker.memory"), and
// the name itself for a top-level input.
func KeyName(name string) string {
	_, key, isKey := strings.Cut(name, ".")
	if !isKey {
		return name
	}
	return key
}

// label names an input or a map input's key in a message: input "mode", input "docker" key
// "memory".
func label(name string) string {
	if group, key, isKey := strings.Cut(name, "."); isKey {
		return fmt.Sprintf("input %q key %q", group, key)
	}
	return fmt.Sprintf("input %q", name)
}

// expandGroups replaces the value of each map input with known keys by one entry per key, as
// "input.key", so that a key is read as an input is: with its default, the mode's value, and
// the same checks. An unknown key is a problem that names the key most likely meant.
func (l *loader) expandGroups() {
	for _, d := range TopLevel() {
		keys := Keys(d.Name)
		text, given := l.given(d.Name)
		if len(keys) == 0 || !given {
			continue
		}
		delete(l.raw, d.Name)
		values, problems := parseGroup(d.Name, keys, text)
		for _, p := range problems {
			l.problem(d.Name, "%s", p)
		}
		for k, v := range values {
			l.raw[d.Name+"."+k] = v
		}
	}
}

// parseGroup reads the value of map input name, whose keys are keys: KEY=VALUE lines when the
// first line looks like one (a list's or a map's key may repeat, one item or KEY=VALUE line
// each, as --docker mounts=a:b --docker mounts=c:d gives them), else a YAML map (JSON being
// YAML) whose list values become one item per line and whose map values JSON. Values are never
// shown in a message: build-args may hold a secret.
func parseGroup(name string, keys []Definition, text string) (map[string]string, []string) {
	g := &groupBuilder{name: name, keys: keys, values: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if keyValueLineRe.MatchString(line) {
			g.keyValueLines(text)
		} else {
			g.yaml(text)
		}
		break
	}
	return g.values, g.problems
}

// groupBuilder collects the keys of one map input.
type groupBuilder struct {
	name     string
	keys     []Definition
	values   map[string]string
	problems []string
}

func (g *groupBuilder) problemf(format string, a ...any) {
	g.problems = append(g.problems, fmt.Sprintf(format, a...))
}

// key returns the definition of key, or reports it unknown, naming the key most likely meant.
func (g *groupBuilder) key(key, where string) (Definition, bool) {
	var names []string
	for _, d := range g.keys {
		if KeyName(d.Name) == key {
			return d, true
		}
		names = append(names, KeyName(d.Name))
	}
	hint := ""
	if best := closest(strings.ToLower(strings.ReplaceAll(key, "_", "-")), names); best != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", best)
	}
	g.problemf("has no key %q%s%s; its keys are %s", key, where, hint, strings.Join(names, ", "))
	return Definition{}, false
}

// add records value under key. A list's or a map's key that repeats adds to it.
func (g *groupBuilder) add(d Definition, value, where string) {
	key := KeyName(d.Name)
	old, dup := g.values[key]
	switch {
	case !dup:
		g.values[key] = value
	case d.Kind == KindList || d.Kind == KindMap:
		g.values[key] = old + "\n" + value
	default:
		g.problemf("key %s%s is given twice; give it once", key, where)
	}
}

func (g *groupBuilder) keyValueLines(text string) {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf(" on line %d", i+1)
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		switch {
		case !ok:
			g.problemf("line %d is not KEY=VALUE (not shown, as it may hold a secret); give one KEY=VALUE per line, or use YAML or JSON", i+1)
		case strings.ContainsAny(key, " \t:{}[]\"'#"):
			g.problemf("the key on line %d is not a key name (not shown, as it may be a value); give KEY=VALUE", i+1)
		default:
			if d, known := g.key(key, where); known {
				g.add(d, strings.TrimSpace(value), where)
			}
		}
	}
}

func (g *groupBuilder) yaml(text string) {
	yamlPairs(text, "key: value pairs", g.problemf, func(key string, v *yaml.Node, where string) {
		d, known := g.key(key, where)
		if !known {
			return
		}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			g.problemf("key %s%s has no value; give one, or leave the key out for its default", key, where)
		case v.Kind == yaml.ScalarNode:
			// Value is the text as written, so 007 and 1.50 keep their form.
			g.add(d, v.Value, where)
		case v.Kind == yaml.SequenceNode && d.Kind == KindList:
			g.list(d, v, where)
		case v.Kind == yaml.MappingNode && d.Kind == KindMap:
			s, err := nodeJSON(v)
			if err != nil {
				g.problemf("value of key %s%s cannot be written as JSON: %s", key, where, yamlProblem(err))
				return
			}
			g.add(d, s, where)
		default:
			g.problemf("key %s%s is a %s, but it takes %s", key, where, nodeKind(v), article(d.Kind))
		}
	})
}

// list adds the items of a YAML list, each a single value on one line.
func (g *groupBuilder) list(d Definition, v *yaml.Node, where string) {
	var items []string
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode || strings.ContainsAny(item.Value, "\r\n") {
			g.problemf("an item of key %s%s is not a single line; give one item per entry", KeyName(d.Name), where)
			return
		}
		items = append(items, item.Value)
	}
	if len(items) > 0 {
		g.add(d, strings.Join(items, "\n"), where)
	}
}

// article is the kind of value a key takes, for a message: "a list", "a map", "a single value".
func article(k Kind) string {
	switch k {
	case KindList:
		return "a list"
	case KindMap:
		return "a map"
	}
	return "a single value"
}

// closest is the name of names within a typo's reach of name, or "".
func closest(name string, names []string) string {
	best, bestDist := "", max(1, len(name)/4)+1
	for _, n := range names {
		if dist := editDistance(name, n); dist < bestDist {
			best, bestDist = n, dist
		}
	}
	return best
}
