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

// Output is one step output of the action: its name, what it holds, and how an Outcome gives
// its value.
type Output struct {
	Name        string
	Description string // for action.yml and docs/outputs.md, which are generated from it
	value       func(o Outcome) string
}

// Outputs returns the action's outputs, in the order action.yml declares them. It is the one
// list of them: Pairs writes it, and go generate writes action.yml's outputs and
// docs/outputs.md from it.
func Outputs() []Output {
	return []Output{
		{"status", "How the run ended: complete (the agent printed a completion signal, and verify-command passed after that iteration), incomplete (max-iterations ran out without one), failed, cancelled, refused (the event may not start a run, see refusal-reason; the job stays green), skipped (the event did not address the action: a comment without a trigger phrase, another label; green too), branch-moved (the remote branch moved during the run, so the commits went to recovery-branch), unverified (max-iterations ran out with verify-command failing) or budget-exhausted (a budget, the timeouts input's run-minutes or max-cost-usd, stopped the run; what was committed was pushed, and the job's error names the budget).",
			func(o Outcome) string { return string(o.Status) }},
		{"iterations", "Number of agent iterations that ran.",
			func(o Outcome) string { return strconv.Itoa(len(o.Iterations)) }},
		{"completion-signal", "The completion signal the agent printed, empty when it printed none.",
			func(o Outcome) string { return o.Signal }},
		{"verified", "true when verify-command passed after the last iteration, false when it failed; empty without verify-command.",
			Outcome.verified},
		{"commits", "SHAs of the commits the agent made, as a JSON array.", func(o Outcome) string {
			shas := make([]string, len(o.Commits))
			for i, c := range o.Commits {
				shas[i] = c.SHA
			}
			return jsonList(shas)
		}},
		{"commit-count", "Number of commits the agent made.",
			func(o Outcome) string { return strconv.Itoa(len(o.Commits)) }},
		{"branch", "The branch the agent's commits are on.",
			func(o Outcome) string { return o.Branch }},
		{"base-sha", "The commit the run started from.",
			func(o Outcome) string { return o.BaseSHA }},
		{"head-sha", "The tip of the branch after the run.",
			func(o Outcome) string { return o.HeadSHA }},
		{"output", "The structured output read from output-tag: JSON when output-schema is set, else the tag's text; empty without output-tag. Each top-level field of a JSON object is also set as the output output-FIELD, readable as steps.ID.outputs.output-FIELD although action.yml does not declare it.", func(o Outcome) string {
			if o.Output == nil {
				return ""
			}
			return o.Output.Text
		}},
		{"session-id", "The agent's session id of the last iteration, for resuming it.",
			func(o Outcome) string { return o.SessionID }},
		{"session-file", "Where that session's file was saved on the runner (under HOME, in the agent's own store), for resume-session in a later step or to upload as an artifact. Empty for agents without sessions.",
			func(o Outcome) string { return o.SessionFile }},
		{"total-tokens", "Tokens used, summed over all iterations: input, output and prompt-cache tokens read and written (the usage output has each).",
			func(o Outcome) string {
				return strconv.FormatInt(o.InputTokens+o.OutputTokens+o.CacheReadTokens+o.CacheCreationTokens, 10)
			}},
		{"cost-usd", "Cost in US dollars as reported by the agent, summed over all iterations; empty when it reports none.",
			func(o Outcome) string { return formatCost(o.CostUSD, costKnown(o.Usage)) }},
		{"usage", "What the agent used, summed over all iterations, as a JSON object: input_tokens, output_tokens, cache_read_tokens and cache_creation_tokens, and cost_usd (null when the agent reports no cost).",
			usageJSON},
		{"log-file", "Path of the run log, empty when logging to standard output only.",
			func(o Outcome) string { return o.LogFile }},
		{"preserved-worktree", "Path of a worktree kept because it held uncommitted changes, empty when none was kept.",
			func(o Outcome) string { return o.PreservedWorktree }},
		{"pushed", "true when the run pushed the branch to GitHub, false otherwise (also when the commits went to recovery-branch instead).",
			func(o Outcome) string { return strconv.FormatBool(o.Pushed) }},
		{"recovery-branch", "The branch on GitHub that took the commits because the remote branch moved during the run (status branch-moved), or because GitHub's rules refused the branch (status failed); empty otherwise.",
			func(o Outcome) string { return o.RecoveryBranch }},
		{"pr-number", "Number of the pull request the run opened or updated, empty when none.", func(o Outcome) string {
			if o.PRNumber > 0 {
				return strconv.Itoa(o.PRNumber)
			}
			return ""
		}},
		{"pr-url", "URL of that pull request, empty when none.",
			func(o Outcome) string { return o.PRURL }},
		{"comment-url", "URL of the progress comment on the triggering issue or pull request, empty when none.",
			func(o Outcome) string { return o.CommentURL }},
		{"refusal-reason", "Why the run was refused or skipped (status refused or skipped), empty when it ran.",
			func(o Outcome) string { return o.RefusalReason }},
		{"restored-git-files", "Paths in the repository's git directory (its config, hooks, info/, the worktree links) that the agent changed in the Docker sandbox and the run put back, as a JSON array; [] when it changed none.",
			func(o Outcome) string { return jsonList(o.RestoredGit) }},
		{"review-url", "URL of the pull request review a run with output-action review posted, empty when none (nothing new to post, or another output-action).", func(o Outcome) string {
			if o.Review == nil {
				return ""
			}
			return o.Review.URL
		}},
		{"actions", "What a run with output-action triage did and refused to do, as a JSON object: applied, an array of {issue, action, value} (action add-label, remove-label, comment or close), and refused, an array of {issue, action, value, reason} or, for what failed, {..., error}; both [] when nothing.",
			actionsJSON},
		{"matrix", "The tasks of a run with output-action plan (mode plan), as the JSON strategy.matrix reads with fromJSON: {\"include\": [{task, title, branch, prompt}]}, one entry per task, its branch sandcastle/PLAN-ID/TASK-ID; {\"include\": []} when the plan has none; empty for other runs.", func(o Outcome) string {
			if o.Plan == nil {
				return ""
			}
			return o.Plan.Matrix()
		}},
		{"task-count", "Number of tasks in matrix; empty for a run without output-action plan. A workflow skips the matrix job with if: needs.plan.outputs.task-count != '0'.", func(o Outcome) string {
			if o.Plan == nil {
				return ""
			}
			return strconv.Itoa(len(o.Plan.Tasks))
		}},
	}
}

// Pairs returns every step output's name and value, in the order of Outputs, then one
// output-<field> for each field of an object structured output (see FieldOutputs).
func (o Outcome) Pairs() [][2]string {
	var pairs [][2]string
	for _, out := range Outputs() {
		pairs = append(pairs, [2]string{out.Name, out.value(o)})
	}
	if o.Output != nil {
		fields, _ := FieldOutputs(o.Output.JSON)
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			pairs = append(pairs, [2]string{FieldPrefix + name, fields[name]})
		}
	}
	return pairs
}

// usageJSON is the usage output.
func usageJSON(o Outcome) string {
	u := struct {
		Input         int64    `json:"input_tokens"`
		Output        int64    `json:"output_tokens"`
		CacheRead     int64    `json:"cache_read_tokens"`
		CacheCreation int64    `json:"cache_creation_tokens"`
		Cost          *float64 `json:"cost_usd"`
	}{Input: o.InputTokens, Output: o.OutputTokens, CacheRead: o.CacheReadTokens, CacheCreation: o.CacheCreationTokens}
	if c := formatCost(o.CostUSD, costKnown(o.Usage)); c != "" {
		// The cost as the cost-usd output rounds it, so the two agree.
		v, _ := strconv.ParseFloat(c, 64)
		u.Cost = &v
	}
	b, _ := json.Marshal(u) // numbers and a finite float always encode
	return string(b)
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
// declared output or of a field already taken: the runner keeps step outputs
// case-insensitively, and a later one would replace the earlier. Anything but a JSON object
// yields no fields.
func FieldOutputs(object []byte) (fields map[string]string, skipped []string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(object, &m) != nil {
		return nil, nil
	}
	var taken []string
	for _, out := range Outputs() {
		taken = append(taken, out.Name)
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
