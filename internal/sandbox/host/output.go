package host

import "bytes"

// lineWriter splits a stream into lines for emit. A line longer than max is cut at max bytes and
// the rest of it dropped, so one runaway line cannot exhaust memory.
type lineWriter struct {
	emit func(line []byte)
	max  int
	line []byte // the unfinished line; handed to emit, then replaced, never reused
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			return n, nil
		}
		w.add(p[:i])
		w.emitLine()
		p = p[i+1:]
	}
}

// flush delivers a last line that had no newline.
func (w *lineWriter) flush() {
	if len(w.line) > 0 {
		w.emitLine()
	}
}

func (w *lineWriter) add(p []byte) {
	room := w.max - len(w.line)
	w.line = append(w.line, p[:min(len(p), room)]...)
}

func (w *lineWriter) emitLine() {
	line := w.line
	if line == nil {
		line = []byte{}
	}
	w.line = nil
	w.emit(line)
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	buf []byte
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	b.buf = append(b.buf, p[:min(len(p), room)]...)
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= b.max {
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.max; over > 0 {
		b.buf = b.buf[:copy(b.buf, b.buf[over:])]
	}
	b.buf = append(b.buf, p...)
	return n, nil
}
