package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/structured"
)

// check is a verify-command run that prints out and exits with code; it asserts it runs as
// sh with stderr joined to stdout.
func check(t *testing.T, code int, out ...string) func(context.Context, sandbox.Exec) (sandbox.Result, error) {
	return func(_ context.Context, e sandbox.Exec) (sandbox.Result, error) {
		if want := []string{"sh", "-c", "exec 2>&1\ngo test ./..."}; !slices.Equal(e.Argv, want) {
			t.Errorf("verify argv %q, want %q", e.Argv, want)
		}
		for _, l := range out {
			e.OnLine([]byte(l))
		}
		return sandbox.Result{ExitCode: code}, nil
	}
}

func verifying(t *testing.T, iterations int) Config {
	c := config(t, iterations)
	c.Verify = "go test ./..."
	c.Redact = func(s string) string { return strings.ReplaceAll(s, "s3cr3t", "***") }
	return c
}

// TestLoopVerifyFailsThenPasses: a failing check after iteration 1 puts the end of its output,
// redacted, after an inline prompt with a line that frames it; the check passing after the
// signal of iteration 2 makes the run complete.
func TestLoopVerifyFailsThenPasses(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s1"), resultLine("wrote it", false)),
		check(t, 1, "--- FAIL: TestAdd", "token s3cr3t", "```", "FAIL"),
		lines(0, initLine("s2"), resultLine("fixed "+signal, false)),
		check(t, 0, "ok"),
	)
	log := &nopLog{}
	res, err := Loop(t.Context(), verifying(t, 5), sb, &fakeRepo{}, log)
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if res.Signal != signal || res.Unverified || len(res.Iterations) != 2 {
		t.Fatalf("signal %q, unverified %t, %d iterations; want complete after 2", res.Signal, res.Unverified, len(res.Iterations))
	}
	v1, v2 := res.Iterations[0].Verify, res.Iterations[1].Verify
	if v1 == nil || v1.Passed || v1.ExitCode != 1 || v1.Output != "--- FAIL: TestAdd\ntoken ***\n```\nFAIL" || v2 == nil || !v2.Passed || v2.Output != "" {
		t.Errorf("verify results %+v, %+v", v1, v2)
	}
	if got := sb.stdin(0); got != "do the work" {
		t.Errorf("the first prompt = %q, want it as given", got)
	}
	want := "do the work\n\nThe check run after your last iteration, `go test ./...`, exited with code 1. Fix what it reports; the end of its output:\n\n````\n--- FAIL: TestAdd\ntoken ***\n```\nFAIL\n````\n"
	if got := sb.stdin(2); got != want {
		t.Errorf("the second prompt = %q\nwant %q", got, want)
	}
}

// TestLoopVerifyOutputPlaceholder: a template with {{VERIFY_OUTPUT}} gets the output there, and
// nothing appended; once the check passes it is empty again.
func TestLoopVerifyOutputPlaceholder(t *testing.T) {
	t.Parallel()
	tmpl, err := prompt.Parse("Work.\n<checks>{{VERIFY_OUTPUT}}</checks>")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := tmpl.Render(prompt.Values("b", "main", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, resultLine("one", false)), check(t, 2, "lint: unused x"),
		lines(0, resultLine("two", false)), check(t, 0),
		lines(0, resultLine("three", false)), check(t, 0),
	)
	c := verifying(t, 3)
	c.Prompt = pr
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	for i, want := range []string{"Work.\n<checks></checks>", "Work.\n<checks>lint: unused x</checks>", "Work.\n<checks></checks>"} {
		if got := sb.stdin(2 * i); got != want {
			t.Errorf("prompt %d = %q, want %q", i+1, got, want)
		}
	}
	if res.Unverified || res.Signal != "" {
		t.Errorf("unverified %t, signal %q; want incomplete: the check passed, no signal", res.Unverified, res.Signal)
	}
}

// TestLoopSignalWithFailingVerifyGoesOn: a signal while the check fails is not the end; the log
// says why, and running out of iterations with the check failing is unverified. The structured
// output is read from the iteration that signalled.
func TestLoopSignalWithFailingVerifyGoesOn(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(
		lines(0, initLine("s1"), resultLine(`<result>first</result> `+signal, false)), check(t, 1, "FAIL a"),
		lines(0, initLine("s2"), resultLine("still at it", false)), check(t, 1, "FAIL b"),
	)
	c := verifying(t, 2)
	c.Output = &structured.Spec{Tag: "result", Kind: structured.String}
	log := &nopLog{}
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, log)
	if err != nil {
		t.Fatalf("Loop: %v", err)
	}
	if res.Signal != "" || !res.Unverified || len(res.Iterations) != 2 || res.Iterations[0].Signal != signal {
		t.Errorf("signal %q, unverified %t, iterations %+v; want the loop on past the signal, then unverified", res.Signal, res.Unverified, res.Iterations)
	}
	if res.Output == nil || res.Output.Text != "first" {
		t.Errorf("output %+v, want the signalling iteration's", res.Output)
	}
	for _, want := range []string{"Agent signalled completion, but verify-command failed after iteration 1: the loop goes on", "Reached max iterations (2) with verify-command still failing"} {
		if !slices.Contains(log.statuses, want) {
			t.Errorf("statuses %q lack %q", log.statuses, want)
		}
	}
}

// TestLoopVerifyOutputBounded: only the end of a long output reaches the prompt: its last lines,
// at most 4 KiB, never half a character.
func TestLoopVerifyOutputBounded(t *testing.T) {
	t.Parallel()
	var out []string
	for i := range 500 {
		out = append(out, fmt.Sprintf("line %03d %s", i, strings.Repeat("é", 40)))
	}
	sb := &fakeSandbox{t: t}
	sb.add(lines(0, resultLine("a", false)), check(t, 1, out...))
	res, err := Loop(t.Context(), verifying(t, 1), sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Iterations[0].Verify.Output
	if len(got) > verifyBytes || !strings.HasSuffix(got, out[499]) || strings.Contains(got, "line 439") || !strings.HasPrefix(got, "é") && !strings.HasPrefix(got, "line") {
		t.Errorf("kept %d bytes, from %.20q to %.20q; want at most %d, the last lines, whole characters", len(got), got, got[max(len(got)-20, 0):], verifyBytes)
	}
}

// TestLoopVerifyTimesOut: a check past the shell timeout is stopped and counts as failing.
func TestLoopVerifyTimesOut(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	sb.add(lines(0, resultLine("a "+signal, false)), func(ctx context.Context, e sandbox.Exec) (sandbox.Result, error) {
		e.OnLine([]byte("running..."))
		<-ctx.Done()
		return sandbox.Result{ExitCode: 137, Signaled: true}, ctx.Err()
	})
	c := verifying(t, 1)
	c.ShellTimeout = time.Millisecond
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Iterations[0].Verify; v == nil || v.Passed || !v.TimedOut || !strings.Contains(v.Output, "running...\n(stopped after the shell timeout") || !res.Unverified {
		t.Errorf("verify %+v, unverified %t; want a timed-out failure", v, res.Unverified)
	}
}

// TestLoopCostBudget: the cost the agent reported is checked after each iteration; reaching the
// budget before the last stops the loop with a BudgetError, the commits kept.
func TestLoopCostBudget(t *testing.T) {
	t.Parallel()
	sb := &fakeSandbox{t: t}
	for range 2 { // each reports $0.25
		sb.add(lines(0, resultLine("more to do", false)))
	}
	c := config(t, 5)
	c.MaxCostUSD = 0.5
	res, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{})
	var be *BudgetError
	if !errors.As(err, &be) || be.Budget != "max-cost-usd" || err.Error() != "budget max-cost-usd reached: the agent reported $0.5 after 2 iteration(s), and the budget is $0.5; the run stopped and keeps what was committed (raise the timeouts input's max-cost-usd to let it go on)" {
		t.Fatalf("error %v, want the cost budget named", err)
	}
	if len(res.Iterations) != 2 || !slices.Equal(shas(res.Commits), []string{"c1", "c2"}) {
		t.Errorf("iterations %d, commits %v; want 2 and both kept", len(res.Iterations), shas(res.Commits))
	}
}

// TestLoopCostBudgetAtTheEnd: a budget reached by the last iteration, or by one that completed
// the work, stops nothing.
func TestLoopCostBudgetAtTheEnd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		iterations int
		lines      []string
	}{
		{"last_iteration", 2, []string{resultLine("a", false), resultLine("b", false)}},
		{"completed", 3, []string{resultLine("a", false), resultLine("done "+signal, false)}},
	} {
		sb := &fakeSandbox{t: t}
		for _, l := range tt.lines {
			sb.add(lines(0, l))
		}
		c := config(t, tt.iterations)
		c.MaxCostUSD = 0.5
		if _, err := Loop(t.Context(), c, sb, &fakeRepo{}, &nopLog{}); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
