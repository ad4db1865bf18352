package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// TestDockerAgentCannotSwapHostPaths runs the real claude in the Docker sandbox on the checkout
// itself (branch-strategy head, where .sandcastle/ and .git are in its reach), steered to swap
// every directory the host later writes in, moves or removes from, for a link to a directory
// outside the checkout or for a file: .sandcastle/logs (the push-failure bundle, the relay's
// directory), .sandcastle/locks (the checkout's lock, removed at the end), and
// .git/sandcastle-quarantine (where the repository it nests goes). It also plants git
// directories under .git/modules, for a submodule the repository declares but never
// initialised, as actions/checkout leaves it, and by git clone --separate-git-dir. Nothing is
// written or removed outside, the run says what it met, the nested repository is quarantined
// all the same, and the owner's later git submodule update --init runs nothing planted.
func TestDockerAgentCannotSwapHostPaths(t *testing.T) {
	for _, swap := range []string{"link", "file"} {
		t.Run(swap, func(t *testing.T) {
			outside, markers := t.TempDir(), t.TempDir()
			// What a link would lead the host to: a lock of the same name, and a file of its.
			for _, name := range []string{"checkout.lock", "kept"} {
				writeFile(t, filepath.Join(outside, name), "the runner's\n")
			}
			put := func(path string) string {
				if swap == "link" {
					return `ln -s ` + outside + ` ` + path
				}
				return `echo planted > ` + path
			}
			hook := `printf '#!/bin/sh\ntouch ` + markers + `/$2\n' > "$1/hooks/post-checkout" && chmod +x "$1/hooks/post-checkout" && git config --file "$1/config" core.fsmonitor "touch ` + markers + `/$2-fsmonitor; false"`
			script := strings.Join([]string{
				`set -x`,
				`echo work > work.txt && git add work.txt && git commit -qm 'Agent work'`,
				`mv .sandcastle/logs .sandcastle/logs-was && ` + put(".sandcastle/logs") + ` || echo "refused: logs"`,
				`mv .sandcastle/locks .sandcastle/locks-was && ` + put(".sandcastle/locks") + ` || echo "refused: locks"`,
				put(".git/sandcastle-quarantine") + ` || echo "refused: quarantine"`,
				`git init -q nested && git -C nested commit -q --allow-empty -m nested && git -C nested config core.fsmonitor "touch ` + markers + `/nested; false"`,
				`plant() { ` + hook + `; }`,
				`git init -q --bare .git/modules/sub && plant .git/modules/sub silent || echo "refused: modules/sub"`,
				`git clone -q --separate-git-dir=.git/modules/evil "$(git config --get submodule.sub.url)" evil && plant .git/modules/evil evil || echo "refused: modules/evil"`,
				`rm -rf evil`,
				`echo planted`,
			}, "\n")
			a := newDockerAction(t, models.Bash(script), models.Text("Done. "+signal))
			// A submodule the repository declares, not initialised, as actions/checkout leaves it.
			sub := filepath.Join(t.TempDir(), "sub.git")
			gitRun(t, a.env, t.TempDir(), "init", "-q", "--bare", "-b", "main", sub)
			work := t.TempDir()
			gitRun(t, a.env, work, "clone", "-q", sub, "w")
			gitRun(t, a.env, filepath.Join(work, "w"), "commit", "-q", "--allow-empty", "-m", "sub")
			gitRun(t, a.env, filepath.Join(work, "w"), "push", "-q", "origin", "HEAD:main")
			subSHA := gitRun(t, a.env, filepath.Join(work, "w"), "rev-parse", "HEAD")
			writeFile(t, filepath.Join(a.dir, ".gitmodules"), "[submodule \"sub\"]\n\tpath = sub\n\turl = "+sub+"\n")
			gitRun(t, a.env, a.dir, "update-index", "--add", "--cacheinfo", "160000,"+subSHA+",sub")
			gitRun(t, a.env, a.dir, "add", ".gitmodules")
			gitRun(t, a.env, a.dir, "commit", "-q", "-m", "Declare sub")
			g := withGitServer(t, a, testkit.NewGitServer(t, "ghs_the_remote_writer", ghToken), "ghs_the_remote_writer")
			g.maintainerLabels(t)
			a.input("branch-strategy", "head")
			a.input("push", "lease")
			if err := os.MkdirAll(filepath.Join(a.dir, ".sandcastle"), 0o755); err != nil {
				t.Fatal(err)
			}
			chownTree(t, a.dir, workspaceUID)
			chownTree(t, sub, workspaceUID)
			for _, d := range []string{filepath.Dir(a.dir), filepath.Dir(filepath.Dir(a.dir)), filepath.Dir(markers), filepath.Dir(sub)} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(markers, 0o777); err != nil {
				t.Fatal(err)
			}

			inv, out := a.runWant(1) // the read-only token cannot push: the bundle is due
			reqs := a.model.Requests()
			shell := reqs[len(reqs)-1].Transcript() // what the agent's commands printed
			entries, _ := os.ReadDir(outside)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"checkout.lock", "kept"}) {
				t.Errorf("outside the checkout is now %q; want it as it was", names)
			}
			for _, name := range names {
				if got := readFile(t, filepath.Join(outside, name)); got != "the runner's\n" {
					t.Errorf("%s outside is now %q", name, got)
				}
			}
			what := map[string]string{"link": "is a symbolic link", "file": "is a file"}[swap]
			logs := filepath.Join(a.dir, ".sandcastle", "logs")
			if !strings.Contains(inv.output(), logs+" "+what) {
				t.Errorf("the run does not say %s %s:\n%s", logs, what, inv.output())
			}
			restored := commitList(t, out["restored-git-files"])
			if !slices.ContainsFunc(restored, func(p string) bool { return p == ".git/sandcastle-quarantine" }) ||
				!slices.Contains(restored, "nested/.git") {
				t.Errorf("restored-git-files = %q; want the replaced quarantine and nested/.git", restored)
			}
			if _, err := os.Lstat(filepath.Join(a.dir, "nested", ".git")); !os.IsNotExist(err) {
				t.Errorf("the nested repository is still in the working tree (%v)", err)
			}
			summary := readFile(t, a.summary)
			if !strings.Contains(summary, "`.git/sandcastle-quarantine`") || !strings.Contains(summary, "`nested/.git`") {
				t.Errorf("the summary does not show the quarantine:\n%s", summary)
			}
			if !strings.Contains(shell, "refused: modules/sub") || !strings.Contains(shell, "refused: modules/evil") {
				t.Errorf("the agent could make git directories under .git/modules:\n%s", shell)
			}
			if left, _ := os.ReadDir(filepath.Join(a.dir, ".git", "modules")); len(left) > 0 {
				t.Errorf(".git/modules has %v after the run", left)
			}
			ownerGit(t, a.dir, "-c", "protocol.file.allow=always", "submodule", "update", "--init")
			ownerGit(t, a.dir, "status")
			if ran, _ := os.ReadDir(markers); len(ran) > 0 {
				t.Errorf("planted programs ran on the host: %v", ran)
			}
		})
	}
}
