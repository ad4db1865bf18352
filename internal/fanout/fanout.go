package fanout

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

// MaxTasks bounds a plan: GitHub runs at most 256 jobs of one matrix, and a plan of more tasks
// than a reviewer can follow is no plan.
const MaxTasks = 20

// maxID bounds a plan's and a task's id, so that sandcastle/<plan-id>/<task-id> stays short.
const maxID = 40

// Schema is the JSON Schema of a plan run's structured output.
const Schema = `{
  "type": "object",
  "required": ["tasks"],
  "additionalProperties": false,
  "properties": {
    "plan_id": {"type": "string", "minLength": 1, "maxLength": 40, "description": "A slug naming the plan: lower-case letters and digits, words joined by -."},
    "tasks": {
      "type": "array",
      "maxItems": 20,
      "description": "Independent tasks, each done by its own run on its own branch.",
      "items": {
        "type": "object",
        "required": ["id", "title", "prompt"],
        "additionalProperties": false,
        "properties": {
          "id": {"type": "string", "minLength": 1, "maxLength": 40, "description": "A slug unique in the plan: lower-case letters and digits, words joined by -."},
          "title": {"type": "string", "minLength": 1, "maxLength": 200},
          "prompt": {"type": "string", "minLength": 1, "maxLength": 20000, "description": "What the task's run is asked to do."},
          "prompt_args": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 5000}, "description": "Values of {{KEY}} placeholders in the prompt."}
        }
      }
    }
  }
}`

// Task is one task of a plan.
type Task struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Prompt     string            `json:"prompt"`
	PromptArgs map[string]string `json:"prompt_args,omitempty"`
}

// Plan is a checked plan: its id and its tasks, in the agent's order.
type Plan struct {
	ID    string
	Tasks []Task
}

// keyRe is a prompt-args key, as the prompt-args input reads one.
var keyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// shellMark starts a command in a prompt template (!`cmd`). A plan's prompts are the agent's
// text, and reach the child as its inline prompt, which is sent verbatim; a prompt that holds
// one is refused all the same, so that a workflow that writes a task's prompt to a prompt-file
// cannot be made to run the agent's command on the child's runner.
const shellMark = "!`"

// Parse reads a plan output, already checked against Schema, and checks what the schema cannot
// say: ids that make branch names, unique; prompts with no command; args with names.
// defaultID names the plan when the output does not.
func Parse(output []byte, defaultID string) (Plan, error) {
	var out struct {
		PlanID string `json:"plan_id"`
		Tasks  []Task `json:"tasks"`
	}
	if err := json.Unmarshal(output, &out); err != nil {
		return Plan{}, fmt.Errorf("plan: the structured output is not a plan: %w", err)
	}
	p := Plan{ID: defaultID, Tasks: out.Tasks}
	if out.PlanID != "" {
		p.ID = out.PlanID
	}
	if err := checkID("plan_id", p.ID); err != nil {
		return Plan{}, err
	}
	if len(p.Tasks) > MaxTasks {
		return Plan{}, fmt.Errorf("plan: %d tasks, more than the %d a plan may have", len(p.Tasks), MaxTasks)
	}
	seen := map[string]bool{}
	for i, t := range p.Tasks {
		where := fmt.Sprintf("task %d", i+1)
		if err := checkID(where+" id", t.ID); err != nil {
			return Plan{}, err
		}
		if seen[t.ID] {
			return Plan{}, fmt.Errorf("plan: %s id %q is given twice; each task needs its own id, which names its branch", where, t.ID)
		}
		seen[t.ID] = true
		if strings.TrimSpace(t.Prompt) == "" {
			return Plan{}, fmt.Errorf("plan: task %s has no prompt", t.ID)
		}
		if strings.Contains(t.Prompt, shellMark) {
			return Plan{}, fmt.Errorf("plan: task %s's prompt holds %s, a command its run would execute; a plan's prompts are text only", t.ID, shellMark)
		}
		for k := range t.PromptArgs {
			if !keyRe.MatchString(k) {
				return Plan{}, fmt.Errorf("plan: task %s's prompt_args key %q is not a valid name; use letters, digits and _, not starting with a digit", t.ID, k)
			}
		}
	}
	return p, nil
}

// checkID refuses an id that is not its own slug: lower-case ASCII letters and digits, words
// joined by one "-", so that it is a branch name's part as it is.
func checkID(what, id string) error {
	if id == "" || gitref.Slug(id, maxID) != id {
		return fmt.Errorf("plan: %s %q is not a slug; use at most %d lower-case letters and digits, words joined by -", what, id, maxID)
	}
	return nil
}

// Branch is the branch a task of plan planID works on.
func Branch(planID, taskID string) string {
	return "sandcastle/" + planID + "/" + taskID
}

// DefaultID names a plan whose output names none, after the run: runTag is the workflow run's
// id and attempt (its id alone is kept, so that a re-run of the plan job names its branches
// alike), or outside a workflow run the time it started.
func DefaultID(runTag string, actions bool) string {
	if actions {
		runTag, _, _ = strings.Cut(runTag, "-")
	}
	return "run-" + gitref.Slug(runTag, maxID-len("run-"))
}

// Matrix is the JSON that strategy.matrix reads from fromJSON: one include per task, with task,
// title, branch and prompt; {"include":[]} for no task. The child run's inline prompt is sent
// verbatim (no {{KEY}} and no command is expanded), so a task's prompt_args are put in its
// prompt here, as text, in one pass: a value that holds {{KEY}} stays as written.
func (p Plan) Matrix() string {
	type entry struct {
		Task   string `json:"task"`
		Title  string `json:"title"`
		Branch string `json:"branch"`
		Prompt string `json:"prompt"`
	}
	m := struct {
		Include []entry `json:"include"`
	}{Include: []entry{}}
	for _, t := range p.Tasks {
		m.Include = append(m.Include, entry{Task: t.ID, Title: t.Title, Branch: Branch(p.ID, t.ID), Prompt: t.prompt()})
	}
	b, _ := json.Marshal(m) // strings always encode
	return string(b)
}

// prompt is t's prompt with its args in place.
func (t Task) prompt() string {
	var pairs []string
	for k, v := range t.PromptArgs {
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	return strings.NewReplacer(pairs...).Replace(t.Prompt)
}
