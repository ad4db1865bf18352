package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/release"
	"github.com/sandcastle-action/sandcastle/internal/scaffold"
)

// System is everything the program takes from the process it runs in.
type System struct {
	Args    []string // without the program name
	Getenv  func(string) string
	Environ func() []string // every variable as KEY=VALUE; nil: none beyond what Getenv finds
	Getwd   func() (string, error)
	Stdout  io.Writer
	Stderr  io.Writer
}

// OS is the real process.
func OS() System {
	return System{Args: os.Args[1:], Getenv: os.Getenv, Environ: os.Environ, Getwd: os.Getwd, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // the run could not do its job
	exitBadInput = 2 // the inputs are invalid; nothing was started
)

// exitCode is the exit code of a run that ended with err, decided by the error's type alone:
// an *inputs.Problem anywhere in it means the inputs are invalid.
func exitCode(err error) int {
	var p *inputs.Problem
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &p):
		return exitBadInput
	default:
		return exitFailed
	}
}

const usageText = `sandcastle runs an AI coding agent in a loop against a git repository.

Usage:
  sandcastle run [flags]     run the agent (see "sandcastle run --help" for every flag)
  sandcastle prompt [flags]  print the prompt run would send with the same flags, its commands
                             run in the sandbox; no agent, branch or worktree
  sandcastle init            write a starter .sandcastle/ (Dockerfile, prompt) and workflow;
                             with --mode implement, pr, review or triage, that mode's workflow
  sandcastle version         print the version

As a GitHub Action (GITHUB_ACTIONS=true and no arguments) it reads its inputs from INPUT_*.
`

// Main runs the program and returns its exit code.
func Main(ctx context.Context, sys System) int {
	args := sys.Args
	switch {
	case len(args) == 0 && sys.Getenv("GITHUB_ACTIONS") == "true":
		dir := sys.Getenv("GITHUB_WORKSPACE")
		if dir == "" {
			var err error
			if dir, err = sys.Getwd(); err != nil {
				fmt.Fprintf(sys.Stderr, "sandcastle: %v\n", err)
				return exitFailed
			}
		}
		var unknown []string // misspelt keys under with:, which the runner passes all the same
		if sys.Environ != nil {
			unknown = inputs.UnknownVariables(sys.Environ())
		}
		return execute(ctx, sys, inputs.FromEnv(sys.Getenv), dir, unknown...)
	case len(args) > 0 && (args[0] == "run" || args[0] == "prompt"):
		raw, err := inputs.FromFlags(args[1:])
		if errors.Is(err, flag.ErrHelp) {
			if args[0] == "prompt" {
				fmt.Fprint(sys.Stdout, promptUsage)
			}
			fmt.Fprint(sys.Stdout, inputs.Usage(agentInfos()))
			return exitOK
		}
		if err != nil {
			fmt.Fprintf(sys.Stderr, "sandcastle %s: %v\nRun \"sandcastle %[1]s --help\" for the flags.\n", args[0], err)
			return exitCode(err)
		}
		dir, err := sys.Getwd()
		if err != nil {
			fmt.Fprintf(sys.Stderr, "sandcastle: %v\n", err)
			return exitFailed
		}
		if args[0] == "prompt" {
			return printPrompt(ctx, sys, raw, dir)
		}
		return execute(ctx, sys, raw, dir)
	case len(args) > 0 && args[0] == "init":
		return exitCode(scaffold.Command(args[1:], sys.Getwd, sys.Stdout, sys.Stderr))
	case len(args) > 0 && args[0] == "version":
		fmt.Fprintln(sys.Stdout, "sandcastle", release.Version)
		return exitOK
	case len(args) > 0 && isHelp(args):
		fmt.Fprint(sys.Stdout, usageText)
		return exitOK
	default:
		fmt.Fprint(sys.Stderr, usageText)
		if len(args) > 0 {
			fmt.Fprintf(sys.Stderr, "\nunknown command %q\n", strings.Join(args, " "))
		}
		return exitBadInput
	}
}

func isHelp(args []string) bool {
	switch args[0] {
	case "-h", "--help", "-help", "help":
		return true
	}
	return false
}
