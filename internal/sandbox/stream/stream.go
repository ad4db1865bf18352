package stream

import "bytes"

// MaxOutput bounds one stdout line, and collected stdout; the excess is dropped.
const MaxOutput = 16 << 20

// LineWriter splits a stream into lines for emit. A line longer than max is cut at max bytes and
// the rest of it dropped, so one runaway line cannot exhaust memory. It is not safe for
// concurrent use.
type LineWriter struct {
	emit func(line []byte)
	max  int
	line []byte // the unfinished line; handed to emit, then replaced, never reused
}

// NewLineWriter returns a LineWriter that hands each line, without its newline, to emit. emit
// may keep the line.
func NewLineWriter(max int, emit func(line []byte)) *LineWriter {
	return &LineWriter{emit: emit, max: max}
}

// Write never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
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

// Flush delivers a last line that had no newline.
func (w *LineWriter) Flush() {
	if len(w.line) > 0 {
		w.emitLine()
	}
}

func (w *LineWriter) add(p []byte) {
	room := w.max - len(w.line)
	w.line = append(w.line, p[:min(len(p), room)]...)
}

func (w *LineWriter) emitLine() {
	line := w.line
	if line == nil {
		line = []byte{}
	}
	w.line = nil
	w.emit(line)
}

// Head keeps the first max bytes written to it.
type Head struct {
	buf []byte
	max int
}

// NewHead returns a Head that keeps max bytes.
func NewHead(max int) *Head { return &Head{max: max} }

// Write never fails.
func (b *Head) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	b.buf = append(b.buf, p[:min(len(p), room)]...)
	return len(p), nil
}

// String returns what was kept.
func (b *Head) String() string { return string(b.buf) }

// Tail keeps the last max bytes written to it.
type Tail struct {
	buf []byte
	max int
}

// NewTail returns a Tail that keeps max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write never fails.
func (b *Tail) Write(p []byte) (int, error) {
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

// String returns what was kept.
func (b *Tail) String() string { return string(b.buf) }
