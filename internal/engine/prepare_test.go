package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// fakeChecks answer preflight's questions as the test says, and count what was asked.
type fakeChecks struct {
	t          *testing.T
	previewErr error
	previews   int
	pr         *event.PR // the pull request as it is now
	prErr      error
	lookups    int
	persisted  []string
	origin     string
	origins    int
	sandboxErr error
	onHost     bool
	sessionErr error
}

func (c *fakeChecks) Preview(_ context.Context, cfg inputs.Config, pr *event.PR) (Workspace, error) {
	c.previews++
	if c.previewErr != nil {
		return nil, c.previewErr
	}
	source := cfg.Branch
	if pr != nil && source != pr.HeadRef && !strings.HasPrefix(source, "sandcastle/pr-") {
		c.t.Errorf("Preview(branch %q, pr %+v): the branch is not the pull request's", source, pr)
	}
	return &fakeWorkspace{t: c.t, dir: "/w", source: source, target: "main", top: "/w"}, nil
}

func (c *fakeChecks) PullRequest(_ context.Context, n int) (*event.PR, error) {
	c.lookups++
	return c.pr, c.prErr
}

func (c *fakeChecks) PersistedTokens(context.Context) ([]string, error) { return c.persisted, nil }

func (c *fakeChecks) Origin(context.Context) string {
	c.origins++
	return c.origin
}

func (c *fakeChecks) Check() error         { return c.sandboxErr }
func (c *fakeChecks) OnHost() bool         { return c.onHost }
func (c *fakeChecks) Find(id string) error { return c.sessionErr }

func (c *fakeChecks) checks() Checks {
	return Checks{Repository: c, PRs: c, Checkout: c, Sandbox: c, Sessions: c}
}

// facts are those of a run of claude-code on the host, in Actions when actions is set, with an
// environment of env and claude on PATH.
func facts(t *testing.T, actions bool, env map[string]string) Facts {
	bin := t.TempDir()
	if err := os.WriteFile(bin+"/claude", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = map[string]string{}
	}
	env["PATH"] = bin
	return Facts{
		Config: inputs.Config{Prompt: "Do {{X}}.", PromptArgs: map[string]string{"X": "it"}, PromptFile: "p.md", Agent: "claude-code",
			Sandbox: inputs.SandboxNone, BranchStrategy: inputs.StrategyBranch, Branch: "work", MaxIterations: 1},
		Agent: claudeCode(t), Getenv: func(k string) string { return env[k] }, Stat: os.Stat,
		Actions: actions, Token: env["GITHUB_TOKEN"], Repository: "o/r", RunURL: "https://github.com/o/r/actions/runs/1", RunTag: "1-1",
	}
}

// TestPrepare: a run checked in preflight has its prompt rendered with the branches the
// workspace will have, its environment and its secrets; in Actions with a token, origin is read
// there, once, so that nothing the run does later changes where it pushes.
func TestPrepare(t *testing.T) {
	for _, actions := range []bool{false, true} {
		c := &fakeChecks{t: t, onHost: true, origin: "https://github.com/o/r.git"}
		f := facts(t, actions, map[string]string{"GITHUB_TOKEN": "ght", "API_SECRET": "s3"})
		f.Config.EnvNames = []string{"API_SECRET"}
		p, err := Prepare(t.Context(), f, c.checks())
		if err != nil {
			t.Fatalf("actions %v: %v", actions, err)
		}
		wantOrigin, wantOrigins := "", 0
		if actions {
			wantOrigin, wantOrigins = c.origin, 1
		}
		if p.Prompt.Text() != "Do it." || p.Checkout.Source() != "work" || p.Env["API_SECRET"] != "s3" || !slices.Equal(p.Secrets, []string{"s3"}) ||
			p.Origin != wantOrigin || c.origins != wantOrigins || p.RunTag != "1-1" || p.Actions != actions {
			t.Errorf("actions %v: plan %+v, origin read %d times", actions, p, c.origins)
		}
	}
}

// TestPrepare_on_a_pull_request: a run on a pull request's own branch looks the pull request up
// and works on its branch; the looked-up pull request is in the plan and in a copy of the event,
// never written into the event preflight was given.
func TestPrepare_on_a_pull_request(t *testing.T) {
	ev := prComment(false)
	ev.PR = nil // a comment's payload names no branches
	now := &event.PR{Number: 7, HeadRef: "feature", BaseRef: "main", HeadSHA: "now", HeadRepo: "o/r"}
	c := &fakeChecks{t: t, onHost: true, pr: now}
	f := facts(t, false, nil)
	f.Event, f.Token = ev, "ght"
	f.Config.GitHub = inputs.GitHubConfig{OnPullRequest: true, TriggerPhrases: []string{"/sandcastle"}, Subjects: []event.Subject{event.SubjectPullRequest}}
	p, err := Prepare(t.Context(), f, c.checks())
	if err != nil {
		t.Fatal(err)
	}
	if ev.PR != nil {
		t.Error("the event preflight was given was written")
	}
	if diff := cmp.Diff(now, p.PR); diff != "" || p.Event.PR != p.PR || p.Config.Branch != "feature" || p.Checkout.Source() != "feature" {
		t.Errorf("plan PR (-want +got):\n%s; event's %+v, branch %q", diff, p.Event.PR, p.Config.Branch)
	}
	c.prErr = errors.New("HTTP 502")
	if _, err := Prepare(t.Context(), f, c.checks()); err == nil || !strings.Contains(err.Error(), "looking up the pull request the run works on: HTTP 502") {
		t.Errorf("Prepare with the lookup failing = %v", err)
	}
}

// TestPrepare_joins_every_problem: each problem preflight finds is an *inputs.Problem naming
// its input, all of them at once; a checkout that keeps a token is refused after them.
func TestPrepare_joins_every_problem(t *testing.T) {
	c := &fakeChecks{t: t, onHost: true, sandboxErr: &inputs.Problem{Input: inputs.InputContainerUID, Message: "no user"},
		sessionErr: errors.New("no session x")}
	f := facts(t, false, nil)
	f.Config.GitHub.OpenPR = true // without a token
	f.Config.Model = "-rf"        // taken for a flag
	f.Config.ResumeSession = "x"
	f.Config.Output = &inputs.OutputConfig{Tag: "result", Type: inputs.OutputObject, Schema: []byte(`{"type": 1}`)}
	_, err := Prepare(t.Context(), f, c.checks())
	want := []string{inputs.InputGitHubToken, inputs.InputOutputSchema, inputs.InputOutputTag, inputs.InputContainerUID, inputs.InputResumeSession, inputs.InputModel}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems of %v\n= %q, want %q", err, got, want)
	}

	// The agent's program on the host, its credentials apart from it.
	f = facts(t, false, nil)
	f.Stat = func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist }
	if _, err := Prepare(t.Context(), f, c2(t, true).checks()); !slices.Equal(problems(t, err), []string{inputs.InputAgent}) || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("claude not on PATH: %v", err)
	}
	if _, err := Prepare(t.Context(), f, c2(t, false).checks()); !slices.Equal(problems(t, err), []string{inputs.InputAgent}) || !strings.Contains(err.Error(), "to log in inside the sandbox") {
		t.Errorf("no credential for a sandbox apart from the host: %v", err)
	}

	f = facts(t, true, map[string]string{"GITHUB_TOKEN": "ght"})
	c = c2(t, true)
	c.persisted = []string{"http.https://github.com/.extraheader"}
	if _, err := Prepare(t.Context(), f, c.checks()); !strings.Contains(err.Error(), "the checkout keeps a token in .git/config (http.https://github.com/.extraheader)") || c.origins != 0 {
		t.Errorf("a persisted token: %v, origin read %d times", err, c.origins)
	}
}

// c2 are checks that find nothing wrong, on the host or apart from it.
func c2(t *testing.T, onHost bool) *fakeChecks { return &fakeChecks{t: t, onHost: onHost} }

// TestPrepare_skips_what_an_unanswered_event_lacks: an event the run does not answer is skipped
// by the trigger, so preflight neither previews the checkout nor renders the prompt for it.
func TestPrepare_skips_what_an_unanswered_event_lacks(t *testing.T) {
	c := c2(t, true)
	f := facts(t, false, nil)
	f.Token = "ght"
	f.Event = labeled("maintainer", "bug")
	f.Config.GitHub.TriggerLabel = "go"
	f.Config.GitHub.Subjects = []event.Subject{event.SubjectWorkflow}
	p, err := Prepare(t.Context(), f, c.checks())
	if err != nil || p.Prompt != nil || p.Checkout != nil || c.previews != 0 {
		t.Errorf("Prepare = %+v, %v after %d preview(s); want no prompt and no preview", p, err, c.previews)
	}
}
