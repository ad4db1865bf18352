package engine

import (
	"errors"

	"github.com/sandcastle-action/sandcastle/internal/report"
)

// CancelledError is a run that ended because its job was cancelled (SIGTERM or SIGINT): Err
// is how the step under way ended.
type CancelledError struct{ Err error }

func (e *CancelledError) Error() string { return e.Err.Error() }

func (e *CancelledError) Unwrap() error { return e.Err }

// statusOf is the status of a run that ended with err, told by the error's type alone, and,
// when the run did its job, by whether the agent signalled completion.
func statusOf(err error, signal string) report.Status {
	var (
		cancelled *CancelledError
		moved     BranchMoved
	)
	switch {
	case errors.As(err, &cancelled):
		return report.StatusCancelled
	case errors.As(err, &moved) && moved.BranchMoved():
		return report.StatusBranchMoved
	case err != nil:
		return report.StatusFailed
	case signal != "":
		return report.StatusComplete
	default:
		return report.StatusIncomplete
	}
}
