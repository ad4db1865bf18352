package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// Helpers shared by the tests of every provider.

// commandCase is one row of a provider's Command table.
type commandCase struct {
	name    string
	req     Request
	argv    []string
	env     map[string]string
	wantErr string // substring; "" = success
}

// checkCommands runs p.Command for each case: an error containing wantErr, or exactly argv and
// env with the prompt on stdin (or, for a CLI with a prompt size limit, in argv and nowhere else).
func checkCommands(t *testing.T, p Provider, tests []commandCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := p.Command(tt.req)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Command() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Command() error = %v", err)
			}
			if !slices.Equal(cmd.Argv, tt.argv) {
				t.Errorf("Argv =\n  %q\nwant\n  %q", cmd.Argv, tt.argv)
			}
			wantStdin := tt.req.Prompt
			if p.MaxPromptBytes > 0 {
				wantStdin = "" // the prompt is an argument, as the case's argv says
			}
			if got := cmd.Stdin; got != wantStdin {
				t.Errorf("Stdin = %q, want %q", got, wantStdin)
			}
			if got, want := fmt.Sprint(cmd.Env), fmt.Sprint(tt.env); got != want {
				t.Errorf("Env = %s, want %s", got, want)
			}
		})
	}
}

// checkPromptOnStdin checks that r's prompt, which looks like a flag and holds shell syntax,
// reaches p on stdin and never in argv.
func checkPromptOnStdin(t *testing.T, p Provider, r Request) {
	t.Helper()
	r.Prompt = "line one\n--dangerously-skip-permissions\n$(rm -rf /) 'quoted'"
	cmd, err := p.Command(r)
	if err != nil {
		t.Fatal(err)
	}
	// Any line of the prompt, as a whole argument or part of one (the flag-like line cannot be
	// tested for: a CLI's argv may hold that flag itself).
	for _, a := range cmd.Argv {
		if strings.Contains(a, "line one") || strings.Contains(a, "$(rm -rf /)") {
			t.Errorf("Argv = %q carries the prompt", cmd.Argv)
		}
	}
	if got, want := cmd.Stdin, r.Prompt; got != want {
		t.Errorf("Stdin = %q, want %q", got, want)
	}
}

// checkProviderLists checks what every provider's lists promise: each effort and permission
// mode is accepted by Command, the slices are the caller's to change, the credentials pass
// into the sandbox, and neither list hands the agent the job's GitHub token or cloud
// credentials. Whether a provider needs credentials at all is its own facts test's business
// (opencode's free default model needs none).
func checkProviderLists(t *testing.T, p Provider) {
	t.Helper()
	for _, e := range p.Efforts {
		if _, err := p.Command(Request{Effort: e}); err != nil {
			t.Errorf("Command(effort %q) = %v", e, err)
		}
	}
	for _, m := range p.PermissionModes {
		if _, err := p.Command(Request{PermissionMode: m}); err != nil {
			t.Errorf("Command(permission mode %q) = %v", m, err)
		}
	}
	// The lists are the caller's: changing them changes no other list and no later Lookup.
	lists := func(p Provider) [][]string {
		return [][]string{p.Efforts, p.PermissionModes, p.EnvNames, p.Credentials}
	}
	mine, err := Lookup(p.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range lists(mine) {
		for i := range list {
			list[i] = "changed"
		}
	}
	fresh, err := Lookup(p.Name)
	if err != nil {
		t.Fatal(err)
	}
	for i, list := range lists(fresh) {
		if want := lists(p)[i]; !slices.Equal(list, want) {
			t.Errorf("a list changed after a caller changed its copy: %q, want %q", list, want)
		}
	}
	for _, name := range p.Credentials {
		if !slices.Contains(p.EnvNames, name) {
			t.Errorf("credential %s is not in EnvNames = %q", name, p.EnvNames)
		}
	}
	for _, name := range p.EnvNames {
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "GH_") || strings.HasPrefix(name, "AWS_") || strings.HasPrefix(name, "GOOGLE_APPLICATION") {
			t.Errorf("EnvNames passes %s into the sandbox", name)
		}
	}
}

// parseFile feeds each line of testdata/name to p and returns all the events.
func parseFile(t *testing.T, p Provider, name string) []Event {
	t.Helper()
	var events []Event
	for _, line := range readLines(t, name) {
		events = p.Parse(line, events)
	}
	return events
}

// checkFileEvents parses a whole capture and compares every event with want.
func checkFileEvents(t *testing.T, p Provider, name string, want []Event) {
	t.Helper()
	if events := parseFile(t, p, name); !slices.Equal(events, want) {
		t.Errorf("%s events =\n  %s\nwant\n  %s", name, formatEvents(events), formatEvents(want))
	}
}

func readLines(tb testing.TB, name string) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	for line := range bytes.Lines(data) {
		lines = append(lines, bytes.TrimRight(line, "\n"))
	}
	return lines
}

// checkParseGolden compares the events p finds in each testdata stream, one per line with the
// number of the line that produced it, with testdata/<stream>.events.golden.
func checkParseGolden(t *testing.T, p Provider, streams []string) {
	for _, name := range streams {
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			var b strings.Builder
			for n, line := range readLines(t, name) {
				for _, ev := range p.Parse(line, nil) {
					fmt.Fprintf(&b, "%2d  %s\n", n+1, formatEvent(ev))
				}
			}
			checkGolden(t, strings.TrimSuffix(name, ".jsonl")+".events.golden", b.String())
		})
	}
}

// addFuzzLines seeds f with every line of the testdata files.
func addFuzzLines(f *testing.F, names ...string) {
	for _, name := range names {
		for _, line := range readLines(f, name) {
			f.Add(line)
		}
	}
}

// checkEventsWellFormed fails t for an event no Parse may produce from line: one of an
// unknown kind or missing the fields its kind promises, or tool args that are not one bounded
// display line.
func checkEventsWellFormed(t *testing.T, line []byte, events []Event) {
	t.Helper()
	for _, ev := range events {
		switch ev.Kind {
		case EventSession:
			if ev.SessionID == "" {
				t.Errorf("empty session id from %q", line)
			}
		case EventText:
			if ev.Text == "" {
				t.Errorf("empty text from %q", line)
			}
		case EventToolCall:
			if ev.Tool == "" {
				t.Errorf("tool call without a name from %q", line)
			}
			if strings.ContainsAny(ev.Args, "\n\r") || utf8.RuneCountInString(ev.Args) > maxArgs+1 {
				t.Errorf("args %q are not one bounded line", ev.Args)
			}
		case EventResult:
			if ev.IsError && ev.Text == "" {
				t.Errorf("error result without text from %q", line)
			}
		case EventError:
			if ev.Text == "" {
				t.Errorf("error without text from %q", line)
			}
		case EventUsage:
		default:
			t.Errorf("unknown event kind %d from %q", ev.Kind, line)
		}
	}
}

// checkSkippedCheaply checks that p finds nothing in line, a large line of a kind that makes up
// much of a real stream, and allocates next to nothing doing so: such lines must not be decoded.
func checkSkippedCheaply(t *testing.T, p Provider, line []byte) {
	t.Helper()
	if events := p.Parse(line, nil); len(events) > 0 {
		t.Fatalf("Parse(%.80s…) = %s, want nothing", line, formatEvents(events))
	}
	dst := make([]Event, 0, 4)
	if n := testing.AllocsPerRun(20, func() { p.Parse(line, dst[:0]) }); n > 4 {
		t.Errorf("Parse(%.80s…) allocates %v times, want a few at most", line, n)
	}
}

// bigOutput is about 40 KB of escaped source code, as tool output or a file written holds.
var bigOutput = strings.Repeat(`func f() { return \"x\" }\n`, 1500)

// benchmarkParse parses a few MB of stream made by repeating unit.
func benchmarkParse(b *testing.B, p Provider, unit [][]byte) {
	var lines [][]byte
	size := 0
	for size < 4<<20 {
		for _, l := range unit {
			lines = append(lines, l)
			size += len(l) + 1
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var events []Event
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			events = p.Parse(l, events[:0])
		}
	}
}

// formatEvent renders an event on one line for goldens and failure messages.
func formatEvent(ev Event) string {
	switch ev.Kind {
	case EventSession:
		return "session " + ev.SessionID
	case EventText:
		return "text " + strconv.Quote(ev.Text)
	case EventToolCall:
		return "tool " + ev.Tool + " " + strconv.Quote(ev.Args)
	case EventResult:
		if ev.IsError {
			return "result error " + strconv.Quote(ev.Text)
		}
		return "result " + strconv.Quote(ev.Text)
	case EventError:
		return "error " + strconv.Quote(ev.Text)
	case EventUsage:
		u := ev.Usage
		return fmt.Sprintf("usage input=%d output=%d cache_read=%d cache_creation=%d cost_usd=%g",
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.CostUSD)
	}
	return fmt.Sprintf("unknown %+v", ev)
}

func formatEvents(events []Event) string {
	parts := make([]string, len(events))
	for i, ev := range events {
		parts[i] = formatEvent(ev)
	}
	return strings.Join(parts, " | ")
}

// checkGolden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites the file instead.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), []byte(got))
}

// TestReportsCostAsItsCapturesShow: an agent's Spec says it reports its cost exactly when its
// parser reads one from its captured streams, since a cost budget is refused for the others and
// could never be reached with an agent that claims a cost it never reports.
func TestReportsCostAsItsCapturesShow(t *testing.T) {
	for _, p := range builtins() {
		files, err := filepath.Glob(filepath.Join("testdata", p.Name+"-*.jsonl"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no captured streams (%v)", p.Name, err)
		}
		var cost float64
		for _, f := range files {
			if strings.HasSuffix(f, "-session.jsonl") || strings.HasSuffix(f, "-rollout.jsonl") {
				continue // a session store, not a stream
			}
			for _, ev := range parseFile(t, p, filepath.Base(f)) {
				cost += ev.Usage.CostUSD
			}
		}
		if reported := cost > 0; reported != p.ReportsCost {
			t.Errorf("%s: ReportsCost %t, but its captures report a cost of %g", p.Name, p.ReportsCost, cost)
		}
	}
}
