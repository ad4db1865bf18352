package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
)

// syncTimeout bounds one round of bringing commits out of a sandbox.
const syncTimeout = 2 * time.Minute

// bundleInSandbox is where the agent's commits are bundled inside the sandbox before they are
// copied out.
const bundleInSandbox = "/tmp/sandcastle-out.bundle"

// Container is a sandbox the workspace was copied into (the docker input's sync: copy) rather than
// mounted: where the agent's git runs, and how a file comes out of it.
type Container interface {
	Exec(ctx context.Context, e sandbox.Exec) (sandbox.Result, error)
	CopyOut(ctx context.Context, path string, w io.Writer) error
}

// Synced is the workspace of a run whose repository was copied into a sandbox: before its
// commits are read on the host, they are brought out of the sandbox, so that the host branch,
// and the checkout, end at the agent's last commit as they would with a mount.
type Synced struct {
	w *Workspace
	c Container
}

// Synced is w as copied into c.
func (w *Workspace) Synced(c Container) *Synced { return &Synced{w: w, c: c} }

// Head is the host's head of the workspace, as Workspace.Head.
func (s *Synced) Head(ctx context.Context) (string, error) { return s.w.Head(ctx) }

// Commits brings the sandbox's new commits to the host, then lists them there as
// Workspace.Commits does. When they cannot be brought out, the commits the host already has are
// still returned.
func (s *Synced) Commits(ctx context.Context, base string) ([]gitref.Commit, error) {
	err := s.sync(ctx)
	commits, cerr := s.w.Commits(ctx, base)
	return commits, errors.Join(err, cerr)
}

// Finish brings out what the last iteration committed, whichever way the run ended, and warns
// about the changes left uncommitted in the sandbox, which are lost with it. Call it before the
// sandbox goes.
func (s *Synced) Finish(ctx context.Context, warn func(format string, args ...any)) {
	if err := s.sync(ctx); err != nil {
		warn("%v", err)
	}
	out, err := s.git(ctx, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		warn("sync: copy: listing uncommitted changes in the sandbox: %v", err)
		return
	}
	if n := len(strings.FieldsFunc(out, func(c rune) bool { return c == '\n' })); n > 0 {
		warn("%d file(s) changed in the sandbox were never committed and are not copied back (sync: copy brings back commits only)", n)
	}
}

// sync fast-forwards the host's workspace to the commit the sandbox's branch (or detached
// HEAD) is at: the new commits travel as a git bundle, copied out of the sandbox and fetched on
// the host. It fails when the sandbox's history no longer contains the host's head, since only
// added commits can come back.
func (s *Synced) sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncTimeout)
	defer cancel()
	tip := s.w.tip()
	inside, err := s.git(ctx, "rev-parse", "--verify", "--quiet", tip+"^{commit}")
	if err != nil {
		return fmt.Errorf("sync: copy: read %s in the sandbox: %w", tip, err)
	}
	here, err := s.w.Head(ctx)
	if err != nil {
		return err
	}
	if inside == here {
		return nil
	}
	if _, err := s.git(ctx, "merge-base", "--is-ancestor", here, inside); err != nil {
		return fmt.Errorf("sync: copy: %s in the sandbox (%.12s) no longer contains %.12s, the host's; only commits added on top of it are copied back", tip, inside, here)
	}
	if _, err := s.git(ctx, "bundle", "create", bundleInSandbox, tip, "^"+here); err != nil {
		return fmt.Errorf("sync: copy: bundle the sandbox's commits: %w", err)
	}
	defer s.c.Exec(ctx, sandbox.Exec{Argv: []string{"rm", "-f", bundleInSandbox}})

	// In the repository's git directory, which is ours and writable whatever TMPDIR says.
	gitDir, err := s.w.wt.CommonDir(ctx)
	if err != nil {
		return fmt.Errorf("sync: copy: %w", err)
	}
	f, err := os.CreateTemp(gitDir, "sandcastle-*.bundle")
	if err != nil {
		return fmt.Errorf("sync: copy: %w", err)
	}
	defer os.Remove(f.Name())
	err = s.c.CopyOut(ctx, bundleInSandbox, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync: copy: %w", err)
	}
	// Fetch into FETCH_HEAD, then fast-forward the checkout: fetch cannot move the branch that
	// is checked out, and the working tree must follow it.
	if _, err := s.w.wt.Run(ctx, "fetch", "--no-tags", "--quiet", f.Name(), tip); err != nil {
		return fmt.Errorf("sync: copy: fetch the sandbox's commits: %w", err)
	}
	if _, err := s.w.wt.Run(ctx, "merge", "--ff-only", "--quiet", inside); err != nil {
		return fmt.Errorf("sync: copy: fast-forward %s to the sandbox's %.12s: %w", s.w.Dir, inside, err)
	}
	return nil
}

// git runs git in the sandbox's workspace and returns its trimmed standard output.
func (s *Synced) git(ctx context.Context, args ...string) (string, error) {
	res, err := s.c.Exec(ctx, sandbox.Exec{Argv: append([]string{"git"}, args...)})
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit code %d: %s", args[0], res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	return strings.TrimSpace(res.Stdout), nil
}
