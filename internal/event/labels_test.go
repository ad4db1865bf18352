package event

import (
	"slices"
	"testing"
)

func TestLabels(t *testing.T) {
	all := Labels{Trigger: "agent:implement", InProgress: "agent:in-progress", Blocked: "agent:blocked"}
	tests := []struct {
		name        string
		labels      Labels
		step        func(Labels) ([]string, []string)
		add, remove []string
	}{
		{"start", all, Labels.Start, []string{"agent:in-progress"}, []string{"agent:implement", "agent:blocked"}},
		{"finish_ok", all, func(l Labels) ([]string, []string) { return l.Finish(true) }, nil, []string{"agent:in-progress"}},
		{"finish_failed", all, func(l Labels) ([]string, []string) { return l.Finish(false) },
			[]string{"agent:blocked"}, []string{"agent:in-progress"}},
		{"start_without_trigger", Labels{InProgress: "wip"}, Labels.Start, []string{"wip"}, nil},
		{"start_nothing_configured", Labels{}, Labels.Start, nil, nil},
		{"failed_without_blocked", Labels{InProgress: "wip"}, func(l Labels) ([]string, []string) { return l.Finish(false) },
			nil, []string{"wip"}},
		{"failed_without_in_progress", Labels{Blocked: "blocked"}, func(l Labels) ([]string, []string) { return l.Finish(false) },
			[]string{"blocked"}, nil},
		{"same_label_for_trigger_and_in_progress_stays", Labels{Trigger: "agent", InProgress: "agent"}, Labels.Start,
			[]string{"agent"}, nil},
		{"same_label_for_in_progress_and_blocked_stays_on_failure", Labels{InProgress: "agent", Blocked: "agent"},
			func(l Labels) ([]string, []string) { return l.Finish(false) }, []string{"agent"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add, remove := tt.step(tt.labels)
			if !slices.Equal(add, tt.add) {
				t.Errorf("add = %q, want %q", add, tt.add)
			}
			if !slices.Equal(remove, tt.remove) {
				t.Errorf("remove = %q, want %q", remove, tt.remove)
			}
		})
	}
}
