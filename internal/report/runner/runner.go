package runner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/sandcastle-action/sandcastle/internal/hostfs"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// Reporter talks to the Actions runtime, or to a terminal when not in Actions.
type Reporter struct {
	getenv  func(string) string
	actions bool
	red     *report.Redactor
	con     *report.Console
	gha     *githubactions.Action // everything it writes is redacted
	masker  *githubactions.Action // add-mask only: the secret must reach the runner as is
}

// New returns a Reporter writing workflow commands to stdout and environment files named by
// getenv.
func New(stdout io.Writer, getenv func(string) string) *Reporter {
	red := &report.Redactor{}
	actions := getenv("GITHUB_ACTIONS") == "true"
	con := report.NewConsole(stdout, red, actions)
	env := githubactions.WithGetenv(getenv)
	return &Reporter{
		getenv:  getenv,
		actions: actions,
		red:     red,
		con:     con,
		gha:     githubactions.New(githubactions.WithWriter(commandWriter{c: con, redact: true}), env),
		masker:  githubactions.New(githubactions.WithWriter(commandWriter{c: con}), env),
	}
}

// Redactor is the Reporter's redactor, for sharing with other writers.
func (r *Reporter) Redactor() *report.Redactor { return r.red }

// NewLog returns a run log sharing the Reporter's console, redactor and fences, so the
// Reporter's own commands stay live while agent output is fenced. Its warnings are the
// Reporter's.
func (r *Reporter) NewLog(file io.Writer) *report.Log { return r.con.NewLog(file, r.Warning) }

// SetOutputs writes every output of o to GITHUB_OUTPUT; outside Actions it prints them.
func (r *Reporter) SetOutputs(o report.Outcome) error {
	if err := o.Status.Check(); err != nil {
		return fmt.Errorf("set outputs: %w", err)
	}
	pairs := o.Pairs()
	for i, p := range pairs {
		pairs[i][1] = r.red.Redact(p[1])
	}
	if !r.actions {
		var b strings.Builder
		b.WriteString("Outputs:\n")
		for _, p := range pairs {
			fmt.Fprintf(&b, "  %s=%s\n", p[0], p[1])
		}
		r.con.Line(b.String())
		return nil
	}
	path := r.getenv("GITHUB_OUTPUT")
	if path == "" {
		return errors.New("set outputs: GITHUB_OUTPUT is not set")
	}
	var b strings.Builder
	for _, p := range pairs {
		d, err := delimiterFor(p[1])
		if err != nil {
			return fmt.Errorf("set output %s: %w", p[0], err)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", p[0], d, p[1], d)
	}
	// One write of every output, so a failure leaves none half-written.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("set outputs: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("set outputs: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("set outputs: %w", err)
	}
	return nil
}

// delimiterFor returns a heredoc delimiter for value in GITHUB_OUTPUT that value does not
// contain: random, as @actions/core makes them, so that no value, however it was made, can end
// its block early and forge another output, nor make the others fail.
func delimiterFor(value string) (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		if d := "ghadelimiter_" + hex.EncodeToString(b[:]); !strings.Contains(value, d) {
			return d, nil
		}
	}
}

// Summary appends markdown to the job summary (GITHUB_STEP_SUMMARY). Outside Actions it does
// nothing: the terminal already shows the run.
func (r *Reporter) Summary(markdown string) (err error) {
	if !r.actions {
		return nil
	}
	if r.getenv("GITHUB_STEP_SUMMARY") == "" {
		return errors.New("write job summary: GITHUB_STEP_SUMMARY is not set")
	}
	defer recoverInto(&err, "write job summary")
	r.gha.AddStepSummary(r.red.Redact(markdown))
	return nil
}

// Mask hides secret from everything the Reporter and its logs write, and in Actions from the
// runner's log too. The runner is also given each line of a multi-line secret, since it masks
// line by line, and the secret's JSON string form. Values under 4 characters are ignored.
func (r *Reporter) Mask(secret string) {
	forms := r.red.Add(secret)
	if !r.actions {
		return
	}
	for _, v := range forms {
		r.masker.AddMask(v)
	}
}

// Group starts a collapsible section of the log; call end once to close it.
func (r *Reporter) Group(title string) (end func()) {
	if !r.actions {
		r.con.Line("== " + title)
		return func() {}
	}
	r.gha.Group(title)
	return r.gha.EndGroup
}

// Warning shows msg as a warning annotation.
func (r *Reporter) Warning(msg string) { r.annotate("warning", msg, r.gha.Warningf) }

// Error shows msg as an error annotation.
func (r *Reporter) Error(msg string) { r.annotate("error", msg, r.gha.Errorf) }

// Info writes msg as a plain line of the log: something worth seeing, nothing to act on.
func (r *Reporter) Info(msg string) { r.con.Line(msg) }

func (r *Reporter) annotate(level, msg string, issue func(string, ...any)) {
	if !r.actions {
		r.con.Line(level + ": " + msg)
		return
	}
	issue("%s", msg)
}

// recoverInto turns the SDK's panic on an unwritable environment file into an error.
func recoverInto(err *error, op string) {
	v := recover()
	if v == nil {
		return
	}
	if e, ok := v.(error); ok {
		*err = fmt.Errorf("%s: %w", op, e)
		return
	}
	*err = fmt.Errorf("%s: %v", op, v)
}

// commandWriter hands the SDK's command lines to the console.
type commandWriter struct {
	c      *report.Console
	redact bool
}

func (w commandWriter) Write(p []byte) (int, error) {
	w.c.Command(string(p), w.redact)
	return len(p), nil
}

// OpenLog opens the run log file at path for appending, making its directory. A path inside
// the checkout top is reached without following a link: in the checkout, the agent may have
// replaced .sandcastle/logs or the log with one.
func OpenLog(top, path string) (io.WriteCloser, error) {
	dir, name, err := hostfs.Beneath(top, path, 0o755)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return hostfs.OpenFile(dir, name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}
