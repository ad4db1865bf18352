package inputs

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// Raw holds input values as given, by input name. Only inputs that were given a non-blank value
// appear; Load applies the defaults.
type Raw map[string]string

// FromEnv reads every input from the INPUT_* variables the Actions runner sets (see EnvName).
// Blank values count as not given, so an input set to an empty string in a workflow behaves like
// one left out and takes its default.
func FromEnv(getenv func(string) string) Raw {
	raw := Raw{}
	for _, d := range TopLevel() {
		if v := getenv(EnvName(d.Name)); strings.TrimSpace(v) != "" {
			raw[d.Name] = v
		}
	}
	return raw
}

// FromFlags reads inputs from the arguments of `sandcastle run` (without "run"): --name value or
// --name=value for each input (one dash works too). A boolean flag alone means true. A list
// input's flag may repeat, one item each, and so may a map input's, one KEY=VALUE each. On -h or --help it returns flag.ErrHelp; print Usage.
// Every mistake is reported, joined, each a *Problem; an unknown flag names the input it most
// likely meant.
func FromFlags(args []string) (Raw, error) {
	raw := Raw{}
	var errs []error
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" || !strings.HasPrefix(arg, "-") || arg == "-" {
			errs = append(errs, &Problem{Message: fmt.Sprintf("unexpected argument %q: give inputs as --name value", arg)})
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		if name == "h" || name == "help" {
			return nil, flag.ErrHelp
		}
		d, ok := Lookup(name)
		if !ok || !isTopLevel(name) {
			hint := "see sandcastle run --help"
			if h := didYouMean(name, "--"); h != "" {
				hint = h
			}
			errs = append(errs, &Problem{Message: "unknown flag --" + name + ": " + hint})
			// Its value, when it has one, is no stray argument of its own.
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
			continue
		}
		switch {
		case hasValue:
		case d.Kind == KindBool:
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		default:
			errs = append(errs, &Problem{Input: name, Message: "flag --" + name + " needs a value"})
			continue
		}
		old, seen := raw[name]
		switch {
		case !seen:
			raw[name] = value
		case d.Kind == KindList || d.Kind == KindMap:
			raw[name] = old + "\n" + value
		default:
			errs = append(errs, &Problem{Input: name, Message: "flag --" + name + " is given more than once; give it once"})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for name, v := range raw {
		if strings.TrimSpace(v) == "" {
			delete(raw, name)
		}
	}
	return raw, nil
}

// Usage returns the help text of `sandcastle run`: every input as a flag, with its default,
// and the values those that depend on the agent take from each of agents.
func Usage(agents []AgentInfo) string {
	var b strings.Builder
	b.WriteString("Usage: sandcastle run [--input value]...\n\n")
	b.WriteString(wrap("Runs an agent in a loop against a git repository. Every input of the action is a flag of the same name; a list flag may repeat, one item each, and a map flag one KEY=VALUE each. Paths relative to the workspace are relative to the current directory.", 0))
	b.WriteString("\nInputs:\n")
	for _, d := range TopLevel() {
		usageEntry(&b, "--"+d.Name, d, 2, AgentValues(d.Name, agents))
		for _, k := range Keys(d.Name) {
			usageEntry(&b, KeyName(k.Name)+"=", k, 6, "")
		}
	}
	return b.String()
}

// usageEntry writes one input, or one key of a map input, of Usage, indented by indent.
func usageEntry(b *strings.Builder, head string, d Definition, indent int, values string) {
	b.WriteString(strings.Repeat(" ", indent) + head)
	if d.Kind != KindBool {
		b.WriteString(" " + d.Kind.String())
	}
	if d.Default != "" {
		fmt.Fprintf(b, " (default %q)", d.Default)
	}
	b.WriteString("\n")
	desc := d.Description
	if len(d.Choices) > 0 {
		desc += " One of: " + strings.Join(d.Choices, ", ") + "."
	}
	if values != "" {
		desc += " " + values
	}
	b.WriteString(wrap(desc, indent+4))
}

// wrap breaks text into lines of at most 100 columns, each indented by indent spaces.
func wrap(text string, indent int) string {
	const width = 100
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		if col > indent && col+1+len(w) > width {
			b.WriteString("\n")
			col = 0
		}
		if col == 0 {
			b.WriteString(strings.Repeat(" ", indent))
			col = indent
		} else {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	b.WriteString("\n")
	return b.String()
}
