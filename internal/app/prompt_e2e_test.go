package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
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
	a := newAction(t, testkit.Text("Done. "+signal))
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
	a := newDockerAction(t, testkit.Text("Done. "+signal))
	hostileIssueRun(t, a, "")
	chownTree(t, a.dir, workspaceUID)
	checkHostileIssueRun(t, a, a.run())
	if left := containersOf(t, a.dir); left != "" {
		t.Errorf("containers left behind: %s", left)
	}
}
