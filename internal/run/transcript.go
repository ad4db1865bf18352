package run

import (
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/agent"
)

// textKeep bounds how much assistant text one iteration keeps for the fallback output when the
// agent reports no final result. The stream itself is never held in memory.
const textKeep = 1 << 20

// transcript is what one invocation taught us, built event by event from the parsed stream.
//
// Completion signals are matched on one canonical text: everything the agent itself said
// (assistant text and its final result), never the prompt or tool output. Matching runs as the
// stream arrives, over each new piece plus a short carry-over so a signal split across deltas is
// still seen, keeping memory bounded however long the agent talks.
type transcript struct {
	signals []string
	carry   int // longest signal length - 1

	tail      string // the last carry bytes of canonical text seen
	matched   map[string]bool
	text      strings.Builder // assistant text, bounded by textKeep (oldest dropped)
	result    string
	isError   bool
	lastError string // the last non-fatal error the agent reported
	sessionID string
	usage     agent.Usage
	hasUsage  bool
	lastTool  string
}

func newTranscript(signals []string) *transcript {
	t := &transcript{signals: signals, matched: map[string]bool{}}
	for _, s := range signals {
		t.carry = max(t.carry, len(s)-1)
	}
	return t
}

// add folds one event in.
func (t *transcript) add(ev agent.Event) {
	switch ev.Kind {
	case agent.EventText:
		t.keepText(ev.Text)
		t.scan(ev.Text)
	case agent.EventResult:
		// The last result wins, an error's too: an agent that retries after a failed request
		// (pi) reports the failure and then, having recovered, its answer.
		t.result = ev.Text
		t.isError = ev.IsError
		if !ev.IsError {
			t.scan(ev.Text)
		}
	case agent.EventToolCall:
		t.lastTool = ev.Tool
	case agent.EventSession:
		t.sessionID = ev.SessionID
	case agent.EventUsage:
		t.usage.Add(ev.Usage)
		t.hasUsage = true
	case agent.EventError:
		t.lastError = ev.Text
	}
}

func (t *transcript) keepText(s string) {
	if t.text.Len()+len(s) > textKeep {
		old := t.text.String()
		keep := textKeep - len(s)
		t.text.Reset()
		if keep > 0 && keep < len(old) {
			t.text.WriteString(old[len(old)-keep:])
		}
		if len(s) > textKeep {
			s = s[len(s)-textKeep:]
		}
	}
	t.text.WriteString(s)
}

func (t *transcript) scan(s string) {
	if s == "" {
		return
	}
	window := t.tail + s
	for _, sig := range t.signals {
		if !t.matched[sig] && strings.Contains(window, sig) {
			t.matched[sig] = true
		}
	}
	if len(window) > t.carry {
		window = window[len(window)-t.carry:]
	}
	t.tail = window
}

// signal returns the first configured signal (in configuration order) that the agent printed.
func (t *transcript) signal() string {
	for _, s := range t.signals {
		if t.matched[s] {
			return s
		}
	}
	return ""
}

// final is the agent's final message: its result when it reported one, else its text.
func (t *transcript) final() string {
	if t.result != "" && !t.isError {
		return t.result
	}
	return t.text.String()
}
