package report

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Outputs are the action's step outputs.
type Outputs struct {
	Status              string
	Iterations          int
	CompletionSignal    string   // the signal the agent printed; "" when none
	Commits             []string // SHAs of the agent's commits, oldest first
	Branch              string
	BaseSHA             string
	HeadSHA             string
	Output              string // compact JSON of the structured output (a JSON string for string outputs); "" when none
	SessionID           string
	SessionFile         string
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
	CostKnown           bool // false: the agent reported no cost, and cost-usd is ""
	LogFile             string
	PreservedWorktree   string
}

// Pairs returns every output name and value, in the order action.yml declares them.
func (o Outputs) Pairs() [][2]string {
	commits := "[]"
	if len(o.Commits) > 0 {
		b, _ := json.Marshal(o.Commits) // strings always encode
		commits = string(b)
	}
	return [][2]string{
		{"status", o.Status},
		{"iterations", strconv.Itoa(o.Iterations)},
		{"completion-signal", o.CompletionSignal},
		{"commits", commits},
		{"commit-count", strconv.Itoa(len(o.Commits))},
		{"branch", o.Branch},
		{"base-sha", o.BaseSHA},
		{"head-sha", o.HeadSHA},
		{"output", o.Output},
		{"session-id", o.SessionID},
		{"session-file", o.SessionFile},
		{"input-tokens", strconv.FormatInt(o.InputTokens, 10)},
		{"output-tokens", strconv.FormatInt(o.OutputTokens, 10)},
		{"cache-read-tokens", strconv.FormatInt(o.CacheReadTokens, 10)},
		{"cache-creation-tokens", strconv.FormatInt(o.CacheCreationTokens, 10)},
		{"cost-usd", formatCost(o.CostUSD, o.CostKnown)},
		{"log-file", o.LogFile},
		{"preserved-worktree", o.PreservedWorktree},
	}
}

// formatCost writes a dollar amount with at most 6 decimals and no trailing zeros; "" when
// the cost is unknown.
func formatCost(v float64, known bool) string {
	if !known || math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}
