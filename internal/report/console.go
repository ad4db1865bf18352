package report

import (
	"crypto/rand"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Console is the job log on standard output. It serialises writes, redacts them, and keeps
// untrusted text fenced: while a fence is open the runner ignores workflow commands, so only a
// line carrying the fence's random token (which the agent cannot know) ends it.
type Console struct {
	mu      sync.Mutex
	w       io.Writer
	red     *Redactor
	actions bool
	token   string // the open fence's token; "" when commands are live
	midLine bool   // the last write did not end with a newline
	tail    string // what the current line holds so far, when the last write ended mid-line
}

// NewConsole returns the console writing to w through red (nil: none). In Actions (actions
// true) agent output is fenced with ::stop-commands::.
func NewConsole(w io.Writer, red *Redactor, actions bool) *Console {
	if w == nil {
		w = io.Discard
	}
	if red == nil {
		red = &Redactor{}
	}
	return &Console{w: w, red: red, actions: actions}
}

// NewLog returns a run log writing to file (nil: no file) and this console, sharing its
// redactor and fences, so that the workflow commands written with Command stay live while
// agent output is fenced. warn shows a warning on the console (an annotation, say); nil writes
// it as a plain line.
func (c *Console) NewLog(file io.Writer, warn func(msg string)) *Log {
	return &Log{file: file, con: c, red: c.red, now: time.Now, warn: warn}
}

// text writes plain text. In Actions, text that the runner would read as a workflow command
// is written inside a fence of its own.
func (c *Console) text(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s = c.red.Redact(s)
	// The runner reads whole lines: text that only makes a command with what this line already
	// holds counts too. Fencing it ends that line first, so the line it would have joined stays
	// as harmless as it was.
	if c.actions && c.token == "" && looksLikeCommand(c.tail+s) {
		c.open()
		c.put(s)
		c.close()
		return
	}
	c.put(s)
}

// Line writes s as whole line(s): after a newline if the last write ended mid-line.
func (c *Console) Line(s string) {
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

// Command writes a workflow command of our own, closing any open fence around it; redact
// passes it through the redactor first (not for add-mask, whose secret must reach the runner
// as is).
func (c *Console) Command(s string, redact bool) {
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
func (c *Console) beginUntrusted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.actions && c.token == "" {
		c.open()
	}
}

// endUntrusted finishes the current line and closes the fence, if one is open.
func (c *Console) endUntrusted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLine()
	if c.token != "" {
		c.close()
	}
}

// open starts a fence with a fresh token; each fence gets its own so a token seen in the log
// is worth nothing later.
func (c *Console) open() {
	c.endLine()
	c.token = rand.Text()
	c.put("::stop-commands::" + c.token + "\n")
}

func (c *Console) close() {
	c.endLine()
	c.put("::" + c.token + "::\n")
	c.token = ""
}

func (c *Console) endLine() {
	if c.midLine {
		c.put("\n")
	}
}

// put writes s. The console is best effort: when stdout is gone there is nowhere left to say so.
func (c *Console) put(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(c.w, s)
	c.midLine = !strings.HasSuffix(s, "\n")
	if i := strings.LastIndexAny(s, "\r\n"); i >= 0 {
		c.tail = s[i+1:]
	} else {
		c.tail += s
	}
}

// looksLikeCommand reports whether any line of s could be read by the runner as a workflow
// command. The runner splits its input into lines at \n, \r\n and a lone \r; a line is a
// command when, after leading white space in the Unicode sense (U+00A0 and U+2003 included),
// it starts with "::", or, in the older form, when it holds "##[" anywhere.
func looksLikeCommand(s string) bool {
	for _, line := range runnerLines(s) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			return true
		}
	}
	return false
}

// runnerLines splits s into lines as the runner reads them: at \n, \r\n and \r.
func runnerLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}
