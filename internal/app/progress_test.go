package app

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/githubapi"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/run"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
)

// The progress comment against the fake GitHub, with the editing goroutine's timer in the
// test's hands: each round of the goroutine ends by asking for a wait, which the test reads
// from waits and ends by sending on release.

const commentEndpoint = "/repos/{owner}/{repo}/issues/comments/{id}"

// progressRig is a progress comment on issue 42 of the fake GitHub.
type progressRig struct {
	t       *testing.T
	api     *testkit.GitHub
	prog    *progress
	waits   chan time.Duration
	release chan time.Time
}

// newProgressRig starts the comment; sleep is the API client's wait between retries.
func newProgressRig(t *testing.T, sleep func(context.Context, time.Duration) error) *progressRig {
	t.Helper()
	api := testkit.NewGitHub(t, ghToken, ghRepo)
	client, err := githubapi.New(githubapi.Options{Token: ghToken, APIURL: api.APIURL, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	h := &hub{cfg: inputs.GitHubConfig{ProgressComment: true}, api: client, owner: "octo", repo: "widgets", issue: 42, marker: "sandcastle:test"}
	r := &progressRig{t: t, api: api, waits: make(chan time.Duration), release: make(chan time.Time)}
	after := func(d time.Duration) <-chan time.Time {
		r.waits <- d
		return r.release
	}
	r.prog = startProgressWith(t.Context(), h, &report.Redactor{}, func(w string) { t.Log("warning: " + w) }, after)
	if r.prog == nil {
		t.Fatal("no progress comment")
	}
	return r
}

// round lets the editing goroutine take one more turn after its wait, and returns the wait it
// asks for at the end of that turn.
func (r *progressRig) round() time.Duration {
	r.t.Helper()
	r.release <- time.Now()
	return <-r.waits
}

func (r *progressRig) edits() int {
	r.t.Helper()
	return r.api.Calls("PATCH", commentEndpoint)
}

func (r *progressRig) body() string {
	r.t.Helper()
	c := r.api.Comments(42)
	if len(c) != 1 {
		r.t.Fatalf("comments = %+v, want one", c)
	}
	return c[0].Body
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestProgress_edits_on_change_only: updates that change nothing the comment shows cost no
// request, and the edits come at most one a minute.
func TestProgress_edits_on_change_only(t *testing.T) {
	r := newProgressRig(t, noSleep)
	r.prog.update(run.Progress{Iteration: 1, MaxIterations: 3, LastTool: "Bash(go test)"})
	if d := <-r.waits; d < time.Minute || r.edits() != 1 {
		t.Fatalf("after the first update: wait %v, %d edits; want one edit, then a minute", d, r.edits())
	}
	for range 5 {
		r.prog.update(run.Progress{Iteration: 1, MaxIterations: 3}) // same iteration, no new tool call
	}
	r.round()
	if got := r.edits(); got != 1 {
		t.Errorf("%d edits after updates that change nothing shown, want 1", got)
	}
	r.prog.update(run.Progress{Iteration: 2, MaxIterations: 3, Commits: 1})
	r.round()
	if got := r.edits(); got != 2 || !strings.Contains(r.body(), "iteration 2 of 3") {
		t.Errorf("%d edits, body %q; want the change written", got, r.body())
	}
	r.prog.finish(t.Context(), report.Outcome{Status: report.StatusComplete, Iterations: make([]report.Iteration, 2)})
	if !strings.Contains(r.body(), "finished: complete") {
		t.Errorf("final body %q", r.body())
	}
}

// TestProgress_backs_off_under_secondary_limits: an edit GitHub refuses for a secondary rate
// limit is not retried by the minute: the next one waits as long as GitHub said, and longer
// each time it refuses again, then writes the state the comment should show.
func TestProgress_backs_off_under_secondary_limits(t *testing.T) {
	r := newProgressRig(t, noSleep)
	r.api.RateLimitNext("PATCH", commentEndpoint, 2, 10*time.Minute)
	r.prog.update(run.Progress{Iteration: 1, MaxIterations: 3})
	first := <-r.waits
	if first < 9*time.Minute {
		t.Errorf("wait after a refusal saying ten minutes = %v", first)
	}
	second := r.round()
	if second <= progressInterval || r.edits() != 2 {
		t.Errorf("second refusal: wait %v after %d edits; want a back-off past the minute", second, r.edits())
	}
	if got := r.round(); got != progressInterval || r.edits() != 3 || !strings.Contains(r.body(), "iteration 1 of 3") {
		t.Errorf("after the limit lifted: wait %v, %d edits, body %q; want the state written and the minute back", got, r.edits(), r.body())
	}
}

// TestProgress_final_edit_outlasts_a_secondary_limit: GitHub refuses the final edit with a
// secondary limit of a minute; the final edit waits it out and says how the run ended.
func TestProgress_final_edit_outlasts_a_secondary_limit(t *testing.T) {
	var slept atomic.Int64
	r := newProgressRig(t, func(ctx context.Context, d time.Duration) error {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return context.DeadlineExceeded // as a real wait would end
		}
		slept.Add(int64(d))
		return nil
	})
	r.api.RateLimitNext("PATCH", commentEndpoint, 1, time.Minute)
	r.prog.finish(t.Context(), report.Outcome{Status: report.StatusComplete, Iterations: make([]report.Iteration, 1)})
	if !strings.Contains(r.body(), "finished: complete") || time.Duration(slept.Load()) != time.Minute {
		t.Errorf("final body %q after waiting %v; want the final state after a minute", r.body(), time.Duration(slept.Load()))
	}
}

// TestProgress_never_holds_the_end_of_the_run: an edit waiting out a rate limit when the run
// ends is abandoned, and the final edit goes ahead.
func TestProgress_never_holds_the_end_of_the_run(t *testing.T) {
	waiting, cancelled := make(chan struct{}), make(chan bool, 1)
	var once sync.Once
	r := newProgressRig(t, func(ctx context.Context, _ time.Duration) error {
		once.Do(func() { close(waiting) })
		select {
		case <-ctx.Done():
			cancelled <- true
			return ctx.Err()
		case <-time.After(time.Minute): // a guard, so a broken finish fails instead of hanging
			cancelled <- false
			return nil
		}
	})
	r.api.RateLimitNext("PATCH", commentEndpoint, 1, 20*time.Second)
	r.prog.update(run.Progress{Iteration: 1, MaxIterations: 3})
	<-waiting
	go func() { <-r.waits }() // the goroutine's last turn, should it get one
	r.prog.finish(t.Context(), report.Outcome{Status: report.StatusComplete, Iterations: make([]report.Iteration, 1)})
	if !<-cancelled || !strings.Contains(r.body(), "finished: complete") {
		t.Errorf("final body %q; want the waiting edit cancelled and the final state written", r.body())
	}
}
