package git_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/git"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
)

func TestCurrentBranch(t *testing.T) {
	r := newRepo(t)
	got, err := r.CurrentBranch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := "main"; got != want {
		t.Errorf("on branch: CurrentBranch = %q, want %q", got, want)
	}
	mustRun(t, r, "checkout", "-q", "-b", "feature/x")
	if got, _ := r.CurrentBranch(t.Context()); got != "feature/x" {
		t.Errorf("nested branch: CurrentBranch = %q, want %q", got, "feature/x")
	}
	mustRun(t, r, "checkout", "-q", "--detach")
	got, err = r.CurrentBranch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got != "" {
		t.Errorf("detached: CurrentBranch = %q, want \"\"", got)
	}
}

func TestCurrentBranch_not_a_repository(t *testing.T) {
	r := git.Repo{Dir: t.TempDir(), Env: testEnv(t)}
	if _, err := r.CurrentBranch(t.Context()); err == nil {
		t.Error("CurrentBranch outside a repository: no error")
	}
}

func TestHead_and_Resolve(t *testing.T) {
	r := newRepo(t)
	head, err := r.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(head) != 40 {
		t.Errorf("Head = %q, want a full sha", head)
	}
	if got, _ := r.Resolve(t.Context(), "main"); got != head {
		t.Errorf("Resolve(main) = %q, want %q", got, head)
	}
	if _, err := r.Resolve(t.Context(), "nope"); err == nil {
		t.Error("Resolve(nope): no error")
	}
}

func TestBranchExists(t *testing.T) {
	r := newRepo(t)
	for _, tt := range []struct {
		name string
		want bool
	}{{"main", true}, {"nope", false}} {
		got, err := r.BranchExists(t.Context(), tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("BranchExists(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRevList_and_Log_oldest_first(t *testing.T) {
	r := newRepo(t)
	base := mustRun(t, r, "rev-parse", "HEAD")
	commit(t, r, "b", "b\n", "second")
	commit(t, r, "c", "c\n", "third: with | odd\tchars")
	shas, err := r.RevList(t.Context(), base+"..HEAD")
	if err != nil {
		t.Fatal(err)
	}
	commits, err := r.Log(t.Context(), base+"..HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(shas), 2; got != want {
		t.Fatalf("RevList: %d commits, want %d", got, want)
	}
	want := []gitref.Commit{
		{SHA: shas[0], Subject: "second"},
		{SHA: shas[1], Subject: "third: with | odd\tchars"},
	}
	if !slices.Equal(commits, want) {
		t.Errorf("Log = %+v, want %+v", commits, want)
	}
	if got, _ := r.Log(t.Context(), "HEAD..HEAD"); len(got) != 0 {
		t.Errorf("empty range: Log = %+v", got)
	}
}

func TestIsDirty(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  bool
	}{
		{"clean", func(*testing.T, string) {}, false},
		{"modified", func(t *testing.T, dir string) { write(t, dir, "a", "changed\n") }, true},
		{"untracked", func(t *testing.T, dir string) { write(t, dir, "new", "x\n") }, true},
		{"ignored_only", func(t *testing.T, dir string) {
			write(t, dir, ".git/info/exclude", "junk\n")
			write(t, dir, "junk", "x\n")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setup(t, r.Dir)
			got, err := r.IsDirty(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("IsDirty = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsDirty_unknown_is_dirty(t *testing.T) {
	r := git.Repo{Dir: filepath.Join(t.TempDir(), "gone"), Env: testEnv(t)}
	dirty, err := r.IsDirty(t.Context())
	if err == nil {
		t.Fatal("IsDirty on a missing directory: no error")
	}
	if !dirty {
		t.Error("IsDirty with an error = false, want true so the caller keeps the files")
	}
}

func TestStatus_lists_paths(t *testing.T) {
	r := newRepo(t)
	commit(t, r, "old", "x\n", "add old")
	mustRun(t, r, "mv", "old", "renamed")
	write(t, r.Dir, "a", "changed\n")
	write(t, r.Dir, "dir/new", "x\n")
	got, err := r.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"a", "dir/new", "old", "renamed"}; !slices.Equal(got, want) {
		t.Errorf("Status = %q, want %q", got, want)
	}
}

func TestWorktreeList(t *testing.T) {
	r := newRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	mustRun(t, r, "worktree", "add", "-q", "-b", "feature", wt)
	det := filepath.Join(t.TempDir(), "det")
	mustRun(t, r, "worktree", "add", "-q", "--detach", det)
	list, err := r.WorktreeList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	top, _ := r.TopLevel(t.Context())
	if got, want := len(list), 3; got != want {
		t.Fatalf("%d worktrees, want %d: %+v", got, want, list)
	}
	if got, want := list[0].Path, top; got != want {
		t.Errorf("main path = %q, want %q", got, want)
	}
	if got, want := list[0].Branch, "main"; got != want {
		t.Errorf("main branch = %q, want %q", got, want)
	}
	if got, want := list[1].Branch, "feature"; got != want {
		t.Errorf("worktree branch = %q, want %q", got, want)
	}
	if !list[2].Detached || list[2].Branch != "" {
		t.Errorf("detached worktree = %+v", list[2])
	}
}

func TestParseWorktrees(t *testing.T) {
	out := "worktree /repo\nHEAD 1111\nbranch refs/heads/main\n\n" +
		"worktree /repo/.sandcastle/worktrees/x\nHEAD 2222\ndetached\nlocked reason here\nprunable gitdir file points to non-existent location\n\n" +
		"worktree /bare\nbare\n"
	got := git.ParseWorktrees(out)
	want := []git.Worktree{
		{Path: "/repo", Head: "1111", Branch: "main"},
		{Path: "/repo/.sandcastle/worktrees/x", Head: "2222", Detached: true, Locked: true, Prunable: true},
		{Path: "/bare", Bare: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ParseWorktrees = %+v\nwant %+v", got, want)
	}
}

func TestTopLevel_and_CommonDir(t *testing.T) {
	r := newRepo(t)
	sub := filepath.Join(r.Dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	top, err := r.At(sub).TopLevel(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(r.Dir)
	if top != real {
		t.Errorf("TopLevel = %q, want %q", top, real)
	}
	common, err := r.CommonDir(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := common, filepath.Join(r.Dir, ".git"); got != want {
		t.Errorf("CommonDir = %q, want %q", got, want)
	}
}

func TestConfigValue(t *testing.T) {
	r := newRepo(t)
	if _, ok, err := r.ConfigValue(t.Context(), "user.name"); err != nil || ok {
		t.Errorf("unset: ConfigValue = ok %v, err %v; want unset", ok, err)
	}
	v, ok, err := r.WithConfig("user.name=Someone").ConfigValue(t.Context(), "user.name")
	if err != nil || !ok || v != "Someone" {
		t.Errorf("set: ConfigValue = %q, %v, %v", v, ok, err)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
