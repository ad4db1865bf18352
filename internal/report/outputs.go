package report

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"slices"
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
	Pushed              bool
	RecoveryBranch      string // the branch that took the commits when the remote branch moved
	PRNumber            int    // 0 when no pull request was opened or updated
	PRURL               string
	CommentURL          string
	RefusalReason       string
	// RestoredGit are the paths in the repository's git directory the agent changed and the run
	// put back (see package gitguard).
	RestoredGit []string
	// Fields are the top-level fields of an object structured output, by name, each value a
	// string as is or compact JSON. Each becomes the output "output-<name>", after the declared
	// ones; see FieldOutputs for which names qualify.
	Fields map[string]string
}

// Pairs returns every output name and value, in the order action.yml declares them.
func (o Outputs) Pairs() [][2]string {
	prNumber := ""
	if o.PRNumber > 0 {
		prNumber = strconv.Itoa(o.PRNumber)
	}
	pairs := [][2]string{
		{"status", o.Status},
		{"iterations", strconv.Itoa(o.Iterations)},
		{"completion-signal", o.CompletionSignal},
		{"commits", jsonList(o.Commits)},
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
		{"pushed", strconv.FormatBool(o.Pushed)},
		{"recovery-branch", o.RecoveryBranch},
		{"pr-number", prNumber},
		{"pr-url", o.PRURL},
		{"comment-url", o.CommentURL},
		{"refusal-reason", o.RefusalReason},
		{"restored-git-files", jsonList(o.RestoredGit)},
	}
	for _, name := range slices.Sorted(maps.Keys(o.Fields)) {
		pairs = append(pairs, [2]string{FieldPrefix + name, o.Fields[name]})
	}
	return pairs
}

// jsonList is a list output: a JSON array of strings, [] when empty.
func jsonList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l) // strings always encode
	return string(b)
}

// FieldPrefix starts the name of the output that carries one field of an object structured
// output.
const FieldPrefix = "output-"

// FieldOutputs splits a JSON object into the values of Outputs.Fields: a string field as is,
// any other value as compact JSON. A field is left out, and named in skipped, when its name
// is not made of letters, digits, "_" and "-" (an output name must survive the runner's
// parsing and a workflow expression), or when "output-<name>" is, in any case, the name of a
// declared output (output-tokens) or of a field already taken: the runner keeps step outputs
// case-insensitively, and a later one would replace the earlier. Anything but a JSON object
// yields no fields.
func FieldOutputs(object []byte) (fields map[string]string, skipped []string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(object, &m) != nil {
		return nil, nil
	}
	var taken []string
	for _, p := range (Outputs{}).Pairs() {
		taken = append(taken, p[0])
	}
	fields = make(map[string]string, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out := FieldPrefix + name
		if !fieldNameRe.MatchString(name) || slices.ContainsFunc(taken, func(t string) bool { return strings.EqualFold(t, out) }) {
			skipped = append(skipped, name)
			continue
		}
		taken = append(taken, out)
		var s string
		if json.Unmarshal(m[name], &s) == nil {
			fields[name] = s
			continue
		}
		compact, _ := json.Marshal(m[name]) // a RawMessage cut from valid JSON always marshals, compacted
		fields[name] = string(compact)
	}
	return fields, skipped
}

var fieldNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

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
