package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
	"github.com/sandcastle-action/sandcastle/internal/prompt"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/report/runner"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/fakeclaude"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// The engine's tests drive Run with hand-written fakes of the adapters, structs of funcs and
// records, and with real parts where they cost nothing: the runner's Reporter writing to a
// buffer, the host sandbox, and testkit's fake claude speaking claude's stream-json. A fake
// whose func a test did not set reports the call as an error.

// rig is one run of the engine.
type rig struct {
	t       *testing.T
	plan    Plan
	stdout  testkit.SyncBuffer
	rep     *runner.Reporter
	ws      *fakeWorkspace
	gh      *fakeGitHub
	prog    *fakeProgress
	pub     *fakePublisher
	sbx     *fakeSandboxes
	claude  *fakeclaude.Claude
	outputs *fakeOutputs             // GitHub for a review or triage; nil: none
	logs    map[string]*bytes.Buffer // the run logs opened, by path
}

// newRig is a run of claude on the host, scripted by steps, in a workspace on branch work
// that the agent makes commits in, without GitHub.
func newRig(t *testing.T, steps ...models.Step) *rig {
	t.Helper()
	r := &rig{t: t, claude: fakeclaude.New(t, steps...), logs: map[string]*bytes.Buffer{}}
	r.rep = runner.New(&r.stdout, func(string) string { return "" })
	dir := t.TempDir()
	r.ws = &fakeWorkspace{t: t, dir: dir, source: "work", target: "main", top: dir, head: "base"}
	r.pub = &fakePublisher{t: t}
	r.pub.push = func(context.Context, Push) (Pushed, error) { return Pushed{Declined: "push is none"}, nil }
	r.sbx = &fakeSandboxes{t: t, ws: r.ws}
	r.plan = Plan{
		Config: inputs.Config{
			Prompt: "Do the work.", Agent: "claude-code", Sandbox: inputs.SandboxNone, BranchStrategy: inputs.StrategyBranch,
			Branch: "work", MaxIterations: 2, IdleTimeout: time.Minute, CompletionTimeout: time.Second, ShellTimeout: time.Minute,
			Hooks: inputs.Hooks{Timeout: time.Minute}, CompletionSignals: []string{"<promise>COMPLETE</promise>"},
			GitHub: inputs.GitHubConfig{Push: inputs.PushNone},
		},
		Prompt:  prompt.Inline("Do the work."),
		Env:     map[string]string{"PATH": r.claude.Dir() + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME": t.TempDir()},
		Cleanup: 10 * time.Second,
	}
	return r
}

// withGitHub makes the run one of an issue event on issue 42, reported on with a comment.
func (r *rig) withGitHub(e *event.Event) {
	r.plan.Event = e
	r.plan.Actions = true
	r.plan.RunURL = "https://github.com/o/r/actions/runs/1"
	r.plan.Config.GitHub.ProgressComment = true
	r.gh = &fakeGitHub{t: r.t, permission: "write"}
	r.prog = &fakeProgress{}
}

func (r *rig) deps() Deps {
	d := Deps{Reporter: r.rep, Workspaces: r.ws, Sandboxes: r.sbx, Publisher: r.pub, Agent: claudeCode(r.t),
		OpenLog: func(_, path string) (io.WriteCloser, error) {
			if strings.Contains(path, "unwritable") {
				return nil, os.ErrPermission
			}
			b := &bytes.Buffer{}
			r.logs[path] = b
			return nopCloser{b}, nil
		}}
	if r.gh != nil {
		d.GitHub, d.Progress = r.gh, r.prog
	}
	if r.outputs != nil {
		d.Outputs = r.outputs
	}
	return d
}

func (r *rig) run(ctx context.Context) (report.Outcome, error) {
	r.t.Helper()
	o, err := Run(ctx, r.plan, r.deps())
	r.t.Logf("run: %v\n%s", err, r.stdout.String())
	return o, err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// fakeWorkspace is a workspace whose commits the test decides: each Commits call after the
// agent ran returns commits.
type fakeWorkspace struct {
	t                        *testing.T
	dir, source, target, top string
	head                     string
	commits                  []gitref.Commit
	prepareErr               error
	finished                 Finished
	finishErr                error
	finishes                 []bool // the ok of each Finish
	mu                       sync.Mutex
}

func (w *fakeWorkspace) Prepare(context.Context) (Workspace, error) {
	if w.prepareErr != nil {
		return nil, w.prepareErr
	}
	return w, nil
}

func (w *fakeWorkspace) Dir() string     { return w.dir }
func (w *fakeWorkspace) Source() string  { return w.source }
func (w *fakeWorkspace) Target() string  { return w.target }
func (w *fakeWorkspace) Top() string     { return w.top }
func (w *fakeWorkspace) HandBack() error { return nil }

func (w *fakeWorkspace) Head(context.Context) (string, error) { return w.head, nil }

func (w *fakeWorkspace) Commits(_ context.Context, base string) ([]gitref.Commit, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cs := w.commits
	w.commits = nil // each is the agent's once
	return cs, nil
}

func (w *fakeWorkspace) Finish(_ context.Context, ok bool) (Finished, error) {
	w.finishes = append(w.finishes, ok)
	return w.finished, w.finishErr
}

func (w *fakeWorkspace) AgentEnv(_ context.Context, base map[string]string) (map[string]string, error) {
	return base, nil
}

// fakeSynced records how the engine uses a copied workspace.
type fakeSynced struct {
	w        *fakeWorkspace
	commits  int // calls of Commits
	finished bool
	closed   *bool // the container's: set when Finish came after Close
	late     bool
}

func (s *fakeSynced) Head(ctx context.Context) (string, error) { return s.w.Head(ctx) }

func (s *fakeSynced) Commits(ctx context.Context, base string) ([]gitref.Commit, error) {
	s.commits++
	return s.w.Commits(ctx, base)
}

func (s *fakeSynced) Finish(_ context.Context, warn func(string, ...any)) {
	s.finished = true
	s.late = s.closed != nil && *s.closed
	warn("1 file(s) changed in the sandbox were never committed")
}

// fakeGitHub answers the trigger's questions and records what the run writes.
type fakeGitHub struct {
	t          *testing.T
	permission string
	permErr    error
	mu         sync.Mutex
	labels     [][2][]string // add, remove
	answers    []string
	labelErr   error
	// reactions are the reactions on the comment that started the run, as "+content" and
	// "-content" in the order made; reactErr fails every React.
	reactions []string
	reactErr  error
}

func (g *fakeGitHub) Permission(context.Context, string) (string, error) {
	return g.permission, g.permErr
}

func (g *fakeGitHub) OpenLinkedPRs(context.Context, int) ([]event.LinkedPR, error) { return nil, nil }

func (g *fakeGitHub) Ours(body string) bool { return strings.Contains(body, "<!-- sandcastle") }

func (g *fakeGitHub) Labels(_ context.Context, add, remove []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.labels = append(g.labels, [2][]string{add, remove})
	return g.labelErr
}

func (g *fakeGitHub) Answer(_ context.Context, body string) (string, error) {
	g.answers = append(g.answers, body)
	return "https://github.com/o/r/issues/42#issuecomment-1", nil
}

// React gives each reaction the id of its place in reactions, plus one. Like a request, it
// fails on a cancelled context.
func (g *fakeGitHub) React(ctx context.Context, content string) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reactErr != nil {
		return 0, g.reactErr
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	g.reactions = append(g.reactions, "+"+content)
	return int64(len(g.reactions)), nil
}

func (g *fakeGitHub) Unreact(ctx context.Context, id int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if id == 0 {
		return nil // nothing was put on
	}
	if id > int64(len(g.reactions)) {
		g.t.Errorf("Unreact(%d): no such reaction", id)
		return nil
	}
	g.reactions = append(g.reactions, "-"+strings.TrimPrefix(g.reactions[id-1], "+"))
	return nil
}

// fakeProgress records the bodies of the progress comment.
type fakeProgress struct {
	mu       sync.Mutex
	startErr error
	started  string
	shown    []string
	final    string
}

func (p *fakeProgress) Start(_ context.Context, body string) error {
	p.started = body
	return p.startErr
}

func (p *fakeProgress) Show(body string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shown = append(p.shown, body)
}

func (p *fakeProgress) Finish(_ context.Context, body string) { p.final = body }
func (p *fakeProgress) URL() string                           { return "https://github.com/o/r/issues/42#issuecomment-2" }

// fakePublisher decides pushes as the test says.
type fakePublisher struct {
	t        *testing.T
	lease    func(branch, start, known string) string
	push     func(context.Context, Push) (Pushed, error)
	upsertPR func(context.Context, PR) (OpenedPR, error)
	pushes   []Push
}

func (p *fakePublisher) Lease(_ context.Context, branch, start, known string) string {
	if p.lease == nil {
		p.t.Errorf("Lease(%q, %q): no lease expected", branch, start)
		return ""
	}
	return p.lease(branch, start, known)
}

func (p *fakePublisher) Push(ctx context.Context, r Push) (Pushed, error) {
	p.pushes = append(p.pushes, r)
	return p.push(ctx, r)
}

func (p *fakePublisher) UpsertPR(ctx context.Context, pr PR) (OpenedPR, error) {
	if p.upsertPR == nil {
		p.t.Errorf("UpsertPR(%+v): no pull request expected", pr)
		return OpenedPR{}, errors.New("unexpected")
	}
	return p.upsertPR(ctx, pr)
}

// fakeSandboxes runs on the host; its container is a host sandbox too, with a guard the test
// scripts, copied when copied is set.
type fakeSandboxes struct {
	t            *testing.T
	ws           *fakeWorkspace // what a copied workspace's commits are read from
	container    *fakeContainer
	containerErr error
	sessions     *fakeSessions
	hosts        []*host.Sandbox
}

func (s *fakeSandboxes) Host(dir string, env map[string]string) sandbox.Sandbox {
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	h := host.New(dir, vars)
	s.hosts = append(s.hosts, h)
	return h
}

// Start starts the container when the test gave one, else the host, as an adapter would for
// sandbox none.
func (s *fakeSandboxes) Start(_ context.Context, ws Workspace, env map[string]string, log *report.Log) (Started, error) {
	if s.containerErr != nil {
		return Started{}, s.containerErr
	}
	c := s.container
	if c == nil {
		return Started{Sandbox: s.Host(ws.Dir(), env), Read: func(int) bool { return true }}, nil
	}
	c.Sandbox = s.Host(ws.Dir(), env)
	st := Started{Sandbox: c, Guard: c.guard, Read: c.Read}
	if c.synced != nil {
		c.synced.w = s.ws
		st.Repo, st.Finish = c.synced, func(ctx context.Context) { c.synced.Finish(ctx, log.Warning) }
	}
	return st, nil
}

func (s *fakeSandboxes) Sessions(sandbox.Sandbox, string) Sessions {
	if s.sessions == nil {
		return nil // an agent that keeps none
	}
	return s.sessions
}

// fakeContainer is a container that is a host sandbox, with a scripted guard, and the workspace
// copied into it when synced is set.
type fakeContainer struct {
	sandbox.Sandbox
	guard  *fakeGuard
	synced *fakeSynced
	closed bool
	read   []int // the issues the sandbox read through the relay
}

func (c *fakeContainer) Read(number int) bool { return slices.Contains(c.read, number) }

func (c *fakeContainer) Close(ctx context.Context) error {
	c.closed = true
	return c.Sandbox.Close(ctx)
}

// fakeGuard reports the changes of each Check in turn, and of Close.
type fakeGuard struct {
	checks   [][]Change
	onClose  []Change
	closeErr error
	checked  int
	closed   bool
}

func (g *fakeGuard) Check() ([]Change, error) {
	g.checked++
	if len(g.checks) == 0 {
		return nil, nil
	}
	c := g.checks[0]
	g.checks = g.checks[1:]
	return c, nil
}

func (g *fakeGuard) Close(context.Context) ([]Change, error) {
	g.closed = true
	return g.onClose, g.closeErr
}

// fakeSessions saves nothing and records what it restores.
type fakeSessions struct {
	restored []string
	saved    []string
}

func (s *fakeSessions) Save(_ context.Context, id string) (string, error) {
	s.saved = append(s.saved, id)
	return "/home/me/.claude/projects/x/" + id + ".jsonl", nil
}

func (s *fakeSessions) Restore(_ context.Context, id string) error {
	s.restored = append(s.restored, id)
	return nil
}

// claudeCode is the claude-code agent, whose stream-json the fake claude speaks.
func claudeCode(t testing.TB) agent.Provider {
	t.Helper()
	a, err := agent.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	return a
}
