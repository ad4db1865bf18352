// Package engine is the lifecycle of one run, in two rooms. Prepare (preflight.go) checks
// everything before anything is made, on small interfaces it declares (Checks), and returns the
// Plan; nothing in it changes afterwards. Run (run.go) decides whether the event may start the
// run, prepares the workspace, starts the sandbox (sandbox.go: Sandboxes.Start hands back a
// Started, whatever its kind), runs the hooks and the loop, acts on the structured output
// (outputs.go), publishes the commits (publish.go) and reports once, on every way out: one
// report.Outcome, its Status set from the final error, rendered as outputs, job summary and
// comment.
//
// Every port (the interfaces, Deps and Checks) is in ports.go. The engine keeps the rules of
// the lifecycle: what a refusal answers, which labels move, what the progress comment shows,
// that the sandbox is stopped and the git directory put back on every path, a cancelled run
// included, where the commits end up and what the status says, classified by the error's type.
//
// The engine imports only pure packages (inputs, prompt, agent, structured, event, report,
// gitref, sandbox's interface) and run; the adapters never import it: app builds them and
// checks at compile time that each fits.
package engine
