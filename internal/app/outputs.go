package app

import (
	"context"
	"log/slog"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// outputs maps a finished run to the action's outputs. The branch is where the agent's commits
// are now: the source branch, the target after a merge, or the branch kept when a merge failed.
func (p *plan) outputs(ws *workspace.Workspace, out workspace.Outcome, base string, res run.Result, status, logPath string) report.Outputs {
	o := report.Outputs{
		Status:              status,
		Iterations:          len(res.Iterations),
		CompletionSignal:    res.Signal,
		Branch:              ws.Source,
		BaseSHA:             base,
		SessionID:           res.SessionID,
		SessionFile:         res.SessionFile,
		InputTokens:         res.Usage.InputTokens,
		OutputTokens:        res.Usage.OutputTokens,
		CacheReadTokens:     res.Usage.CacheReadTokens,
		CacheCreationTokens: res.Usage.CacheCreationTokens,
		CostUSD:             res.Usage.CostUSD,
		CostKnown:           res.Usage.CostUSD > 0,
		LogFile:             logPath,
		PreservedWorktree:   out.PreservedPath,
	}
	for _, c := range res.Commits {
		o.Commits = append(o.Commits, c.SHA)
	}
	switch {
	case out.Merged:
		o.Branch = ws.Target
	case out.KeptBranch != "":
		o.Branch = out.KeptBranch
	}
	if n := len(res.Commits); n > 0 {
		o.HeadSHA = res.Commits[n-1].SHA
	} else {
		o.HeadSHA = base
	}
	if out.MergeCommit != "" {
		o.HeadSHA = out.MergeCommit
	}
	if res.Output != nil {
		o.Output = res.Output.Text
	}
	return o
}

func summaryOf(cfg inputs.Config, o report.Outputs, res run.Result) report.Run {
	s := report.Run{
		Status:            o.Status,
		Branch:            o.Branch,
		Signal:            o.CompletionSignal,
		MaxIterations:     cfg.MaxIterations,
		PreservedWorktree: o.PreservedWorktree,
		LogFile:           o.LogFile,
		Pushed:            o.Pushed,
		RecoveryBranch:    o.RecoveryBranch,
		PRNumber:          o.PRNumber,
		PRURL:             o.PRURL,
		CommentURL:        o.CommentURL,
		GitGuarded:        cfg.Sandbox == inputs.SandboxDocker,
		GitRestored:       o.RestoredGit,
	}
	if res.Output != nil {
		s.Output = string(res.Output.JSON)
	}
	for _, it := range res.Iterations {
		s.Iterations = append(s.Iterations, report.Iteration{
			Number:              it.Number,
			InputTokens:         it.Usage.InputTokens,
			OutputTokens:        it.Usage.OutputTokens,
			CacheReadTokens:     it.Usage.CacheReadTokens,
			CacheCreationTokens: it.Usage.CacheCreationTokens,
			CostUSD:             it.Usage.CostUSD,
			CostKnown:           it.HasUsage && it.Usage.CostUSD > 0,
			Signal:              it.Signal,
		})
	}
	for _, c := range res.Commits {
		s.Commits = append(s.Commits, c)
	}
	return s
}

// slogHandler sends the workspace's notes to the job log: warnings as annotations, the rest as
// plain lines.
type slogHandler struct{ rep *report.Reporter }

func (h slogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h slogHandler) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.Key + "=" + a.Value.String()
		return true
	})
	// Annotations are for what a user must act on; the rest is a plain log line.
	if r.Level >= slog.LevelWarn {
		h.rep.Warning(msg)
	} else {
		h.rep.Info(msg)
	}
	return nil
}

func (h slogHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h slogHandler) WithGroup(string) slog.Handler      { return h }
