// Package run is the orchestrator: it loops the agent over a started sandbox, running the
// prompt's commands in it before each iteration, watches its stream for completion signals and
// silence, collects commits, and extracts structured output, retrying by resuming the agent's
// session.
//
// It depends only on pure packages and on the small interfaces it declares (Repo, Log); the
// composition root wires real adapters in.
package run
