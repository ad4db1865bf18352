package app

import (
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// outcome is what a finished run did. The branch is where the agent's commits are now: the
// source branch, the target after a merge, or the branch kept when a merge failed.
func (p *plan) outcome(ws *workspace.Workspace, out workspace.Outcome, base string, res run.Result, status report.Status, logPath string) report.Outcome {
	o := report.Outcome{
		Status:            status,
		MaxIterations:     p.cfg.MaxIterations,
		Signal:            res.Signal,
		Output:            res.Output,
		SessionID:         res.SessionID,
		SessionFile:       res.SessionFile,
		Final:             summaryText(res.Final, p.cfg.CompletionSignals),
		Usage:             res.Usage,
		Commits:           res.Commits,
		Branch:            ws.Source,
		BaseSHA:           base,
		HeadSHA:           base,
		PreservedWorktree: out.PreservedPath,
		GitGuarded:        p.cfg.Sandbox == inputs.SandboxDocker,
		LogFile:           logPath,
		RunURL:            p.gh.runURL,
	}
	for _, it := range res.Iterations {
		o.Iterations = append(o.Iterations, report.Iteration{Number: it.Number, Signal: it.Signal, Usage: it.Usage})
	}
	switch {
	case out.Merged:
		o.Branch = ws.Target
	case out.KeptBranch != "":
		o.Branch, o.Kept = out.KeptBranch, true
	}
	if n := len(res.Commits); n > 0 {
		o.HeadSHA = res.Commits[n-1].SHA
	}
	if out.MergeCommit != "" {
		o.HeadSHA = out.MergeCommit
	}
	return o
}
