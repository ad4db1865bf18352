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

// Pairs returns every step output's name and value, in the order action.yml declares them,
// then one output-<field> for each field of an object structured output (see FieldOutputs).
func (o Outcome) Pairs() [][2]string {
	prNumber := ""
	if o.PRNumber > 0 {
		prNumber = strconv.Itoa(o.PRNumber)
	}
	output := ""
	var fields map[string]string
	if o.Output != nil {
		output = o.Output.Text
		fields, _ = FieldOutputs(o.Output.JSON)
	}
	shas := make([]string, len(o.Commits))
	for i, c := range o.Commits {
		shas[i] = c.SHA
	}
	reviewURL := ""
	if o.Review != nil {
		reviewURL = o.Review.URL
	}
	applied, refused := actionLists(o.Actions)
	pairs := [][2]string{
		{"status", string(o.Status)},
		{"iterations", strconv.Itoa(len(o.Iterations))},
		{"completion-signal", o.Signal},
		{"commits", jsonList(shas)},
		{"commit-count", strconv.Itoa(len(o.Commits))},
		{"branch", o.Branch},
		{"base-sha", o.BaseSHA},
		{"head-sha", o.HeadSHA},
		{"output", output},
		{"session-id", o.SessionID},
		{"session-file", o.SessionFile},
		{"input-tokens", strconv.FormatInt(o.InputTokens, 10)},
		{"output-tokens", strconv.FormatInt(o.OutputTokens, 10)},
		{"cache-read-tokens", strconv.FormatInt(o.CacheReadTokens, 10)},
		{"cache-creation-tokens", strconv.FormatInt(o.CacheCreationTokens, 10)},
		{"cost-usd", formatCost(o.CostUSD, costKnown(o.Usage))},
		{"log-file", o.LogFile},
		{"preserved-worktree", o.PreservedWorktree},
		{"pushed", strconv.FormatBool(o.Pushed)},
		{"recovery-branch", o.RecoveryBranch},
		{"pr-number", prNumber},
		{"pr-url", o.PRURL},
		{"comment-url", o.CommentURL},
		{"refusal-reason", o.RefusalReason},
		{"restored-git-files", jsonList(o.RestoredGit)},
		{"review-url", reviewURL},
		{"applied-actions", applied},
		{"refused-actions", refused},
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		pairs = append(pairs, [2]string{FieldPrefix + name, fields[name]})
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

// FieldOutputs splits a JSON object into the values of its field outputs: a string field as is,
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
	for _, p := range (Outcome{}).Pairs() {
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
