package inputs

import (
	"errors"
	"io/fs"
	"testing"
)

func TestRuntimeErrorNamesTheInputAndIsNoProblem(t *testing.T) {
	err := error(&RuntimeError{Input: InputLogFile, Err: fs.ErrPermission})
	if got, want := err.Error(), `input "log-file": permission denied`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Error("the cause is not reachable with errors.Is")
	}
	var p *Problem
	if errors.As(err, &p) {
		t.Error("a RuntimeError reads as a Problem, which would make it bad input")
	}
}
