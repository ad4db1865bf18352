package structured

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL is where the compiler believes the schema lives. A file URL keeps relative $refs
// resolvable (and refused by noRemote); messages show it as the input's name instead.
const schemaURL = "file:///output-schema.json"

// maxDetailLines bounds a validation report: enough to fix the answer, few enough tokens to
// send back to the agent.
const maxDetailLines = 20

// maxLineLen bounds one line of a validation report; messages can quote the agent's values.
const maxLineLen = 200

// Schema is a compiled JSON Schema for object outputs. It is safe for concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
}

// CompileSchema compiles the output-schema input. $schema selects draft 7 or 2020-12 (the
// default). Remote references are never loaded: they are an error, so a run cannot be steered
// by what some server returns.
func CompileSchema(raw []byte) (*Schema, error) {
	if _, err := compactJSON(raw); err != nil {
		return nil, &SchemaError{msg: "invalid JSON: " + err.Error(), err: err}
	}
	doc, err := decode(raw)
	if err != nil {
		return nil, &SchemaError{msg: "invalid JSON: " + err.Error(), err: err}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, &SchemaError{msg: readable(err.Error()), err: err}
	}
	compiled, err := c.Compile(schemaURL)
	if err != nil {
		if sve, ok := errors.AsType[*jsonschema.SchemaValidationError](err); ok {
			if ve, ok := errors.AsType[*jsonschema.ValidationError](sve.Err); ok {
				return nil, &SchemaError{msg: "not a valid JSON Schema:\n" + violations(ve), err: err}
			}
		}
		return nil, &SchemaError{msg: readable(err.Error()), err: err}
	}
	return &Schema{compiled: compiled}, nil
}

// SchemaError is a schema that does not compile: what is wrong with it, where. The caller
// names the input it came from.
type SchemaError struct {
	msg string
	err error
}

func (e *SchemaError) Error() string { return e.msg }

func (e *SchemaError) Unwrap() error { return e.err }

// noRemote refuses every reference outside the schema document; the meta-schemas of the
// supported drafts are built into the compiler and never reach a loader.
type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, errors.New("remote references are not loaded; put shared definitions under $defs")
}

// validate checks compact JSON against s and returns the violations as readable lines.
func (s *Schema) validate(compact []byte) error {
	v, err := decode(compact)
	if err != nil {
		return err
	}
	err = s.compiled.Validate(v)
	if ve, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
		return errors.New(violations(ve))
	}
	return err
}

// violations renders the validator's error tree one "location: message" line per problem,
// children indented under the keyword that combined them (anyOf, oneOf...).
func violations(root *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var lines []string
	total := 0
	var walk func(e *jsonschema.ValidationError, depth int)
	walk = func(e *jsonschema.ValidationError, depth int) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Reference, *kind.Group, *kind.AllOf:
			// Wrappers that only say "validation failed here": their causes carry the reasons.
		default:
			total++
			if len(lines) < maxDetailLines {
				line := strings.Repeat("  ", depth) + location(e.InstanceLocation) + ": " + e.ErrorKind.LocalizedString(p)
				lines = append(lines, clip(line, maxLineLen))
			}
			depth++
		}
		// The validator visits properties in map order; sort so the same answer always gets
		// the same report.
		causes := slices.Clone(e.Causes)
		slices.SortStableFunc(causes, func(a, b *jsonschema.ValidationError) int {
			return comparePointers(a.InstanceLocation, b.InstanceLocation)
		})
		for _, c := range causes {
			walk(c, depth)
		}
	}
	walk(root, 0)
	if total > len(lines) {
		lines = append(lines, fmt.Sprintf("... and %d more", total-len(lines)))
	}
	return strings.Join(lines, "\n")
}

// comparePointers orders instance locations token by token, array indexes numerically, so a
// parent comes before its children and /2 before /10.
func comparePointers(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}

// location is a JSON Pointer to the offending value, "(root)" for the whole document.
func location(tokens []string) string {
	if len(tokens) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// readable replaces the compiler's made-up URL of the schema with the input's name.
func readable(msg string) string {
	return strings.ReplaceAll(msg, schemaURL, "output-schema")
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "..."
}
