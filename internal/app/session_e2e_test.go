package app

import (
	"os"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestDockerSessionOutlivesContainer runs claude in a container, then resumes its session in
// a new container of a second run, then forks it in a third: the session was saved to the
// host, carried into each new sandbox, and the model sees the earlier turns every time.
func TestDockerSessionOutlivesContainer(t *testing.T) {
	a := newDockerAction(t,
		models.Text("Noted. "+signal),
		models.Text("It was PELICAN. "+signal),
		models.Text("Forked: PELICAN. "+signal),
	)
	a.input("prompt", "Remember the word PELICAN, then print "+signal)
	_, first := a.runWant(0)
	id, file := first["session-id"], first["session-file"]
	if id == "" || !strings.HasPrefix(file, a.home+"/.claude/projects/") || !strings.HasSuffix(file, "/"+id+".jsonl") {
		t.Fatalf("session-id %q, session-file %q; want the session saved in claude's store under HOME %s", id, file, a.home)
	}
	saved := readFile(t, file)
	if !strings.Contains(saved, "PELICAN") || !strings.Contains(saved, `"cwd":"`+a.dir+`"`) {
		t.Errorf("saved session lacks the prompt or the run's directory %s:\n%.2000s", a.dir, saved)
	}

	a.input("prompt", "Which word did I ask you to remember? Then print "+signal)
	a.input("resume-session", id)
	_, second := a.runWant(0)
	if got := second["session-id"]; got != id {
		t.Errorf("resumed run session-id = %q, want %q continued", got, id)
	}
	if tr := a.model.Requests()[1].Transcript(); !strings.Contains(tr, "Remember the word PELICAN") || !strings.Contains(tr, "assistant: Noted.") {
		t.Errorf("the resumed request does not carry the first run's turns:\n%s", tr)
	}
	resumed := readFile(t, file)
	if !strings.HasPrefix(resumed, saved) || !strings.Contains(resumed, "Which word") {
		t.Errorf("the saved session was not extended by the resumed run")
	}

	a.input("prompt", "Fork: which word? Then print "+signal)
	a.input("fork-session", "true")
	_, third := a.runWant(0)
	forked := third["session-id"]
	if forked == "" || forked == id {
		t.Errorf("forked run session-id = %q, want a new one beside %q", forked, id)
	}
	if tr := a.model.Requests()[2].Transcript(); !strings.Contains(tr, "Which word did I ask") {
		t.Errorf("the forked request does not carry the parent's turns:\n%s", tr)
	}
	if got := readFile(t, file); got != resumed {
		t.Errorf("forking changed the parent session file")
	}
	if _, err := os.Stat(third["session-file"]); err != nil {
		t.Errorf("forked session-file: %v", err)
	}
}

// TestDockerStructuredOutputRetryResumesSession: the retry resumes the session inside the
// same container.
func TestDockerStructuredOutputRetryResumesSession(t *testing.T) {
	checkRetryResumesSession(t, newDockerAction)
}

func TestResumeSessionMissingFailsBeforeStart(t *testing.T) {
	t.Parallel()
	a := newAction(t)
	a.input("prompt", "hello")
	a.input("resume-session", "5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93")
	before := stateOf(t, a.env, a.dir)
	inv := a.run()
	if inv.code != exitBadInput {
		t.Fatalf("exit code %d, want %d", inv.code, exitBadInput)
	}
	if want := `input "resume-session": session 5b0f8d3e-8c2a-4f1e-9d7b-2a6c1e0f4b93 not found`; !strings.Contains(inv.output(), want) {
		t.Errorf("output lacks %q:\n%s", want, inv.output())
	}
	if after := stateOf(t, a.env, a.dir); after != before {
		t.Errorf("the repository changed:\nbefore %+v\nafter  %+v", before, after)
	}
}
