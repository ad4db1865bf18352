package gitguard_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitguard"
)

// closeGuard closes g and returns its changes, and each as "path verb", sorted.
func closeGuard(t *testing.T, g *gitguard.Guard) ([]gitguard.Change, []string) {
	t.Helper()
	changes, err := g.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Path+" "+strings.SplitN(c.What, " ", 2)[0])
	}
	slices.Sort(got)
	return changes, got
}

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

	changes, got := closeGuard(t, g)
	want := []string{"vendor/own/.git/config changed", ".sandcastle/worktrees/wt/staged/.git moved", "new/deep/untracked/.git moved"}
	if slices.Sort(want); !slices.Equal(got, want) {
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

// TestClose_quarantines_git_directories_planted_in_worktrees: .git/worktrees holds the git
// directories of the repository's own worktrees, and the agent can write there (in its own
// worktree's, at least). A repository it nests in the working tree with its git directory put
// there is no worktree of this repository, nor is a .git file naming a worktree's directory
// that does not name it back: Close moves each such .git away like any other nested
// repository's, and moves out of .git/worktrees what git would not take for a worktree, but
// not a directory git is still making (locked). Then neither the action's own git nor the
// owner's plain git status runs anything planted, even with a .gitmodules asking git to look
// into every submodule.
func TestClose_quarantines_git_directories_planted_in_worktrees(t *testing.T) {
	r := newRepo(t)
	common := filepath.Join(r.top, ".git")
	g := r.take(t, r.wt)

	marker := filepath.Join(t.TempDir(), "ran")
	nested := map[string]string{ // nested repository -> its git directory
		"in-worktrees":    filepath.Join(common, "worktrees", "planted"),
		"in-own-worktree": filepath.Join(common, "worktrees", "wt", "planted"),
	}
	gitmodules := ""
	for name, gitDir := range nested {
		dir := filepath.Join(r.wt, name)
		r.git(t, r.top, "init", "-q", "--separate-git-dir="+gitDir, dir)
		write(t, filepath.Join(dir, ".gitattributes"), "* filter=planted\n")
		write(t, filepath.Join(dir, "a"), "a\n")
		r.git(t, dir, "add", "-A")
		r.git(t, dir, "commit", "-q", "-m", "planted")
		r.git(t, dir, "config", "filter.planted.clean", "touch "+marker+"; cat")
		r.git(t, dir, "config", "core.fsmonitor", "touch "+marker+"; false")
		gitmodules += "[submodule \"" + name + "\"]\n\tpath = " + name + "\n\tignore = none\n"
	}
	// A .git file borrowing the agent's own worktree's git directory.
	write(t, filepath.Join(r.wt, "borrowed", ".git"), "gitdir: "+filepath.Join(common, "worktrees", "wt")+"\n")
	gitmodules += "[submodule \"borrowed\"]\n\tpath = borrowed\n\tignore = none\n"
	write(t, filepath.Join(r.wt, ".gitmodules"), gitmodules)
	r.git(t, r.wt, "add", "-A")
	r.git(t, r.wt, "commit", "-q", "-m", "nested")
	// In .git/worktrees: a directory that is no worktree, and one git is making for another run.
	write(t, filepath.Join(common, "worktrees", "junk", "config"), "[core]\n\tfsmonitor = planted\n")
	write(t, filepath.Join(common, "worktrees", "making", "locked"), "initializing\n")
	write(t, filepath.Join(common, "worktrees", "making", "gitdir"), filepath.Join(r.top, ".sandcastle", "worktrees", "making", ".git")+"\n")
	later := time.Now().Add(time.Hour)
	for name := range nested {
		if err := os.Chtimes(filepath.Join(r.wt, name, "a"), later, later); err != nil {
			t.Fatal(err)
		}
	}

	_, got := closeGuard(t, g)
	want := []string{
		".git/worktrees/junk moved",
		".git/worktrees/planted moved",
		".sandcastle/worktrees/wt/borrowed/.git moved",
		".sandcastle/worktrees/wt/in-own-worktree/.git moved",
		".sandcastle/worktrees/wt/in-worktrees/.git moved",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(common, "worktrees", "making", "locked")); err != nil {
		t.Errorf("the worktree git is making was touched: %v", err)
	}

	// The action's own git in the worktree, then a later step's.
	wt := git.New(r.wt, r.env)
	if _, err := wt.IsDirty(t.Context()); err != nil {
		t.Error(err)
	}
	if _, err := wt.Status(t.Context()); err != nil {
		t.Error(err)
	}
	r.git(t, r.wt, "status")
	r.git(t, r.top, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran what the agent planted in a repository whose git directory it put in .git/worktrees")
	}
}

// TestClose_worktree_config_of_a_worktree_made_since: with extensions.worktreeConfig git reads
// a worktree's own config.worktree, which for a worktree made since Take nobody kept. A .git
// file in the working tree naming such a worktree counts as the worktree's only while its
// config.worktree is the copy of the main one git worktree add makes.
func TestClose_worktree_config_of_a_worktree_made_since(t *testing.T) {
	for _, planted := range []bool{false, true} {
		t.Run(map[bool]string{false: "copied", true: "planted"}[planted], func(t *testing.T) {
			r := newRepo(t)
			r.git(t, r.top, "config", "extensions.worktreeConfig", "true")
			r.git(t, r.top, "config", "--worktree", "sandcastle.main", "yes")
			g := r.take(t, r.top)
			other := filepath.Join(r.top, "other")
			r.git(t, r.top, "worktree", "add", "-q", "-b", "other", other)
			config := filepath.Join(r.top, ".git", "worktrees", "other", "config.worktree")
			if b, err := os.ReadFile(config); err != nil || !strings.Contains(string(b), "main = yes") {
				t.Fatalf("git worktree add made config.worktree %q, %v; want the copy of the main one", b, err)
			}
			if planted {
				write(t, config, "[core]\n\tfsmonitor = planted\n")
			}
			_, got := closeGuard(t, g)
			var want []string
			if planted {
				want = []string{".git/worktrees/other moved", "other/.git moved"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("changes = %q, want %q", got, want)
			}
		})
	}
}
