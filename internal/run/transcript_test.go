package run

import (
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"
)

func TestTranscriptSignal(t *testing.T) {
	t.Parallel()
	text := func(s string) agent.Event { return agent.Event{Kind: agent.EventText, Text: s} }
	result := func(s string, isErr bool) agent.Event {
		return agent.Event{Kind: agent.EventResult, Text: s, IsError: isErr}
	}
	tests := []struct {
		name    string
		signals []string
		events  []agent.Event
		want    string
	}{
		{"in_result", []string{"<promise>COMPLETE</promise>"}, []agent.Event{text("working"), result("done <promise>COMPLETE</promise>", false)}, "<promise>COMPLETE</promise>"},
		{"in_intermediate_text", []string{"DONE"}, []agent.Event{text("DONE now"), text("more"), result("bye", false)}, "DONE"},
		{"split_across_deltas", []string{"<promise>COMPLETE</promise>"}, []agent.Event{text("ok <promise>COM"), text("PLETE</pro"), text("mise>")}, "<promise>COMPLETE</promise>"},
		{"none", []string{"DONE"}, []agent.Event{text("not yet"), result("still not", false)}, ""},
		{"error_result_never_counts", []string{"DONE"}, []agent.Event{result("error: DONE", true)}, ""},
		{"configuration_order_wins", []string{"B", "A"}, []agent.Event{text("A then B")}, "B"},
		{"tool_calls_ignored", []string{"DONE"}, []agent.Event{{Kind: agent.EventToolCall, Tool: "Bash", Args: "echo DONE"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newTranscript(tt.signals)
			for _, ev := range tt.events {
				tr.add(ev)
			}
			if got := tr.signal(); got != tt.want {
				t.Errorf("signal() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTranscriptFinal(t *testing.T) {
	t.Parallel()
	tr := newTranscript([]string{"X"})
	tr.add(agent.Event{Kind: agent.EventText, Text: "part one "})
	tr.add(agent.Event{Kind: agent.EventText, Text: "part two"})
	if got, want := tr.final(), "part one part two"; got != want {
		t.Errorf("final() without result = %q, want %q", got, want)
	}
	tr.add(agent.Event{Kind: agent.EventResult, Text: "the answer"})
	if got, want := tr.final(), "the answer"; got != want {
		t.Errorf("final() with result = %q, want %q", got, want)
	}
}

func TestTranscriptTextBounded(t *testing.T) {
	t.Parallel()
	tr := newTranscript([]string{"<end>"})
	chunk := strings.Repeat("x", 64<<10)
	for range 40 { // 2.5 MiB of text
		tr.add(agent.Event{Kind: agent.EventText, Text: chunk})
	}
	tr.add(agent.Event{Kind: agent.EventText, Text: "<end>"})
	if got := tr.text.Len(); got > textKeep {
		t.Errorf("kept %d bytes of text, want at most %d", got, textKeep)
	}
	if !strings.HasSuffix(tr.final(), "<end>") {
		t.Error("final() lost the newest text")
	}
	if got := tr.signal(); got != "<end>" {
		t.Errorf("signal() = %q, want <end>", got)
	}
}

func TestTranscriptUsageAddsUp(t *testing.T) {
	t.Parallel()
	tr := newTranscript(nil)
	if tr.hasUsage {
		t.Fatal("hasUsage before any usage event")
	}
	// Per-step reports (opencode's step_finish, pi's assistant messages) add up.
	tr.add(agent.Event{Kind: agent.EventUsage, Usage: agent.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: 100, CostUSD: 0.5}})
	tr.add(agent.Event{Kind: agent.EventUsage, Usage: agent.Usage{InputTokens: 5, OutputTokens: 1, CacheCreationTokens: 7, CostUSD: 0.25}})
	want := agent.Usage{InputTokens: 15, OutputTokens: 3, CacheReadTokens: 100, CacheCreationTokens: 7, CostUSD: 0.75}
	if !tr.hasUsage || tr.usage != want {
		t.Errorf("usage = %+v (has %t), want %+v", tr.usage, tr.hasUsage, want)
	}
}

func TestTranscriptRecoversFromAnErrorResult(t *testing.T) {
	t.Parallel()
	tr := newTranscript(nil)
	tr.add(agent.Event{Kind: agent.EventResult, Text: "overloaded", IsError: true})
	if !tr.isError {
		t.Fatal("isError = false after an error result")
	}
	// pi retries a failed request and then answers: the run succeeded.
	tr.add(agent.Event{Kind: agent.EventResult, Text: "the answer"})
	if tr.isError || tr.final() != "the answer" {
		t.Errorf("after a later answer: isError %t, final %q; want no error and the answer", tr.isError, tr.final())
	}
}
