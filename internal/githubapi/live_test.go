package githubapi

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit/githubfake"
)

// The live comment against the fake GitHub, with the editing goroutine's timer in the test's
// hands: each round of the goroutine ends by asking for a wait, which the test reads from
// waits and ends by sending on release.

const commentEndpoint = "/repos/{owner}/{repo}/issues/comments/{id}"

// liveRig is a live comment on issue 42 of the fake GitHub.
type liveRig struct {
	t       *testing.T
	api     *githubfake.GitHub
	live    *LiveComment
	waits   chan time.Duration
	release chan time.Time
}

// newLiveRig starts the comment; sleep is the API client's wait between retries.
func newLiveRig(t *testing.T, sleep func(context.Context, time.Duration) error) *liveRig {
	t.Helper()
	api := githubfake.NewGitHub(t, testToken, "octo/widgets")
	client, err := New(Options{Token: testToken, APIURL: api.APIURL, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	repo := &Repo{Client: client, Owner: "octo", Name: "widgets", Issue: 42, Marker: "sandcastle:test"}
	r := &liveRig{t: t, api: api, waits: make(chan time.Duration), release: make(chan time.Time)}
	r.live = repo.LiveComment(func(w string) { t.Log("warning: " + w) })
	r.live.after = func(d time.Duration) <-chan time.Time {
		r.waits <- d
		return r.release
	}
	if err := r.live.Start(t.Context(), "starting"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.live.URL(), "/issues/42#issuecomment-") {
		t.Errorf("URL = %q", r.live.URL())
	}
	return r
}

// round lets the editing goroutine take one more turn after its wait, and returns the wait it
// asks for at the end of that turn.
func (r *liveRig) round() time.Duration {
	r.t.Helper()
	r.release <- time.Now()
	return <-r.waits
}

func (r *liveRig) edits() int {
	r.t.Helper()
	return r.api.Calls("PATCH", commentEndpoint)
}

func (r *liveRig) body() string {
	r.t.Helper()
	c := r.api.Comments(42)
	if len(c) != 1 {
		r.t.Fatalf("comments = %+v, want one", c)
	}
	return c[0].Body
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestLiveComment_edits_on_change_only: bodies that change nothing cost no request, and the
// edits come at most one a minute.
func TestLiveComment_edits_on_change_only(t *testing.T) {
	r := newLiveRig(t, noSleep)
	r.live.Show("iteration 1 of 3")
	if d := <-r.waits; d < time.Minute || r.edits() != 1 {
		t.Fatalf("after the first body: wait %v, %d edits; want one edit, then a minute", d, r.edits())
	}
	for range 5 {
		r.live.Show("iteration 1 of 3")
	}
	r.round()
	if got := r.edits(); got != 1 {
		t.Errorf("%d edits after bodies that change nothing shown, want 1", got)
	}
	r.live.Show("iteration 2 of 3")
	r.round()
	if got := r.edits(); got != 2 || !strings.Contains(r.body(), "iteration 2 of 3") {
		t.Errorf("%d edits, body %q; want the change written", got, r.body())
	}
	r.live.Finish(t.Context(), "finished: complete")
	if !strings.Contains(r.body(), "finished: complete") {
		t.Errorf("final body %q", r.body())
	}
}

// TestLiveComment_backs_off_under_secondary_limits: an edit GitHub refuses for a secondary
// rate limit is not retried by the minute: the next one waits as long as GitHub said, and
// longer each time it refuses again, then writes the body the comment should show.
func TestLiveComment_backs_off_under_secondary_limits(t *testing.T) {
	r := newLiveRig(t, noSleep)
	r.api.RateLimitNext("PATCH", commentEndpoint, 2, 10*time.Minute)
	r.live.Show("iteration 1 of 3")
	first := <-r.waits
	if first < 9*time.Minute {
		t.Errorf("wait after a refusal saying ten minutes = %v", first)
	}
	second := r.round()
	if second <= liveInterval || r.edits() != 2 {
		t.Errorf("second refusal: wait %v after %d edits; want a back-off past the minute", second, r.edits())
	}
	if got := r.round(); got != liveInterval || r.edits() != 3 || !strings.Contains(r.body(), "iteration 1 of 3") {
		t.Errorf("after the limit lifted: wait %v, %d edits, body %q; want the body written and the minute back", got, r.edits(), r.body())
	}
}

// TestLiveComment_final_edit_outlasts_a_secondary_limit: GitHub refuses the final edit with a
// secondary limit of a minute; the final edit waits it out and says how the run ended.
func TestLiveComment_final_edit_outlasts_a_secondary_limit(t *testing.T) {
	var slept atomic.Int64
	r := newLiveRig(t, func(ctx context.Context, d time.Duration) error {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return context.DeadlineExceeded // as a real wait would end
		}
		slept.Add(int64(d))
		return nil
	})
	r.api.RateLimitNext("PATCH", commentEndpoint, 1, time.Minute)
	r.live.Finish(t.Context(), "finished: complete")
	if !strings.Contains(r.body(), "finished: complete") || time.Duration(slept.Load()) != time.Minute {
		t.Errorf("final body %q after waiting %v; want the final state after a minute", r.body(), time.Duration(slept.Load()))
	}
}

// TestLiveComment_never_holds_the_end_of_the_run: an edit waiting out a rate limit when the run
// ends is abandoned, and the final edit goes ahead.
func TestLiveComment_never_holds_the_end_of_the_run(t *testing.T) {
	waiting, cancelled := make(chan struct{}), make(chan bool, 1)
	var once sync.Once
	r := newLiveRig(t, func(ctx context.Context, _ time.Duration) error {
		once.Do(func() { close(waiting) })
		select {
		case <-ctx.Done():
			cancelled <- true
			return ctx.Err()
		case <-time.After(time.Minute): // a guard, so a broken Finish fails instead of hanging
			cancelled <- false
			return nil
		}
	})
	r.api.RateLimitNext("PATCH", commentEndpoint, 1, 20*time.Second)
	r.live.Show("iteration 1 of 3")
	<-waiting
	go func() { <-r.waits }() // the goroutine's last turn, should it get one
	r.live.Finish(t.Context(), "finished: complete")
	if !<-cancelled || !strings.Contains(r.body(), "finished: complete") {
		t.Errorf("final body %q; want the waiting edit cancelled and the final state written", r.body())
	}
}

// TestLiveComment_warns_once: an edit that fails is said once while the run goes, and again if
// the final one fails too; a comment never started finishes without a request.
func TestLiveComment_warns_once(t *testing.T) {
	api := githubfake.NewGitHub(t, testToken, "octo/widgets")
	client, err := New(Options{Token: testToken, APIURL: api.APIURL, Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	repo := &Repo{Client: client, Owner: "octo", Name: "widgets", Issue: 42, Marker: "sandcastle:test"}
	live := repo.LiveComment(func(w string) { warnings = append(warnings, w) })
	live.Finish(t.Context(), "never shown")
	if err := live.Start(t.Context(), "starting"); err != nil {
		t.Fatal(err)
	}
	api.FailNext("PATCH", commentEndpoint, 404, "Not Found")
	live.Finish(t.Context(), "finished")
	if len(warnings) != 1 || !strings.Contains(warnings[0], "progress comment") {
		t.Errorf("warnings %q, want one about the comment", warnings)
	}
	failing := repo.LiveComment(func(string) {})
	api.FailNext("GET", "/repos/{owner}/{repo}/issues/{number}/comments", 403, "Resource not accessible by integration")
	if err := failing.Start(t.Context(), "starting"); err == nil {
		t.Error("Start succeeded although GitHub refused")
	}
}
