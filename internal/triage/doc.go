// Package triage decides which of a triage agent's requests the host carries out: the agent's
// structured output names, one entry per issue, labels to add or remove, a comment and whether
// to close the issue; each action is checked against allowed-labels, max-actions and what the
// issue is (one of this repository's, no pull request unless allowed, not triaged before), and
// is either planned or refused with a reason. Refusals are results, not errors. It also holds
// the output's JSON Schema, the default output-schema of a triage run. Pure: the host reads the
// issues and applies the plan.
package triage
