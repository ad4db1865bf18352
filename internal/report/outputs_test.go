package report

import (
	"math"
	"slices"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

func TestPairsNamesAndOrder(t *testing.T) {
	want := []string{
		"status", "iterations", "completion-signal", "verified", "commits", "commit-count", "branch", "base-sha",
		"head-sha", "output", "session-id", "session-file", "total-tokens", "cost-usd", "usage",
		"log-file", "preserved-worktree", "pushed", "recovery-branch",
		"pr-number", "pr-url", "comment-url", "refusal-reason", "restored-git-files", "review-url",
		"actions", "matrix", "task-count",
	}
	pairs := Outcome{}.Pairs()
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
	o := Outcome{
		Status:            StatusComplete,
		Iterations:        []Iteration{{Number: 1, Verify: VerifyPassed}, {Number: 2, Verify: VerifyFailed}, {Number: 3}},
		Signal:            "<promise>COMPLETE</promise>",
		Commits:           []gitref.Commit{{SHA: "aaa111"}, {SHA: "bbb222"}},
		Branch:            "sandcastle/fix",
		BaseSHA:           "base",
		HeadSHA:           "head",
		Output:            &structured.Value{JSON: []byte(`{"ok":true}`), Text: `{"ok":true}`},
		SessionID:         "sess-1",
		Usage:             agent.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 5, CacheCreationTokens: 6, CostUSD: 0.0123},
		LogFile:           ".sandcastle/logs/main.log",
		PreservedWorktree: "/w/tree",
		Pushed:            true,
		RecoveryBranch:    "sandcastle/recovery/fix-1",
		PRNumber:          7,
		PRURL:             "https://github.com/o/r/pull/7",
		CommentURL:        "https://github.com/o/r/issues/3#issuecomment-9",
		RefusalReason:     "",
		RestoredGit:       []string{".git/config", ".git/hooks/post-checkout"},
		Review:            &Review{PR: 7, URL: "https://github.com/o/r/pull/7#pullrequestreview-1"},
		Actions: []triage.Action{
			{Issue: 3, Kind: triage.AddLabel, Value: "bug"},
			{Issue: 3, Kind: triage.AddLabel, Value: "wontfix", Refused: "not allowed"},
			{Issue: 4, Kind: triage.Comment, Value: "Hi", Failed: "403"},
		},
	}
	want := map[string]string{
		"status": "complete", "iterations": "3", "completion-signal": "<promise>COMPLETE</promise>", "verified": "false",
		"commits": `["aaa111","bbb222"]`, "commit-count": "2", "branch": "sandcastle/fix",
		"base-sha": "base", "head-sha": "head", "output": `{"ok":true}`, "session-id": "sess-1",
		"total-tokens": "1551", "cost-usd": "0.0123", "log-file": ".sandcastle/logs/main.log",
		"usage":              `{"input_tokens":1200,"output_tokens":340,"cache_read_tokens":5,"cache_creation_tokens":6,"cost_usd":0.0123}`,
		"preserved-worktree": "/w/tree", "pushed": "true", "recovery-branch": "sandcastle/recovery/fix-1",
		"pr-number": "7", "pr-url": "https://github.com/o/r/pull/7",
		"comment-url": "https://github.com/o/r/issues/3#issuecomment-9", "refusal-reason": "",
		"restored-git-files": `[".git/config",".git/hooks/post-checkout"]`, "output-ok": "true",
		"review-url": "https://github.com/o/r/pull/7#pullrequestreview-1",
		"actions":    `{"applied":[{"issue":3,"action":"add-label","value":"bug"}],"refused":[{"issue":3,"action":"add-label","value":"wontfix","reason":"not allowed"},{"issue":4,"action":"comment","value":"Hi","error":"403"}]}`,
	}
	for _, p := range o.Pairs() {
		if got, want := p[1], want[p[0]]; got != want {
			t.Errorf("%s = %q, want %q", p[0], got, want)
		}
	}
}

func TestPairsNoCommits(t *testing.T) {
	for _, commits := range [][]gitref.Commit{nil, {}} {
		got := map[string]string{}
		for _, p := range (Outcome{Commits: commits}).Pairs() {
			got[p[0]] = p[1]
		}
		if got["commits"] != "[]" || got["commit-count"] != "0" || got["restored-git-files"] != "[]" || got["verified"] != "" {
			t.Errorf("commits=%q commit-count=%q restored-git-files=%q, want [], 0 and []", got["commits"], got["commit-count"], got["restored-git-files"])
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

func TestPairsFieldsFollowTheDeclaredOutputsSorted(t *testing.T) {
	o := Outcome{Output: &structured.Value{JSON: []byte(`{"verdict":"clean","count":3}`)}}
	pairs := o.Pairs()
	n := len(Outcome{}.Pairs())
	if got, want := len(pairs), n+2; got != want {
		t.Fatalf("Pairs() has %d entries, want %d", got, want)
	}
	if got, want := pairs[n], [2]string{"output-count", "3"}; got != want {
		t.Errorf("first field pair = %q, want %q", got, want)
	}
	if got, want := pairs[n+1], [2]string{"output-verdict", "clean"}; got != want {
		t.Errorf("second field pair = %q, want %q", got, want)
	}
}

func TestPairsPRNumberEmptyWhenNone(t *testing.T) {
	for _, tc := range []struct {
		number int
		want   string
	}{{0, ""}, {42, "42"}} {
		for _, p := range (Outcome{PRNumber: tc.number}).Pairs() {
			if p[0] == "pr-number" && p[1] != tc.want {
				t.Errorf("PRNumber %d: pr-number = %q, want %q", tc.number, p[1], tc.want)
			}
		}
	}
}

func TestFieldOutputs(t *testing.T) {
	for _, tc := range []struct {
		name        string
		object      string
		wantFields  map[string]string
		wantSkipped []string
	}{
		{
			name:       "strings_as_is_others_compact_json",
			object:     `{"summary": "two\nlines", "count": 3, "ok": true, "tags": [ "a", "b" ], "meta": {"x": null}}`,
			wantFields: map[string]string{"summary": "two\nlines", "count": "3", "ok": "true", "tags": `["a","b"]`, "meta": `{"x":null}`},
		},
		{
			name:        "bad_names_and_collisions_skipped",
			object:      `{"tokens": 1, "Tokens": 2, "has space": "x", "a.b": "y", "fine_name-2": "z", "Fine_Name-2": "w"}`,
			wantFields:  map[string]string{"Fine_Name-2": "w", "Tokens": "2"},
			wantSkipped: []string{"a.b", "fine_name-2", "has space", "tokens"},
		},
		{name: "not_an_object", object: `["a"]`},
		{name: "string_output", object: `"text"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields, skipped := FieldOutputs([]byte(tc.object))
			if len(fields) != len(tc.wantFields) {
				t.Errorf("fields = %q, want %q", fields, tc.wantFields)
			}
			for k, want := range tc.wantFields {
				if got := fields[k]; got != want {
					t.Errorf("fields[%q] = %q, want %q", k, got, want)
				}
			}
			if !slices.Equal(skipped, tc.wantSkipped) {
				t.Errorf("skipped = %q, want %q", skipped, tc.wantSkipped)
			}
		})
	}
}

// TestUsageWithoutCost: an agent that reports no cost leaves cost-usd empty and usage's cost_usd
// null, so a chart tells "free" from "unknown".
func TestUsageWithoutCost(t *testing.T) {
	got := map[string]string{}
	for _, p := range (Outcome{Usage: agent.Usage{InputTokens: 3, OutputTokens: 4}}).Pairs() {
		got[p[0]] = p[1]
	}
	if got["cost-usd"] != "" || got["total-tokens"] != "7" || got["usage"] != `{"input_tokens":3,"output_tokens":4,"cache_read_tokens":0,"cache_creation_tokens":0,"cost_usd":null}` {
		t.Errorf("cost-usd %q, total-tokens %q, usage %s", got["cost-usd"], got["total-tokens"], got["usage"])
	}
}
