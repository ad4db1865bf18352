package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// Values of strangers in !`command` blocks, end to end: an issue whose title and body are shell
// code, and a prompt-args value that is too, each used bare, quoted and piped. No file
// the code would create appears, every command prints the value intact, and with verbose the log
// shows the final prompt, masked, and each command with the size of its output.

// hostileTitle, hostileBody and hostileArg would each create a pwned-* file in the workspace if
// any shell ran them.
const (
	hostileTitle = `x"; touch pwned-dq; echo "y' ; touch pwned-sq; echo '$(touch pwned-sub) ` + "`touch pwned-tick`" + ` && touch pwned-and`
	hostileBody  = "first line\n$(touch pwned-body)\n\"; touch pwned-body-dq; \"\n'; touch pwned-body-sq; '\nlast line"
	hostileArg   = "two  words $(touch pwned-arg) ; touch pwned-arg-semi"
	promptSecret = "sk-prompt-secret-0123456789"
)

// hostilePrompt uses each value in every position a template may put it.
const hostilePrompt = "bare: !`printf '[%s]' {{ISSUE_TITLE}}`\n" +
	"double: !`printf '[%s]' \"{{ISSUE_TITLE}}\"`\n" +
	"single: !`printf '[%s]' '{{ISSUE_TITLE}}'`\n" +
	"piped: !`printf '[%s]' {{ISSUE_TITLE}} | cat`\n" +
	"joined: !`printf '[%s]' x{{ISSUE_TITLE}}y`\n" +
	"body: !`printf '[%s]' \"{{ISSUE_BODY}}\"`\n" +
	"arg: !`printf '[%s]' {{EXTRA}}`\n" +
	"number: !`printf '#%s' {{ISSUE_NUMBER}}`\n" +
	"secret: !`printf '%s' \"$PROMPT_SECRET\"`\n" +
	"Print " + signal + "\n"

// hostileIssueRun sets up a's run on an issue labelled by a maintainer whose title and body
// are hostileTitle and hostileBody, with hostilePrompt after extra, and verbose on.
func hostileIssueRun(t *testing.T, a *action, extra string) {
	t.Helper()
	g := withGitHub(t, a, ghToken)
	g.api.SetPermission("maintainer", "write")
	payload := labeledIssue("maintainer", "sandcastle", hostileBody)
	payload["issue"].(map[string]any)["title"] = hostileTitle
	g.event(t, "issues", payload)
	writeFile(t, filepath.Join(a.dir, ".sandcastle", "prompt.md"), extra+hostilePrompt)
	writeFile(t, filepath.Join(a.dir, ".git", "info", "exclude"), ".sandcastle/\n")
	a.input("prompt-file", ".sandcastle/prompt.md")
	a.input("prompt-args", "EXTRA: '"+hostileArg+"'")
	a.input("push", "none")
	a.input("verbose", "true")
	a.input("env", a.env[inputs.EnvName("env")]+"\nPROMPT_SECRET")
	a.env["PROMPT_SECRET"] = promptSecret
}

// checkHostileIssueRun checks what hostileIssueRun promises after a's run.
func checkHostileIssueRun(t *testing.T, a *action, inv invocation) {
	t.Helper()
	pwned, err := filepath.Glob(filepath.Join(a.dir, "pwned*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pwned) > 0 {
		t.Errorf("text of the issue or prompt-args ran as shell: %v exist", pwned)
	}
	if inv.code != 0 {
		t.Fatalf("exit %d, want 0", inv.code)
	}
	reqs := a.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the agent never asked the model")
	}
	prompt := reqs[0].Transcript()
	for _, want := range []string{
		"bare: [" + hostileTitle + "]",
		"double: [" + hostileTitle + "]",
		"single: [" + hostileTitle + "]",
		"piped: [" + hostileTitle + "]",
		"joined: [x" + hostileTitle + "y]",
		"body: [" + hostileBody + "]",
		"arg: [" + hostileArg + "]",
		"number: #42",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q, the value intact:\n%s", want, prompt)
		}
	}
	out := a.readOutputs()
	log := readFile(t, out["log-file"])
	for _, want := range []string{
		"Prompt of iteration 1",
		"bare: [" + hostileTitle + "]",
		"secret: ***",
		"!`printf '[%s]' {{ISSUE_TITLE}}` ran: ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the verbose log lacks %q:\n%s", want, log)
		}
	}
	for where, text := range map[string]string{"the log file": log, "the job log": jobLog(inv)} {
		if strings.Contains(text, promptSecret) {
			t.Errorf("%s shows the secret a command put in the prompt", where)
		}
	}
}

// TestPromptValuesNeverRunAsShell runs on the host, with a gh that prints its arguments: the
// usual way to give the agent an issue still works.
func TestPromptValuesNeverRunAsShell(t *testing.T) {
	t.Parallel()
	a := newAction(t, models.Text("Done. "+signal))
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "gh"), "#!/bin/sh\nprintf gh; printf ' [%s]' \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	a.env["PATH"] = bin + string(os.PathListSeparator) + a.env["PATH"]
	hostileIssueRun(t, a, "gh: !`gh issue view {{ISSUE_NUMBER}} --json body -q .body`\n")
	checkHostileIssueRun(t, a, a.run())
	if want := "gh: gh [issue] [view] [42] [--json] [body] [-q] [.body]\n"; !strings.Contains(a.model.Requests()[0].Transcript(), want) {
		t.Errorf("the prompt lacks %q", want)
	}
}

func TestDockerPromptValuesNeverRunAsShell(t *testing.T) {
	a := newDockerAction(t, models.Text("Done. "+signal))
	hostileIssueRun(t, a, "")
	chownTree(t, a.dir, workspaceUID)
	checkHostileIssueRun(t, a, a.run())
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}

// TestDockerPromptWrapperRefused: a prompt file whose command hides a shell behind a program
// that runs its arguments (issue 19: setarch, ssh-agent) is refused at validation, in the
// Docker sandbox with the real claude ready to run: exit 2 with the file, line, column, the
// runner and the shell it hides, and nothing started or left behind: no container, no branch,
// no line in .git/info/exclude, no request to the model, no file the title's code would create.
func TestDockerPromptWrapperRefused(t *testing.T) {
	a := newDockerAction(t) // the model has no step: a request to it fails the test too
	hostileIssueRun(t, a, "")
	// The prompt outside .sandcastle/, so that the run is seen to create nothing there.
	if err := os.RemoveAll(filepath.Join(a.dir, ".sandcastle")); err != nil {
		t.Fatal(err)
	}
	prompt := filepath.Join(a.dir, "prompt.md")
	writeFile(t, prompt, "Title: !`setarch x86_64 sh -c {{ISSUE_TITLE}}`\n")
	a.input("prompt-file", "prompt.md")
	chownTree(t, a.dir, workspaceUID)
	before := snapshot(t, a.env, a.dir)
	inv := a.run()
	if inv.code != exitBadInput {
		t.Errorf("exit %d, want %d", inv.code, exitBadInput)
	}
	// The whole line, % escaped as a workflow command escapes it.
	want := `::error::input "prompt-file": ` + prompt + ": line 1, column 10: in !`setarch x86_64 sh -c {{ISSUE_TITLE}}`: " +
		"it uses {{ISSUE_TITLE}}, so it may only be simple commands joined by |, &&, || or ;, but `setarch` runs a " +
		"program that its arguments name; here it runs `sh`, and `sh` is a shell, which runs its arguments as shell; " +
		"give a value only as an argument of a plain command, as in printf '%25s\\n' {{ISSUE_TITLE}} or " +
		"./a-script-of-the-repository {{ISSUE_TITLE}}, and do the rest in a command without placeholders"
	if !slices.Contains(strings.Split(inv.output(), "\n"), want) {
		t.Errorf("output lacks the line\n%s", want)
	}
	before.check(t, a.env, a.dir, inv)
	if reqs := a.model.Requests(); len(reqs) > 0 {
		t.Errorf("the agent asked the model %d times", len(reqs))
	}
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
	if pwned, _ := filepath.Glob(filepath.Join(a.dir, "pwned*")); len(pwned) > 0 {
		t.Errorf("the title ran as shell: %v exist", pwned)
	}
}
