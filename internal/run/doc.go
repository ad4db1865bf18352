// Package run is the loop of one run: in a started sandbox it runs the prompt's commands before
// each iteration, invokes the agent, watches its stream for completion signals and silence,
// collects its commits and puts back the git directory after each invocation (Config.Guard),
// and extracts the structured output, retrying by resuming the agent's session; and it runs the
// hooks. The lifecycle around it (workspace, sandbox, publishing, the report) is package
// engine's.
//
// It depends only on pure packages and on the small interfaces it declares (Agent, Repo, Log,
// Saver); the engine hands it the adapters.
package run
