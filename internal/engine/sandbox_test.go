package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestRun_container_guards_the_git_directory: with a container, what the agent changes in the
// git directory is put back after the sandbox's hook and after each iteration, warned about
// and reported; the guard closes once the container is gone, and its failure fails the run.
func TestRun_container_guards_the_git_directory(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	r.plan.Config.Hooks.SandboxReady = []string{"true"}
	g := &fakeGuard{
		checks:   [][]Change{{{Path: ".git/hooks/pre-commit", What: "created"}}, {{Path: ".git/config", What: "changed"}}},
		onClose:  []Change{{Path: ".git/config", What: "changed"}},
		closeErr: errors.New("gitguard: could not put back .git/config"),
	}
	r.sbx.container = &fakeContainer{guard: g}
	o, err := r.run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "could not put back") || o.Status != report.StatusFailed {
		t.Errorf("Run = %+v, %v; want the guard's failure", o, err)
	}
	if g.checked != 2 || !g.closed || !r.sbx.container.closed {
		t.Errorf("checked %d times, closed %v, container closed %v; want after the hook and the iteration, then closed", g.checked, g.closed, r.sbx.container.closed)
	}
	if want := []string{".git/config", ".git/hooks/pre-commit"}; !slices.Equal(o.RestoredGit, want) || !o.GitGuarded {
		t.Errorf("restored %q, want %q, each once and sorted", o.RestoredGit, want)
	}
	if !strings.Contains(r.stdout.String(), "each was put back as it was, or moved out of the working tree: .git/hooks/pre-commit (created)") {
		t.Errorf("no warning about the planted hook:\n%s", r.stdout.String())
	}
}

// TestRun_container_copied: a workspace copied into the container has its commits read through
// the copy, and the last ones brought out before the container goes.
func TestRun_container_copied(t *testing.T) {
	r := newRig(t, models.Text("Done. "+signal))
	c := &fakeContainer{guard: &fakeGuard{}}
	c.synced = &fakeSynced{closed: &c.closed}
	r.sbx.container = c
	r.ws.commits = []gitref.Commit{agentCommit}
	o, err := r.run(t.Context())
	if err != nil || len(o.Commits) != 1 {
		t.Fatalf("Run = %+v, %v", o, err)
	}
	s := c.synced
	if s.commits == 0 || !s.finished || s.late {
		t.Errorf("synced: %d reads, finished %v, after the container closed %v; want reads through the copy, finished first", s.commits, s.finished, s.late)
	}
	if !strings.Contains(r.stdout.String(), "never committed") {
		t.Errorf("the copy's warning is not shown:\n%s", r.stdout.String())
	}
}

// TestRun_container_fails_to_start: a container that cannot start fails the run before the
// agent.
func TestRun_container_fails_to_start(t *testing.T) {
	r := newRig(t)
	r.sbx.containerErr = &inputs.RuntimeError{Input: inputs.InputSandbox, Err: errors.New("no daemon")}
	if _, err := r.run(t.Context()); err == nil || !strings.Contains(err.Error(), `input "sandbox": no daemon`) {
		t.Errorf("Run = %v", err)
	}
}

// TestRun_resumes_a_session: the session to resume is carried into the sandbox before the
// agent runs, and each session is saved.
func TestRun_resumes_a_session(t *testing.T) {
	r := newRig(t) // claude fails before it takes a step
	r.plan.Config.ResumeSession = "not-kept-by-the-fake"
	r.sbx.sessions = &fakeSessions{}
	o, _ := r.run(t.Context())
	if !slices.Equal(r.sbx.sessions.restored, []string{"not-kept-by-the-fake"}) {
		t.Errorf("restored %q", r.sbx.sessions.restored)
	}
	if len(r.claude.Calls()) != 1 || !slices.Contains(r.claude.Calls()[0].Args, "--resume") || o.Status != report.StatusFailed {
		t.Errorf("calls %+v, outcome %+v; want claude to resume, and fail on a session it has not", r.claude.Calls(), o)
	}
}

// TestPreview: the prompt's commands run in the sandbox as the run's first iteration would,
// on the checkout as it is, and the sandbox goes again; with a container the git directory is
// guarded.
func TestPreview(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		r := newRig(t)
		tmpl, err := prompt.Parse("On {{SOURCE_BRANCH}}: !`echo ran in $PWD`")
		if err != nil {
			t.Fatal(err)
		}
		if r.plan.Prompt, err = tmpl.Render(prompt.Values("work", "main", nil, nil)); err != nil {
			t.Fatal(err)
		}
		r.plan.PromptWarnings = []string{`prompt-args: "X" is not used by the prompt`}
		r.plan.Checkout = r.ws
		r.plan.Config.Hooks.WorktreeReady = []string{"exit 1"} // no hook runs
		var g *fakeGuard
		if guarded {
			g = &fakeGuard{}
			r.sbx.container = &fakeContainer{guard: g}
		}
		text, err := Preview(t.Context(), r.plan, r.deps())
		if err != nil || text != "On work: ran in "+r.ws.dir {
			t.Errorf("guarded %v: Preview = %q, %v", guarded, text, err)
		}
		if !strings.Contains(r.stdout.String(), `"X" is not used`) || !strings.Contains(r.stdout.String(), "!`echo ran in $PWD` ran") {
			t.Errorf("guarded %v: the log lacks the warning or the command:\n%s", guarded, r.stdout.String())
		}
		if guarded && (!g.closed || !r.sbx.container.closed) {
			t.Error("the preview's container or guard was left")
		}
	}
}
