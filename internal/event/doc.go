// Package event reads the GitHub Actions event that started a run and decides whether the run
// may go ahead.
//
// Load turns the payload at GITHUB_EVENT_PATH into a small Event: who acted, on which issue,
// pull request or comment. PromptArgs offers that text to prompt templates as built-ins, passed
// through Sanitize first, because issue and comment text is written by strangers: hidden HTML
// comments and invisible characters would reach the agent without a human reviewer ever seeing
// them.
//
// Decide applies the trigger rules and guards (trigger phrases, trigger label, bots, write
// permission, an existing pull request, and for a run on a pull request's own branch an event
// about none or a fork's pull request). It never talks to GitHub itself: permission and
// pull-request look-ups go through the Permissions interface the caller supplies, so the
// package stays pure. Labels computes the label changes of the in-progress/blocked state machine.
package event
