package testkit

import (
	"fmt"
	"sync"
	"testing"
)

// RecordingTB records failures, skips and cleanups instead of acting on them, so tests can check
// what the kit reports. Fatalf and Skipf return, unlike the real ones.
type RecordingTB struct {
	testing.TB
	mu       sync.Mutex
	Errors   []string // what Errorf reported
	Fatals   []string // what Fatalf reported
	Skips    []string // what Skipf reported
	cleanups []func()
}

// NewRecordingTB wraps t; cleanups registered on it still run when t ends, if the test did not
// run them itself.
func NewRecordingTB(t *testing.T) *RecordingTB {
	r := &RecordingTB{TB: t}
	t.Cleanup(r.RunCleanups)
	return r
}

func (r *RecordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

func (r *RecordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Fatals = append(r.Fatals, fmt.Sprintf(format, args...))
}

func (r *RecordingTB) Skipf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Skips = append(r.Skips, fmt.Sprintf(format, args...))
}

func (r *RecordingTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.Errors) > 0 || len(r.Fatals) > 0
}

func (r *RecordingTB) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.Skips) > 0
}

func (r *RecordingTB) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// RunCleanups runs the cleanups registered so far, last first, as the end of a test would.
func (r *RecordingTB) RunCleanups() {
	r.mu.Lock()
	fs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
