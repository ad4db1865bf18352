package gitguard_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClose_moves_nested_repositories_away: a repository the agent nested in a working tree, as
// a gitlink of the index or untracked where the next git add -A would make one, would have the
// owner's plain git status run its config; Close moves its git directory out of every working
// tree. A nested repository that was there before is the user's: it stays, with its config
// kept, and the repository's own worktrees are no nested repositories.
func TestClose_moves_nested_repositories_away(t *testing.T) {
	r := newRepo(t)
	own := filepath.Join(r.top, "vendor", "own")
	r.git(t, r.top, "init", "-q", own)
	r.git(t, own, "commit", "-q", "--allow-empty", "-m", "own")
	ownConfig := filepath.Join(own, ".git", "config")
	before, err := os.ReadFile(ownConfig)
	if err != nil {
		t.Fatal(err)
	}
	g := r.take(t, r.wt)

	marker := filepath.Join(t.TempDir(), "ran")
	plant := func(dir string) {
		r.git(t, r.top, "init", "-q", dir)
		r.git(t, dir, "commit", "-q", "--allow-empty", "-m", "planted")
	}
	staged, untracked := filepath.Join(r.wt, "staged"), filepath.Join(r.top, "new", "deep", "untracked")
	plant(staged)
	r.git(t, r.wt, "add", "staged")
	plant(untracked)
	for _, dir := range []string{staged, untracked} {
		r.git(t, dir, "config", "core.fsmonitor", "touch "+marker+"; false")
	}
	write(t, ownConfig, "[core]\n\tfsmonitor = planted\n")
	// Another run's worktree, made meanwhile, is the repository's own.
	r.git(t, r.top, "worktree", "add", "-q", "-b", "other", filepath.Join(r.top, "other"))

	changes, err := g.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Path+" "+strings.SplitN(c.What, " ", 2)[0])
	}
	want := []string{"vendor/own/.git/config changed", ".sandcastle/worktrees/wt/staged/.git moved", "new/deep/untracked/.git moved"}
	slices.Sort(want)
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	for _, c := range changes {
		if to, ok := strings.CutPrefix(c.What, "moved to "); ok {
			if !strings.HasPrefix(to, ".git/sandcastle-quarantine/") {
				t.Errorf("%s went to %s, want it under .git/sandcastle-quarantine", c.Path, to)
			} else if _, err := os.Stat(filepath.Join(r.top, to, "HEAD")); err != nil {
				t.Errorf("the quarantined repository is not at %s: %v", to, err)
			}
		}
	}
	if b, _ := os.ReadFile(ownConfig); string(b) != string(before) {
		t.Errorf("the user's nested repository's config = %q, want it put back", b)
	}
	if _, err := os.Stat(filepath.Join(r.top, "other", ".git")); err != nil {
		t.Errorf("another run's worktree lost its .git: %v", err)
	}
	// What a later step of the job may do: look, and add everything the agent left.
	r.git(t, r.wt, "status")
	r.git(t, r.wt, "add", "-A")
	r.git(t, r.wt, "status")
	r.git(t, r.top, "add", "new")
	r.git(t, r.top, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Error("a plain git status ran what the agent planted in a nested repository")
	}
}
