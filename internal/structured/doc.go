// Package structured extracts the structured output an agent prints inside a caller-chosen tag,
// parses it as JSON and validates it against a JSON Schema.
//
// The tag rule follows the reference implementation: the last complete <tag>...</tag> pair,
// found by an exact, case-sensitive left-to-right scan, wins. Object outputs may be wrapped in a
// bare or json Markdown fence; the JSON must be strict. Schemas are drafts 2020-12 (the default)
// or 7 (chosen with $schema), compiled without ever loading a remote reference, and "format" is
// asserted because callers who write one expect it checked.
//
// When extraction fails, the *Error carries a short, readable account of why and builds the
// feedback prompt that asks the agent, in its resumed session, for a corrected block.
//
// The package is pure: no I/O, no environment.
package structured
