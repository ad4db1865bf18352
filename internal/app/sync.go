package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/report"
	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/docker"
	"github.com/sandcastle-action/sandcastle/internal/workspace"
)

// bundleInSandbox is where the agent's commits are bundled inside the container before they are
// copied out.
const bundleInSandbox = "/tmp/sandcastle-out.bundle"

// syncedRepo is the workspace of a run whose repository was copied into the sandbox
// (sandbox-sync: copy) rather than mounted: before the loop reads the agent's commits on the
// host, it brings them out of the container, so that the host branch, and the checkout, end at
// the agent's last commit as they would with a mount.
type syncedRepo struct {
	*workspace.Workspace
	sb   *docker.Sandbox
	host git.Repo // git in the host's workspace directory
}

// Commits brings the container's new commits to the host, then lists them there. When they
// cannot be brought out, the commits the host already has are still returned.
func (r *syncedRepo) Commits(ctx context.Context, base string) ([]gitref.Commit, error) {
	err := r.sync(ctx)
	commits, cerr := r.Workspace.Commits(ctx, base)
	return commits, errors.Join(err, cerr)
}

// finish brings out what the last iteration committed, whichever way the run ended, and warns
// about the changes left uncommitted in the container, which are lost with it.
func (r *syncedRepo) finish(ctx context.Context, log *report.Log) {
	ctx, cancel := afterRun(ctx, cleanupTimeout)
	defer cancel()
	if err := r.sync(ctx); err != nil {
		log.Warning("%v", err)
	}
	out, err := r.git(ctx, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		log.Warning("sandbox-sync copy: listing uncommitted changes in the sandbox: %v", err)
		return
	}
	if n := len(strings.FieldsFunc(out, func(c rune) bool { return c == '\n' })); n > 0 {
		log.Warning("%d file(s) changed in the sandbox were never committed and are not copied back (sandbox-sync copy brings back commits only)", n)
	}
}

// sync fast-forwards the host's workspace to the commit the container's branch (or detached
// HEAD) is at: the new commits travel as a git bundle, copied out through the Docker API and
// fetched on the host. It fails when the container's history no longer contains the host's
// head, since only added commits can come back.
func (r *syncedRepo) sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	tip := "HEAD"
	if r.Workspace.Source != "" {
		tip = "refs/heads/" + r.Workspace.Source
	}
	inside, err := r.git(ctx, "rev-parse", "--verify", "--quiet", tip+"^{commit}")
	if err != nil {
		return fmt.Errorf("sandbox-sync copy: read %s in the sandbox: %w", tip, err)
	}
	here, err := r.Workspace.Head(ctx)
	if err != nil {
		return err
	}
	if inside == here {
		return nil
	}
	if _, err := r.git(ctx, "merge-base", "--is-ancestor", here, inside); err != nil {
		return fmt.Errorf("sandbox-sync copy: %s in the sandbox (%.12s) no longer contains %.12s, the host's; only commits added on top of it are copied back", tip, inside, here)
	}
	if _, err := r.git(ctx, "bundle", "create", bundleInSandbox, tip, "^"+here); err != nil {
		return fmt.Errorf("sandbox-sync copy: bundle the sandbox's commits: %w", err)
	}
	defer r.sb.Exec(ctx, sandbox.Exec{Argv: []string{"rm", "-f", bundleInSandbox}})

	// In the repository's git directory, which is ours and writable whatever TMPDIR says.
	gitDir, err := r.host.CommonDir(ctx)
	if err != nil {
		return fmt.Errorf("sandbox-sync copy: %w", err)
	}
	f, err := os.CreateTemp(gitDir, "sandcastle-*.bundle")
	if err != nil {
		return fmt.Errorf("sandbox-sync copy: %w", err)
	}
	defer os.Remove(f.Name())
	err = r.sb.CopyOut(ctx, bundleInSandbox, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sandbox-sync copy: %w", err)
	}
	// Fetch into FETCH_HEAD, then fast-forward the checkout: fetch cannot move the branch that
	// is checked out, and the working tree must follow it.
	if _, err := r.host.Run(ctx, "fetch", "--no-tags", "--quiet", f.Name(), tip); err != nil {
		return fmt.Errorf("sandbox-sync copy: fetch the sandbox's commits: %w", err)
	}
	if _, err := r.host.Run(ctx, "merge", "--ff-only", "--quiet", inside); err != nil {
		return fmt.Errorf("sandbox-sync copy: fast-forward %s to the sandbox's %.12s: %w", r.Workspace.Dir, inside, err)
	}
	return nil
}

// git runs git in the container's workspace and returns its trimmed standard output.
func (r *syncedRepo) git(ctx context.Context, args ...string) (string, error) {
	res, err := r.sb.Exec(ctx, sandbox.Exec{Argv: append([]string{"git"}, args...)})
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %s: exit code %d: %s", args[0], res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	return strings.TrimSpace(res.Stdout), nil
}
