package app

import (
	"context"
	"fmt"

	"github.com/sandcastle-action/sandcastle/internal/engine"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
)

const promptUsage = `Usage: sandcastle prompt [--input value]...

Prints the prompt that sandcastle run with the same flags would send in its first iteration:
placeholders filled, every !` + "`command`" + ` run in the sandbox chosen (in the checkout as it is; no
hooks run), secrets masked. The log goes to standard error. No agent runs, and no branch,
worktree or log file is created. It takes the flags of sandcastle run:

`

// printPrompt is sandcastle prompt: see promptUsage.
func printPrompt(ctx context.Context, sys System, raw inputs.Raw, workDir string) int {
	rep := runner.New(sys.Stderr, sys.Getenv)
	s, code := preflight(ctx, sys, raw, workDir, rep)
	if s == nil {
		return code
	}
	text, err := engine.Preview(ctx, s.plan, s.deps(rep))
	if err != nil {
		rep.Error(err.Error())
		return exitCode(err)
	}
	fmt.Fprint(sys.Stdout, rep.Redactor().Redact(text))
	return exitOK
}
