package event

import "slices"

// Labels are the label names of the run state machine. An empty name is never added or
// removed, so a caller can turn off one state by leaving it out.
type Labels struct {
	Trigger    string // the label that starts a run
	InProgress string // present while a run works on the issue
	Blocked    string // left behind by a failed run
}

// Start is the change when a run begins: add InProgress, remove Trigger, so that labeling again
// triggers a new run, and Blocked, which a new attempt clears.
func (l Labels) Start() (add, remove []string) {
	return changes([]string{l.InProgress}, []string{l.Trigger, l.Blocked})
}

// Finish is the change when a run ends: remove InProgress and, when it failed, add Blocked.
func (l Labels) Finish(ok bool) (add, remove []string) {
	if ok {
		return changes(nil, []string{l.InProgress})
	}
	return changes([]string{l.Blocked}, []string{l.InProgress})
}

// changes drops empty and repeated names, and removes nothing it adds: a label configured for two
// states stays on.
func changes(add, remove []string) ([]string, []string) {
	var a, r []string
	for _, n := range add {
		if n != "" && !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	for _, n := range remove {
		if n != "" && !slices.Contains(a, n) && !slices.Contains(r, n) {
			r = append(r, n)
		}
	}
	return a, r
}
