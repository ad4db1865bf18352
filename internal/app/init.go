package app

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/scaffold"
)

// initCommand writes the starter files of `sandcastle init`.
func initCommand(sys System, args []string) int {
	fs := flag.NewFlagSet("sandcastle init", flag.ContinueOnError)
	fs.SetOutput(sys.Stderr)
	agentName := fs.String("agent", "claude-code", "the agent the sandbox image installs")
	force := fs.Bool("force", false, "overwrite files that already exist")
	var modes []string
	fs.Func("mode", "write the workflow of this mode, "+strings.Join(scaffold.Modes(), ", ")+" (repeat the flag, or separate modes by commas, for several)", func(v string) error {
		for _, m := range strings.Split(v, ",") {
			modes = append(modes, strings.TrimSpace(m))
		}
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(sys.Stderr, "sandcastle init: unexpected argument %q\n", fs.Arg(0))
		return exitBadInput
	}
	dir, err := sys.Getwd()
	if err != nil {
		fmt.Fprintf(sys.Stderr, "sandcastle init: %v\n", err)
		return exitFailed
	}
	written, err := scaffold.Write(dir, scaffold.Options{Agent: *agentName, Modes: modes, Force: *force})
	if err != nil {
		fmt.Fprintf(sys.Stderr, "sandcastle init: %v\n", err)
		return exitBadInput
	}
	for _, p := range written {
		fmt.Fprintln(sys.Stdout, "wrote", p)
	}
	return exitOK
}
