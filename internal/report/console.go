package report

import (
	"crypto/rand"
	"io"
	"strings"
	"sync"
)

// console is the job log on stdout. It serialises writes, redacts them, and keeps untrusted
// text fenced: while a fence is open the runner ignores workflow commands, so only a line
// carrying the fence's random token (which the agent cannot know) ends it.
type console struct {
	mu      sync.Mutex
	w       io.Writer
	red     *Redactor
	actions bool
	token   string // the open fence's token; "" when commands are live
	midLine bool   // the last write did not end with a newline
}

func newConsole(w io.Writer, red *Redactor, actions bool) *console {
	if w == nil {
		w = io.Discard
	}
	return &console{w: w, red: red, actions: actions}
}

// text writes plain text. In Actions, text that the runner would read as a workflow command
// is written inside a fence of its own.
func (c *console) text(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s = c.red.Redact(s)
	if c.actions && c.token == "" && looksLikeCommand(s) {
		c.open()
		c.put(s)
		c.close()
		return
	}
	c.put(s)
}

// line writes s as whole line(s): after a newline if the last write ended mid-line.
func (c *console) line(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLine()
	s = c.red.Redact(s)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if c.actions && c.token == "" && looksLikeCommand(s) {
		c.open()
		c.put(s)
		c.close()
		return
	}
	c.put(s)
}

// command writes a workflow command of our own, closing any open fence around it.
func (c *console) command(s string, redact bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if redact {
		s = c.red.Redact(s)
	}
	fenced := c.token != ""
	if fenced {
		c.close()
	}
	c.endLine()
	c.put(s)
	if fenced {
		c.open()
	}
}

// beginUntrusted opens a fence (in Actions) that stays open until endUntrusted.
func (c *console) beginUntrusted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.actions && c.token == "" {
		c.open()
	}
}

// endUntrusted finishes the current line and closes the fence, if one is open.
func (c *console) endUntrusted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLine()
	if c.token != "" {
		c.close()
	}
}

// open starts a fence with a fresh token; each fence gets its own so a token seen in the log
// is worth nothing later.
func (c *console) open() {
	c.endLine()
	c.token = rand.Text()
	c.put("::stop-commands::" + c.token + "\n")
}

func (c *console) close() {
	c.endLine()
	c.put("::" + c.token + "::\n")
	c.token = ""
}

func (c *console) endLine() {
	if c.midLine {
		c.put("\n")
	}
}

// put writes s. The console is best effort: when stdout is gone there is nowhere left to say so.
func (c *console) put(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(c.w, s)
	c.midLine = !strings.HasSuffix(s, "\n")
}

// looksLikeCommand reports whether any line of s would be parsed by the runner as a workflow
// command: "::name::" or the older "##[name]", after leading white space.
func looksLikeCommand(s string) bool {
	for line := range strings.Lines(s) {
		t := strings.TrimLeft(line, " \t\r\n\v\f")
		if strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##[") {
			return true
		}
	}
	return false
}

// commandWriter hands the SDK's command lines to the console.
type commandWriter struct {
	c      *console
	redact bool
}

func (w commandWriter) Write(p []byte) (int, error) {
	w.c.command(string(p), w.redact)
	return len(p), nil
}
