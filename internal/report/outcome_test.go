package report

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// renderings are the three ways an Outcome is shown.
var renderings = map[string]func(Outcome) string{
	"outputs": func(o Outcome) string {
		var b strings.Builder
		for _, p := range o.Pairs() {
			b.WriteString(p[0] + "=" + p[1] + "\n")
		}
		return b.String()
	},
	"summary": Outcome.Summary,
	"comment": Outcome.Comment,
}

// leftOut are the fields of Outcome (those of the embedded agent.Usage by their own names)
// that a rendering leaves out on purpose, and why. Every other field must change every
// rendering: a field added to Outcome fails TestOutcomeFieldsReachTheirRenderings until it
// reaches all three or is listed here.
var leftOut = map[string]map[string]string{
	"Failure": {
		"outputs": "the error annotation says why; status says it failed",
		"summary": "the error annotation says why; the heading says it failed (a budget's has a row of its own)",
	},
	"MaxIterations": {"outputs": "a later step knows its own inputs", "comment": "the final comment counts the iterations that ran"},
	"Signal":        {"comment": `"finished: complete" says it`},
	"Output":        {"comment": "the structured output is for later steps, not the thread"},
	"SessionID":     {"summary": "for resuming in a later step", "comment": "for resuming in a later step"},
	"SessionFile":   {"summary": "a path on the runner, for a later step", "comment": "a path on the runner"},
	"Final": {
		"outputs": "the pull request's SUMMARY; the log shows the agent's text",
		"summary": "the pull request's SUMMARY; the log shows the agent's text",
		"comment": "the pull request's SUMMARY; only a reply (Reply, mode pr) quotes it",
	},
	"InputTokens":         usageLeftOut,
	"OutputTokens":        usageLeftOut,
	"CacheReadTokens":     usageLeftOut,
	"CacheCreationTokens": usageLeftOut,
	"CostUSD":             usageLeftOut,
	"Kept":                {"outputs": "the branch output names it", "summary": "the Branch row names it"},
	"BaseSHA":             {"summary": "commit ids are for later steps", "comment": "commit ids are for later steps"},
	"HeadSHA":             {"summary": "commit ids are for later steps", "comment": "commit ids are for later steps"},
	"PreservedWorktree":   {"comment": "a path on the runner"},
	"GitGuarded": {
		"outputs": "restored-git-files says what was put back",
		"comment": "the job summary and the annotations say what the agent changed",
	},
	"BranchURL": {
		"outputs": "the branch output names the branch, in the repository a later step knows",
		"summary": "the Branch row names the branch",
	},
	"RestoredGit":    {"comment": "the job summary and the annotations say what the agent changed"},
	"PRNote":         {"outputs": "the log says it too", "summary": "the log says it too"},
	"CommentURL":     {"comment": "the comment is where it points"},
	"LogFile":        {"comment": "a path on the runner"},
	"Review":         {"comment": "the review is on the pull request itself"},
	"Actions":        {"comment": "a triage run answers on the issues it acts on"},
	"Plan":           {"comment": "a plan run answers no issue: its tasks go to the matrix"},
	"RunURL":         {"outputs": "a later step knows its own run", "summary": "the summary is on the run's page"},
	"Iterations":     nil,
	"Status":         nil,
	"RefusalReason":  nil,
	"Commits":        nil,
	"Branch":         nil,
	"Pushed":         nil,
	"RecoveryBranch": nil,
	"PRNumber":       nil,
	"PRURL":          nil,
}

var usageLeftOut = map[string]string{
	"summary": "the usage table shows each iteration and sums them itself",
	"comment": "the comment says how the run went, not what it cost",
}

// TestOutcomeFieldsReachTheirRenderings sets each field of an outcome in turn and checks which
// renderings change: a run that ended, one that failed and one that was refused, since each
// shows other fields.
func TestOutcomeFieldsReachTheirRenderings(t *testing.T) {
	done := Outcome{Status: StatusComplete, Iterations: iterationsOf(1), Commits: commits(1), Branch: "main",
		PRNumber: 1, PRURL: "https://github.com/o/r/pull/1"}
	failed := done
	failed.Status, failed.Failure = StatusFailed, "boom"
	refused := Outcome{Status: StatusRefused, RefusalReason: "no"}
	bases := []Outcome{done, failed, refused}

	seen := map[string]bool{}
	forEachField(t, func(name string, set func(*Outcome)) {
		seen[name] = true
		want, listed := leftOut[name]
		if !listed {
			t.Errorf("field %s is new: make it reach outputs, summary and comment, or list it in leftOut with why it stays out", name)
			return
		}
		for rendering, render := range renderings {
			reached := false
			for _, base := range bases {
				changed := base
				set(&changed)
				if render(changed) != render(base) {
					reached = true
				}
			}
			why, out := want[rendering]
			switch {
			case reached && out:
				t.Errorf("%s reaches the %s, which leaves it out (%s): take it out of leftOut", name, rendering, why)
			case !reached && !out:
				t.Errorf("%s does not reach the %s", name, rendering)
			}
		}
	})
	for name := range leftOut {
		if !seen[name] {
			t.Errorf("leftOut lists %s, which Outcome does not have", name)
		}
	}
}

// forEachField calls f with the name of every field of Outcome, those of embedded structs by
// their own names, and a func that sets it to a value no base outcome has.
func forEachField(t *testing.T, f func(name string, set func(*Outcome))) {
	t.Helper()
	var walk func(typ reflect.Type, index []int)
	walk = func(typ reflect.Type, index []int) {
		for i := range typ.NumField() {
			field := typ.Field(i)
			at := append(slices.Clone(index), i)
			if field.Anonymous {
				walk(field.Type, at)
				continue
			}
			v := sentinel(t, field)
			f(field.Name, func(o *Outcome) { reflect.ValueOf(o).Elem().FieldByIndex(at).Set(v) })
		}
	}
	walk(reflect.TypeFor[Outcome](), nil)
}

// sentinel is a value for field that differs from the bases' and shows wherever it is shown.
func sentinel(t *testing.T, field reflect.StructField) reflect.Value {
	t.Helper()
	switch v := reflect.New(field.Type).Elem(); field.Type {
	case reflect.TypeFor[Status]():
		return reflect.ValueOf(StatusIncomplete)
	case reflect.TypeFor[[]Iteration]():
		return reflect.ValueOf(append(iterationsOf(2), Iteration{Number: 3, Signal: "DONE-SIGNAL"}))
	case reflect.TypeFor[[]gitref.Commit]():
		return reflect.ValueOf(append(commits(1), gitref.Commit{SHA: strings.Repeat("9", 40), Subject: "sentinel subject"}))
	case reflect.TypeFor[*structured.Value]():
		return reflect.ValueOf(&structured.Value{JSON: []byte(`{"sentinel":1}`), Text: `{"sentinel":1}`})
	case reflect.TypeFor[*Review]():
		return reflect.ValueOf(&Review{PR: 7, URL: "https://example.com/review", Inline: 2, Moved: 1})
	case reflect.TypeFor[*fanout.Plan]():
		return reflect.ValueOf(&fanout.Plan{ID: "sentinel-plan", Tasks: []fanout.Task{{ID: "sentinel-task", Title: "Sentinel", Prompt: "p"}}})
	case reflect.TypeFor[[]triage.Action]():
		return reflect.ValueOf([]triage.Action{{Issue: 7, Kind: triage.AddLabel, Value: "bug"}})
	case reflect.TypeFor[[]string]():
		return reflect.ValueOf([]string{".git/sentinel"})
	default:
		switch field.Type.Kind() {
		case reflect.String:
			v.SetString("https://example.com/" + strings.ToLower(field.Name))
		case reflect.Int, reflect.Int64:
			v.SetInt(7777)
		case reflect.Float64:
			v.SetFloat(1.25)
		case reflect.Bool:
			v.SetBool(true)
		default:
			t.Fatalf("field %s: no sentinel for %s", field.Name, field.Type)
		}
		return v
	}
}

// TestStatusCheck: every status the program emits passes, and one it never emits (a name of
// another action's, a typo) is refused, as SetOutputs refuses it.
func TestStatusCheck(t *testing.T) {
	for _, s := range Statuses() {
		if err := s.Check(); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []Status{"", "success", "failure", "max-iterations", "Complete"} {
		if err := s.Check(); err == nil {
			t.Errorf("%q passes; want it refused", s)
		}
	}
}
