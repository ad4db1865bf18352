package runner

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/structured"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// env is a fake environment.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// actionsEnv is an Actions environment with output and summary files under a temp dir.
func actionsEnv(t *testing.T) (getenv func(string) string, outputFile, summaryFile string) {
	dir := t.TempDir()
	outputFile = filepath.Join(dir, "output")
	summaryFile = filepath.Join(dir, "summary")
	return env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": outputFile, "GITHUB_STEP_SUMMARY": summaryFile}), outputFile, summaryFile
}

// readOutputs parses a GITHUB_OUTPUT file the way the runner does: name=value lines and
// name<<DELIM heredocs.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			var value []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				value = append(value, sc.Text())
			}
			if !closed {
				t.Fatalf("heredoc for %s not closed", name)
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("malformed output line %q", line)
		}
		out[name] = value
	}
	return out
}

func TestSetOutputsInActions(t *testing.T) {
	getenv, outputFile, _ := actionsEnv(t)
	var stdout bytes.Buffer
	r := New(&stdout, getenv)
	o := report.Outcome{
		Status:     report.StatusComplete,
		Iterations: []report.Iteration{{Number: 1}, {Number: 2}},
		Signal:     "<promise>\nCOMPLETE</promise>",
		Commits:    []gitref.Commit{{SHA: "a1"}, {SHA: "b2"}},
		Output:     &structured.Value{JSON: []byte(`{"a":"x=y"}`), Text: `{"a":"x=y"}`},
		Usage:      agent.Usage{CostUSD: 0.5},
	}
	if err := r.SetOutputs(o); err != nil {
		t.Fatalf("SetOutputs: %v", err)
	}
	got := readOutputs(t, outputFile)
	for _, p := range o.Pairs() {
		if got[p[0]] != p[1] {
			t.Errorf("output %s = %q, want %q", p[0], got[p[0]], p[1])
		}
	}
	if got, want := len(got), len(o.Pairs()); got != want {
		t.Errorf("file has %d outputs, want %d", got, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestSetOutputsRedacts(t *testing.T) {
	getenv, outputFile, _ := actionsEnv(t)
	r := New(&bytes.Buffer{}, getenv)
	r.Mask("tok-12345")
	if err := r.SetOutputs(report.Outcome{Status: report.StatusComplete, Output: &structured.Value{Text: `{"leak":"tok-12345"}`}, Branch: "b-tok-12345"}); err != nil {
		t.Fatalf("SetOutputs: %v", err)
	}
	got := readOutputs(t, outputFile)
	if got["output"] != `{"leak":"***"}` || got["branch"] != "b-***" {
		t.Errorf("output = %q, branch = %q; want the secret redacted", got["output"], got["branch"])
	}
}

// TestSetOutputsDelimiterInjection: a value holding a delimiter of the output file, the one
// go-githubactions uses or one of ours, neither forges another output nor makes the outputs
// fail: every value gets a random delimiter it does not contain.
func TestSetOutputsDelimiterInjection(t *testing.T) {
	getenv, outputFile, _ := actionsEnv(t)
	r := New(&bytes.Buffer{}, getenv)
	forged := "x\n_GitHubActionsFileCommandDelimeter_\nstatus<<EOF\nforged\nEOF\nghadelimiter_0123\n"
	if err := r.SetOutputs(report.Outcome{Status: report.StatusComplete, Output: &structured.Value{Text: forged}}); err != nil {
		t.Fatalf("SetOutputs: %v", err)
	}
	got := readOutputs(t, outputFile)
	if got["status"] != string(report.StatusComplete) || got["output"] != forged {
		t.Errorf("status = %q, output = %q; want success and the value intact", got["status"], got["output"])
	}
	data, _ := os.ReadFile(outputFile)
	delims := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		if _, d, ok := strings.Cut(strings.TrimSpace(line), "<<"); ok && strings.HasPrefix(d, "ghadelimiter_") {
			delims[d] = true
		}
	}
	if len(delims) != len((report.Outcome{}).Pairs()) {
		t.Errorf("%d distinct delimiters for %d outputs", len(delims), len((report.Outcome{}).Pairs()))
	}
}

func TestSetOutputsFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file func(t *testing.T) string
		want string
	}{
		{name: "unset", file: func(*testing.T) string { return "" }, want: "GITHUB_OUTPUT is not set"},
		{name: "directory", file: func(t *testing.T) string { return t.TempDir() }, want: "set outputs: "},
		{name: "missing_parent", file: func(t *testing.T) string { return filepath.Join(t.TempDir(), "no", "file") }, want: "set outputs: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(&bytes.Buffer{}, env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": tt.file(t)}))
			err := r.SetOutputs(report.Outcome{Status: report.StatusComplete})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SetOutputs error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestSetOutputsOutsideActions(t *testing.T) {
	var stdout bytes.Buffer
	r := New(&stdout, env(map[string]string{"GITHUB_OUTPUT": filepath.Join(t.TempDir(), "out")}))
	r.Mask("hidden-value")
	if err := r.SetOutputs(report.Outcome{Status: report.StatusComplete, Commits: []gitref.Commit{{SHA: "abc"}}, SessionID: "hidden-value"}); err != nil {
		t.Fatalf("SetOutputs: %v", err)
	}
	got := stdout.String()
	for _, want := range []string{"Outputs:\n  status=complete\n", "  commits=[\"abc\"]\n", "  commit-count=1\n", "  session-id=***\n", "  cost-usd=\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, got)
		}
	}
}

func TestSummary(t *testing.T) {
	getenv, _, summaryFile := actionsEnv(t)
	r := New(&bytes.Buffer{}, getenv)
	r.Mask("p4ssw0rd")
	for _, md := range []string{"## one p4ssw0rd\n", "## two\n"} {
		if err := r.Summary(md); err != nil {
			t.Fatalf("Summary: %v", err)
		}
	}
	data, err := os.ReadFile(summaryFile)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), "## one ***\n\n## two\n\n"; got != want {
		t.Errorf("summary file = %q, want %q", got, want)
	}
}

func TestSummaryErrors(t *testing.T) {
	r := New(&bytes.Buffer{}, env(map[string]string{"GITHUB_ACTIONS": "true"}))
	if err := r.Summary("x"); err == nil {
		t.Error("Summary without GITHUB_STEP_SUMMARY succeeded, want an error")
	}
	r = New(&bytes.Buffer{}, env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": t.TempDir()}))
	if err := r.Summary("x"); err == nil || !strings.HasPrefix(err.Error(), "write job summary: ") {
		t.Errorf("Summary to a directory: error = %v, want a write job summary error", err)
	}
}

func TestSummaryOutsideActionsIsNoOp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "summary")
	var stdout bytes.Buffer
	r := New(&stdout, env(map[string]string{"GITHUB_STEP_SUMMARY": file}))
	if err := r.Summary("## hello\n"); err != nil {
		t.Fatalf("Summary: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("summary file written outside Actions (stat error %v)", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestMaskInActions(t *testing.T) {
	var stdout bytes.Buffer
	r := New(&stdout, env(map[string]string{"GITHUB_ACTIONS": "true"}))
	r.Mask("abc") // too short to mask
	r.Mask("first-line\nsecond-line")
	r.Warning("leaked second-line and first-line")
	want := "::add-mask::first-line%0Asecond-line\n" +
		"::add-mask::first-line\n" +
		"::add-mask::second-line\n" +
		"::add-mask::first-line\\nsecond-line\n" + // as it appears inside JSON
		"::warning::leaked *** and ***\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout =\n%s\nwant\n%s", got, want)
	}
}

func TestMaskOutsideActions(t *testing.T) {
	var stdout bytes.Buffer
	r := New(&stdout, env(nil))
	r.Mask("my-token")
	r.Warning("using my-token")
	if got, want := stdout.String(), "warning: using ***\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestAnnotationsAndGroups(t *testing.T) {
	tests := []struct {
		name    string
		actions bool
		want    string
	}{
		{
			name:    "actions",
			actions: true,
			want:    "::group::Iteration 1\nn\n::warning::w%0Asecond\n::error::e 100%25\n::endgroup::\n",
		},
		{
			name: "terminal",
			want: "== Iteration 1\nn\nwarning: w\nsecond\nerror: e 100%\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			if tt.actions {
				vars["GITHUB_ACTIONS"] = "true"
			}
			var stdout bytes.Buffer
			r := New(&stdout, env(vars))
			end := r.Group("Iteration 1")
			r.Info("n")
			r.Warning("w\nsecond")
			r.Error("e 100%")
			end()
			if got := stdout.String(); got != tt.want {
				t.Errorf("stdout =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestReporterInfoIsAPlainRedactedLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := New(&out, func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return "true"
		}
		return ""
	})
	r.Mask("hunter22")
	out.Reset()
	if got := r.Redactor().Redact("hunter22"); got != "***" {
		t.Errorf("Redactor().Redact = %q, want the mask", got)
	}
	r.Info("created worktree with hunter22")
	if got, want := out.String(), "created worktree with ***\n"; got != want {
		t.Errorf("Info wrote %q, want %q (no annotation, secret masked)", got, want)
	}
}

// FuzzSetOutputsValue: whatever text a value holds (the agent's output, a branch name), the
// runner reads every output back as written, and no value changes another.
func FuzzSetOutputsValue(f *testing.F) {
	for _, seed := range []string{"", "plain", "a\nb", "status<<EOF\nforged\nEOF", "x\n_GitHubActionsFileCommandDelimeter_\nstatus=forged", "ghadelimiter_\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if strings.ContainsRune(value, '\r') || len(value) > 4096 {
			t.Skip() // the runner's line reading, which readOutputs mimics, treats \r apart
		}
		getenv, outputFile, _ := actionsEnv(t)
		if err := New(&bytes.Buffer{}, getenv).SetOutputs(report.Outcome{Status: report.StatusComplete, Output: &structured.Value{Text: value}, Branch: value}); err != nil {
			t.Fatalf("SetOutputs: %v", err)
		}
		got := readOutputs(t, outputFile)
		if got["status"] != string(report.StatusComplete) || got["output"] != value || got["branch"] != value || len(got) != len((report.Outcome{}).Pairs()) {
			t.Errorf("read back status %q, output %q, branch %q, %d outputs; want success, the value twice, %d outputs",
				got["status"], got["output"], got["branch"], len(got), len((report.Outcome{}).Pairs()))
		}
	})
}

func TestReporterCommandsLiveInsideAgentFence(t *testing.T) {
	var stdout bytes.Buffer
	r := New(&stdout, env(map[string]string{"GITHUB_ACTIONS": "true"}))
	l := r.NewLog(nil)
	l.BeginAgent()
	l.AgentText("thinking ::warning::fake")
	r.Warning("agent idle for 60s")
	r.Mask("new-secret")
	end := r.Group("g")
	l.AgentText("\n::error::fake new-secret\n")
	end()
	l.EndAgent()

	got := testkit.RunnerCommands(stdout.String())
	want := []string{"::warning::agent idle for 60s", "::add-mask::new-secret", "::group::g", "::endgroup::"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("live commands = %q, want %q\nconsole:\n%s", got, want, stdout.String())
	}
	if strings.Contains(strings.ReplaceAll(stdout.String(), "::add-mask::new-secret", ""), "new-secret") {
		t.Errorf("secret printed unredacted:\n%s", stdout.String())
	}
}

func TestLoggerWarnsAndTells(t *testing.T) {
	var stdout bytes.Buffer
	r := New(&stdout, env(map[string]string{"GITHUB_ACTIONS": "true"}))
	log := r.Logger().With("ignored", "attr").WithGroup("g")
	log.Debug("not shown")
	log.Info("created worktree", "path", "/w")
	log.Warn("could not prune", "err", "busy")
	want := "created worktree path=/w\n::warning::could not prune err=busy\n"
	if got := stdout.String(); got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
}

func TestOpenLog(t *testing.T) {
	top := t.TempDir()
	path := filepath.Join(top, ".sandcastle", "logs", "main.log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenLog(top, path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(line))
		f.Close()
	}
	if got, _ := os.ReadFile(path); string(got) != "one\ntwo\n" {
		t.Errorf("log %q, want both lines appended", got)
	}
	if _, err := OpenLog(top, filepath.Join(path, "under-a-file.log")); err == nil {
		t.Error("OpenLog under a file succeeded")
	}
	// Outside the checkout, a log-file of the user's own is made where it says.
	elsewhere := filepath.Join(t.TempDir(), "a", "run.log")
	if f, err := OpenLog(top, elsewhere); err != nil {
		t.Errorf("OpenLog outside the checkout: %v", err)
	} else {
		f.Close()
	}
}

// TestOpenLog_never_follows_a_link_in_the_checkout: the agent can replace .sandcastle/logs, or a
// log in it, with a link; the host, often root, writes nothing where it leads.
func TestOpenLog_never_follows_a_link_in_the_checkout(t *testing.T) {
	for _, swap := range []string{"logs", "log"} {
		t.Run(swap, func(t *testing.T) {
			top, outside := t.TempDir(), t.TempDir()
			logs := filepath.Join(top, ".sandcastle", "logs")
			if err := os.MkdirAll(logs, 0o755); err != nil {
				t.Fatal(err)
			}
			link := logs
			if swap == "log" {
				link = filepath.Join(logs, "main.log")
			} else if err := os.Remove(logs); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			if f, err := OpenLog(top, filepath.Join(logs, "main.log")); err == nil {
				f.Close()
				t.Error("OpenLog through a link succeeded")
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("wrote %v outside the checkout", entries)
			}
		})
	}
}
