package scaffold

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// Command is `sandcastle init` with args: it writes the starter files into the directory getwd
// names and lists them on stdout, saying on stderr what went wrong. Its error is an
// *inputs.Problem when the flags, or the files in the way, are the user's to change; nil after
// -h.
func Command(args []string, getwd func() (string, error), stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sandcastle init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agentName := fs.String("agent", "claude-code", "the agent the sandbox image installs")
	force := fs.Bool("force", false, "overwrite files that already exist")
	var modes []string
	fs.Func("mode", "write the workflow of this mode, "+strings.Join(Modes(), ", ")+" (repeat the flag, or separate modes by commas, for several)", func(v string) error {
		for _, m := range strings.Split(v, ",") {
			modes = append(modes, strings.TrimSpace(m))
		}
		return nil
	})
	if err := fs.Parse(args); err == flag.ErrHelp {
		return nil
	} else if err != nil {
		return &inputs.Problem{Message: err.Error()} // the flag package said so
	}
	var err error
	if fs.NArg() > 0 {
		err = &inputs.Problem{Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	var dir string
	if err == nil {
		dir, err = getwd()
	}
	var written []string
	if err == nil {
		if written, err = Write(dir, Options{Agent: *agentName, Modes: modes, Force: *force}); err != nil {
			err = &inputs.Problem{Message: err.Error()}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "sandcastle init: %v\n", err)
		return err
	}
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return nil
}
