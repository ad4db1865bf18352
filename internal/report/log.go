package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Log is the run log: a file (optional) and the console. Every write goes straight through
// the Redactor to its destinations; nothing accumulates, however long the agent talks.
//
// Agent text is redacted chunk by chunk, so a secret split across two chunks is not caught;
// the agent adapters deliver whole blocks where the CLI allows it.
type Log struct {
	mu      sync.Mutex
	file    io.Writer
	midLine bool  // the file's last write did not end with a newline
	err     error // the first file write error
	con     *Console
	red     *Redactor
	now     func() time.Time
	warn    func(msg string) // shows a warning on the console; nil: a plain line
}

// Status writes a timestamped line to the file (UTC, RFC 3339) and the console (time of day).
func (l *Log) Status(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t := l.now()
	l.fileLine(t.UTC().Format(time.RFC3339) + " " + msg)
	l.con.Line(t.Format("15:04:05") + " " + msg)
}

// Warning writes a warning to the file and shows it on the console, as an annotation when the
// Log belongs to a Reporter in Actions.
func (l *Log) Warning(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.fileLine(l.now().UTC().Format(time.RFC3339) + " warning: " + msg)
	if l.warn != nil {
		l.warn(msg)
		return
	}
	l.con.Line("warning: " + msg)
}

// BeginAgent marks the start of agent output: from here to EndAgent the console is fenced.
func (l *Log) BeginAgent() { l.con.beginUntrusted() }

// EndAgent ends agent output: it finishes a partial line and lifts the fence.
func (l *Log) EndAgent() {
	l.fileEndLine()
	l.con.endUntrusted()
}

// AgentText writes a chunk of the agent's text as is, without adding a newline. Outside
// BeginAgent/EndAgent it opens the fence itself: agent text is never written unfenced.
func (l *Log) AgentText(text string) {
	l.con.beginUntrusted()
	l.fileWrite(text)
	l.con.text(text)
}

// ToolCall writes one line "name(args)" for a tool the agent called.
func (l *Log) ToolCall(name, args string) {
	l.con.beginUntrusted()
	line := name + "(" + args + ")"
	l.fileLine(line)
	l.con.Line(line)
}

// Prompt writes the prompt an iteration sends, after a status line giving its size. It is
// fenced on the console as agent output is: it holds text written by strangers.
func (l *Log) Prompt(iteration int, text string) {
	l.Status("Prompt of iteration %d (%d bytes):", iteration, len(text))
	text = strings.TrimSuffix(text, "\n")
	l.con.beginUntrusted()
	l.fileLine(text)
	l.con.Line(text)
	l.con.endUntrusted()
}

// Raw writes one raw line of the agent's stream to the file only (verbose mode).
func (l *Log) Raw(line string) {
	l.fileLine(strings.TrimSuffix(line, "\n"))
}

// Err returns the first error writing the log file. Logging goes on to the console after it.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *Log) fileLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.midLine {
		l.write("\n")
	}
	l.write(s + "\n")
}

func (l *Log) fileWrite(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.write(s)
}

func (l *Log) fileEndLine() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.midLine {
		l.write("\n")
	}
}

// write sends s to the file; l.mu is held. After the first error the file is left alone.
func (l *Log) write(s string) {
	if l.file == nil || l.err != nil || s == "" {
		return
	}
	if _, err := io.WriteString(l.file, l.red.Redact(s)); err != nil {
		l.err = fmt.Errorf("write run log: %w", err)
		return
	}
	l.midLine = !strings.HasSuffix(s, "\n")
}
