// Package fakeclaude stands in for the claude CLI itself, so that a whole run reaches every part
// of the lifecycle in a plain go test, without npm: New builds the program in ./claude (once for
// each version of its source), puts it in a directory of its own as claude, and scripts it with
// the steps of package models, which the model stand-ins answer with too; Calls returns what
// each invocation was given.
package fakeclaude
