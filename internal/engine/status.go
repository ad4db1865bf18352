package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
)

// CancelledError is a run that ended because its job was cancelled (SIGTERM or SIGINT): Err
// is how the step under way ended.
type CancelledError struct{ Err error }

func (e *CancelledError) Error() string { return e.Err.Error() }

func (e *CancelledError) Unwrap() error { return e.Err }

// runBudget is ctx ending when the timeouts input's run-minutes are up, with a *run.BudgetError
// as its cause; ctx itself without that budget.
func (e *engine) runBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	d := e.p.Config.RunTimeout
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, &run.BudgetError{Budget: "run-minutes", Detail: fmt.Sprintf("the run took its %d minute(s)", int(d.Minutes()))})
}

// cancelled is err as what ended ctx, when it did: the run's budget of time, or a cancelled job.
func cancelled(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	var budget *run.BudgetError
	if errors.As(context.Cause(ctx), &budget) {
		return budget
	}
	return &CancelledError{Err: err}
}

// statusOf is the status of a run that ended with err, told by the error's type alone, and,
// when the run did its job, by whether the agent signalled completion and verify-command passed.
func statusOf(err error, signal string, unverified bool) report.Status {
	var (
		cancelled *CancelledError
		moved     BranchMoved
		budget    *run.BudgetError
	)
	switch {
	case errors.As(err, &cancelled):
		return report.StatusCancelled
	case errors.As(err, &budget):
		return report.StatusBudgetExhausted
	case errors.As(err, &moved) && moved.BranchMoved():
		return report.StatusBranchMoved
	case err != nil:
		return report.StatusFailed
	case signal != "":
		return report.StatusComplete
	case unverified:
		return report.StatusUnverified
	default:
		return report.StatusIncomplete
	}
}

// verifyOf is how verify-command ended, as the report tells it.
func verifyOf(v *run.Verify) report.Verify {
	switch {
	case v == nil:
		return report.VerifyNone
	case v.Passed:
		return report.VerifyPassed
	}
	return report.VerifyFailed
}
