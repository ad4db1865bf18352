package report

import (
	"math"
	"testing"
)

func TestPairsNamesAndOrder(t *testing.T) {
	want := []string{
		"status", "iterations", "completion-signal", "commits", "commit-count", "branch", "base-sha",
		"head-sha", "output", "session-id", "session-file", "input-tokens", "output-tokens", "cache-read-tokens",
		"cache-creation-tokens", "cost-usd", "log-file", "preserved-worktree",
	}
	pairs := Outputs{}.Pairs()
	if got, want := len(pairs), len(want); got != want {
		t.Fatalf("Pairs() has %d entries, want %d", got, want)
	}
	for i, p := range pairs {
		if got, want := p[0], want[i]; got != want {
			t.Errorf("Pairs()[%d] name = %q, want %q", i, got, want)
		}
	}
}

func TestPairsValues(t *testing.T) {
	o := Outputs{
		Status:              "success",
		Iterations:          3,
		CompletionSignal:    "<promise>COMPLETE</promise>",
		Commits:             []string{"aaa111", "bbb222"},
		Branch:              "sandcastle/fix",
		BaseSHA:             "base",
		HeadSHA:             "head",
		Output:              `{"ok":true}`,
		SessionID:           "sess-1",
		InputTokens:         1200,
		OutputTokens:        340,
		CacheReadTokens:     5,
		CacheCreationTokens: 6,
		CostUSD:             0.0123,
		CostKnown:           true,
		LogFile:             ".sandcastle/logs/main.log",
		PreservedWorktree:   "/w/tree",
	}
	want := map[string]string{
		"status": "success", "iterations": "3", "completion-signal": "<promise>COMPLETE</promise>",
		"commits": `["aaa111","bbb222"]`, "commit-count": "2", "branch": "sandcastle/fix",
		"base-sha": "base", "head-sha": "head", "output": `{"ok":true}`, "session-id": "sess-1",
		"input-tokens": "1200", "output-tokens": "340", "cache-read-tokens": "5",
		"cache-creation-tokens": "6", "cost-usd": "0.0123", "log-file": ".sandcastle/logs/main.log",
		"preserved-worktree": "/w/tree",
	}
	for _, p := range o.Pairs() {
		if got, want := p[1], want[p[0]]; got != want {
			t.Errorf("%s = %q, want %q", p[0], got, want)
		}
	}
}

func TestPairsNoCommits(t *testing.T) {
	for _, commits := range [][]string{nil, {}} {
		got := map[string]string{}
		for _, p := range (Outputs{Commits: commits}).Pairs() {
			got[p[0]] = p[1]
		}
		if got["commits"] != "[]" || got["commit-count"] != "0" {
			t.Errorf("commits=%q commit-count=%q, want [] and 0", got["commits"], got["commit-count"])
		}
	}
}

func TestFormatCost(t *testing.T) {
	tests := []struct {
		name  string
		v     float64
		known bool
		want  string
	}{
		{name: "unknown", v: 1.5, known: false, want: ""},
		{name: "zero", v: 0, known: true, want: "0"},
		{name: "whole", v: 2, known: true, want: "2"},
		{name: "trailing_zeros_trimmed", v: 0.25, known: true, want: "0.25"},
		{name: "six_decimals", v: 0.1234567, known: true, want: "0.123457"},
		{name: "tiny_rounds_to_zero", v: 0.0000001, known: true, want: "0"},
		{name: "float_noise", v: 0.1 + 0.2, known: true, want: "0.3"},
		{name: "nan", v: math.NaN(), known: true, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := formatCost(tt.v, tt.known), tt.want; got != want {
				t.Errorf("formatCost(%v, %v) = %q, want %q", tt.v, tt.known, got, want)
			}
		})
	}
}
