package scaffold

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// TestCommand: init writes and lists the starter files, says nothing wrong after -h, and
// refuses, as a problem of the user's input, an argument, a flag or files in the way.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	getwd := func() (string, error) { return dir, nil }
	var stdout, stderr bytes.Buffer
	if err := Command(nil, getwd, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "wrote .sandcastle/Dockerfile") {
		t.Fatalf("init = %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	if err := Command([]string{"-h"}, getwd, &stdout, &stderr); err != nil {
		t.Errorf("init -h = %v", err)
	}
	for _, args := range [][]string{{"x"}, {"--bogus"}, nil} {
		var p *inputs.Problem
		if err := Command(args, getwd, &stdout, &stderr); !errors.As(err, &p) {
			t.Errorf("init %q = %v; want a Problem", args, err)
		}
	}
	if err := Command(nil, func() (string, error) { return "", errors.New("no cwd") }, &stdout, &stderr); err == nil || errors.As(err, new(*inputs.Problem)) {
		t.Errorf("init without a directory = %v; want a plain failure", err)
	}
}
