package git_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/git"
)

// victim is a repository an agent has planted a program in. touch is a shell command that
// leaves the marker file, which shows the planted program ran.
type victim struct {
	dir    string
	env    []string
	marker string
	touch  string
}

// newVictim makes a repository on main with one commit of file f, whose git needs no identity
// of its own.
func newVictim(t *testing.T) *victim {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran")
	v := &victim{
		dir: t.TempDir(),
		env: append(testEnv(t),
			"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
			"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com"),
		marker: marker,
		touch:  "touch '" + marker + "'",
	}
	v.git(t, "init", "-q", "-b", "main")
	v.write(t, "f", "one\n")
	v.git(t, "add", "f")
	v.git(t, "commit", "-q", "-m", "first")
	return v
}

// git runs plain git, as the agent or a later step of the job would: nothing hardened.
func (v *victim) git(t *testing.T, args ...string) string {
	t.Helper()
	out, err := v.plain(args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (v *victim) plain(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = v.dir
	cmd.Env = append(v.env, "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (v *victim) write(t *testing.T, name, content string) {
	t.Helper()
	path := filepath.Join(v.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// script writes an executable outside the repository that leaves the marker, and returns its
// path: for settings git runs as a program rather than through the shell.
func (v *victim) script(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "planted")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+v.touch+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (v *victim) hook(t *testing.T, name string) {
	t.Helper()
	v.write(t, ".git/hooks/"+name, "#!/bin/sh\n"+v.touch+"\nexit 0\n")
}

func (v *victim) ran() bool {
	_, err := os.Stat(v.marker)
	return err == nil
}

// sideBranch adds branch side with a commit changing f.
func (v *victim) sideBranch(t *testing.T) {
	t.Helper()
	v.git(t, "checkout", "-q", "-b", "side")
	v.write(t, "f", "one\nside\n")
	v.git(t, "commit", "-q", "-am", "side")
	v.git(t, "checkout", "-q", "main")
}

// unauthorized is an HTTP server that asks every request for credentials.
func unauthorized(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="planted"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/repo.git"
}

// withSubmodule makes sub, a submodule of v with one commit of file g, and returns the path of
// its git directory.
func withSubmodule(t *testing.T, v *victim) string {
	t.Helper()
	src := &victim{dir: t.TempDir(), env: v.env}
	src.git(t, "init", "-q", "-b", "main")
	src.write(t, "g", "sub\n")
	src.git(t, "add", "g")
	src.git(t, "commit", "-q", "-m", "sub")
	v.git(t, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src.dir, "sub")
	v.git(t, "commit", "-q", "-m", "add sub")
	return filepath.Join(v.dir, ".git", "modules", "sub")
}

// includes plants, through the include setting key, a config file of the agent's that defines
// the clean filter of f.
func includes(key string) func(t *testing.T, v *victim) {
	return func(t *testing.T, v *victim) {
		v.write(t, "planted.config", "[filter \"planted\"]\n\tclean = "+v.touch+"; cat\n")
		v.write(t, ".gitattributes", "f filter=planted\n")
		v.write(t, "f", "changed\n")
		v.git(t, "config", key, filepath.Join(v.dir, "planted.config"))
	}
}

// restat gives path a new modification time and the same content, so that git must read the
// file (through its clean filter) to know whether it changed.
func restat(t *testing.T, path string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestRun_takes_away_planted_programs plants, one at a time, every way the repository's own
// files can make git run a program, then runs a command that would run it. Plain git runs it
// (else the row proves nothing); Run does not, and refuses outright what it cannot take back.
// A command may still fail: a program that was taken away fails the operation that needed it.
func TestRun_takes_away_planted_programs(t *testing.T) {
	tests := []struct {
		name    string
		plant   func(t *testing.T, v *victim)
		args    []string
		refused bool // Run must refuse with an *git.UnsafeConfigError
	}{
		{
			name:  "core_fsmonitor",
			plant: func(t *testing.T, v *victim) { v.git(t, "config", "core.fsmonitor", v.touch+"; false") },
			args:  []string{"status", "--porcelain"},
		},
		{
			name:  "hook_reference_transaction",
			plant: func(t *testing.T, v *victim) { v.hook(t, "reference-transaction") },
			args:  []string{"branch", "planted"},
		},
		{
			name:  "hook_post_merge",
			plant: func(t *testing.T, v *victim) { v.sideBranch(t); v.hook(t, "post-merge") },
			args:  []string{"merge", "--ff-only", "--quiet", "side"},
		},
		{
			name:  "hook_post_checkout",
			plant: func(t *testing.T, v *victim) { v.hook(t, "post-checkout") },
			args:  []string{"checkout", "-q", "-b", "other"},
		},
		{
			name:  "hook_post_rewrite",
			plant: func(t *testing.T, v *victim) { v.hook(t, "post-rewrite") },
			args:  []string{"commit", "--amend", "-q", "-m", "amended"},
		},
		{
			name: "hook_pre_auto_gc",
			plant: func(t *testing.T, v *victim) {
				// Two packs over a limit of one: git gc --auto wants to repack.
				v.git(t, "repack", "-q")
				v.write(t, "f", "two\n")
				v.git(t, "commit", "-q", "-am", "second")
				v.git(t, "repack", "-q")
				v.git(t, "config", "gc.autoPackLimit", "1")
				v.git(t, "config", "gc.autoDetach", "false")
				v.hook(t, "pre-auto-gc")
			},
			args: []string{"gc", "--auto", "--quiet"},
		},
		{
			name:  "hook_post_index_change",
			plant: func(t *testing.T, v *victim) { v.write(t, "f", "changed\n"); v.hook(t, "post-index-change") },
			args:  []string{"add", "f"},
		},
		{
			name: "core_hooks_path",
			plant: func(t *testing.T, v *victim) {
				v.write(t, "planted-hooks/post-checkout", "#!/bin/sh\n"+v.touch+"\n")
				v.git(t, "config", "core.hooksPath", filepath.Join(v.dir, "planted-hooks"))
			},
			args: []string{"checkout", "-q", "-b", "other"},
		},
		{name: "include_path", plant: includes("include.path"), args: []string{"add", "f"}, refused: true},
		{name: "include_if", plant: includes("includeIf.gitdir:/.path"), args: []string{"add", "f"}, refused: true},
		{
			name: "filter_gitattributes",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".gitattributes", "f filter=planted\n")
				v.write(t, "f", "changed\n")
				v.git(t, "config", "filter.planted.clean", v.touch+"; cat")
			},
			args: []string{"add", "f"},
		},
		{
			name: "filter_info_attributes",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".git/info/attributes", "f filter=planted\n")
				v.git(t, "config", "filter.planted.smudge", v.touch+"; cat")
				if err := os.Remove(filepath.Join(v.dir, "f")); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"checkout", "--", "f"},
		},
		{
			name: "filter_process_required",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".gitattributes", "f filter=planted\n")
				v.write(t, "f", "changed\n")
				v.git(t, "config", "filter.planted.process", v.touch)
				v.git(t, "config", "filter.planted.required", "true")
			},
			args: []string{"add", "f"},
		},
		{
			name: "diff_external",
			plant: func(t *testing.T, v *victim) {
				v.write(t, "f", "changed\n")
				v.git(t, "config", "diff.external", v.script(t))
			},
			args: []string{"diff"},
		},
		{
			name: "diff_textconv",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".gitattributes", "f diff=planted\n")
				v.write(t, "f", "changed\n")
				v.git(t, "config", "diff.planted.textconv", v.touch+"; cat")
			},
			args: []string{"diff"},
		},
		{
			name: "diff_driver_command",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".gitattributes", "f diff=planted\n")
				v.write(t, "f", "changed\n")
				v.git(t, "config", "diff.planted.command", v.script(t))
			},
			args: []string{"diff"},
		},
		{
			name: "merge_driver",
			plant: func(t *testing.T, v *victim) {
				v.write(t, ".gitattributes", "f merge=planted\n")
				v.git(t, "add", ".gitattributes")
				v.git(t, "commit", "-q", "-m", "attributes")
				v.sideBranch(t)
				v.write(t, "f", "one\nmain\n")
				v.git(t, "commit", "-q", "-am", "main")
				v.git(t, "config", "merge.planted.driver", v.touch+"; false")
			},
			args: []string{"merge", "--no-edit", "--quiet", "side"},
		},
		{
			name:  "credential_helper",
			plant: func(t *testing.T, v *victim) { v.git(t, "config", "credential.helper", "!"+v.touch) },
			args:  []string{"ls-remote", "http://127.0.0.1:0/"}, // replaced by an unauthorized server
		},
		{
			name:  "core_ssh_command",
			plant: func(t *testing.T, v *victim) { v.git(t, "config", "core.sshCommand", v.touch+"; false") },
			args:  []string{"ls-remote", "ssh://git@127.0.0.1:9/repo.git"},
		},
		{
			name:  "core_git_proxy",
			plant: func(t *testing.T, v *victim) { v.git(t, "config", "core.gitProxy", v.script(t)) },
			args:  []string{"ls-remote", "git://127.0.0.1:9/repo.git"},
		},
		{
			name: "url_instead_of",
			plant: func(t *testing.T, v *victim) {
				v.git(t, "config", "protocol.ext.allow", "always")
				v.git(t, "config", "url.ext::sh -c "+strings.ReplaceAll(v.touch, " ", "% ")+".insteadOf", "https://planted.invalid/repo.git")
			},
			args: []string{"ls-remote", "https://planted.invalid/repo.git"},
		},
		{
			name: "worktree_config",
			plant: func(t *testing.T, v *victim) {
				v.git(t, "config", "core.repositoryFormatVersion", "1")
				v.git(t, "config", "extensions.worktreeConfig", "true")
				v.write(t, ".git/config.worktree", "[filter \"planted\"]\n\tclean = "+v.touch+"; cat\n")
				v.write(t, ".gitattributes", "f filter=planted\n")
				v.write(t, "f", "changed\n")
			},
			args: []string{"add", "f"},
		},
		{
			name: "remote_upload_pack",
			plant: func(t *testing.T, v *victim) {
				v.git(t, "remote", "add", "origin", v.dir)
				v.git(t, "config", "remote.origin.uploadpack", v.touch+"; git-upload-pack")
			},
			args:    []string{"fetch", "--quiet", "origin"},
			refused: true,
		},
		{
			name: "remote_receive_pack",
			plant: func(t *testing.T, v *victim) {
				bare := t.TempDir()
				v.git(t, "init", "-q", "--bare", bare)
				v.git(t, "remote", "add", "origin", bare)
				v.git(t, "config", "remote.origin.receivepack", v.touch+"; git-receive-pack")
			},
			args:    []string{"push", "--quiet", "origin", "main"},
			refused: true,
		},
		{
			name: "remote_helper_vcs",
			plant: func(t *testing.T, v *victim) {
				bin := filepath.Dir(v.script(t))
				if err := os.Rename(filepath.Join(bin, "planted"), filepath.Join(bin, "git-remote-planted")); err != nil {
					t.Fatal(err)
				}
				for i, kv := range v.env {
					if strings.HasPrefix(kv, "PATH=") {
						v.env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
					}
				}
				v.git(t, "remote", "add", "origin", "planted://x")
				v.git(t, "config", "remote.origin.vcs", "planted")
			},
			args: []string{"fetch", "--quiet", "origin"},
		},
		{
			name: "gpg_program",
			plant: func(t *testing.T, v *victim) {
				v.git(t, "config", "commit.gpgSign", "true")
				v.git(t, "config", "gpg.program", v.script(t))
			},
			args: []string{"commit", "--allow-empty", "-q", "-m", "signed"},
		},
		{
			name: "submodule_filter",
			plant: func(t *testing.T, v *victim) {
				sub := withSubmodule(t, v)
				v.git(t, "config", "--file", filepath.Join(sub, "config"), "filter.planted.clean", v.touch+"; cat")
				v.write(t, "sub/.gitattributes", "g filter=planted\n")
				restat(t, filepath.Join(v.dir, "sub", "g"))
			},
			args: []string{"status", "--porcelain"},
		},
		{
			// A submodule's ignore setting in .gitmodules, which the working tree holds, wins
			// over diff.ignoreSubmodules: only the command line's --ignore-submodules wins over it.
			name: "submodule_filter_gitmodules_ignore_none",
			plant: func(t *testing.T, v *victim) {
				sub := withSubmodule(t, v)
				v.git(t, "config", "--file", filepath.Join(sub, "config"), "filter.planted.clean", v.touch+"; cat")
				v.write(t, "sub/.gitattributes", "g filter=planted\n")
				v.write(t, ".gitmodules", v.git(t, "show", "HEAD:.gitmodules")+"\n\tignore = none\n")
				restat(t, filepath.Join(v.dir, "sub", "g"))
			},
			args: []string{"status", "--porcelain"},
		},
		{
			// A diff of a submodule's commits shown as their diff is made by a git in the
			// submodule, with its textconv.
			name: "submodule_inline_diff",
			plant: func(t *testing.T, v *victim) {
				sub := withSubmodule(t, v)
				s := &victim{dir: filepath.Join(v.dir, "sub"), env: v.env}
				s.write(t, ".gitattributes", "g diff=planted\n")
				s.write(t, "g", "changed\n")
				s.git(t, "add", "-A")
				s.git(t, "commit", "-q", "-m", "changed")
				v.git(t, "commit", "-q", "-am", "move sub")
				v.git(t, "config", "--file", filepath.Join(sub, "config"), "diff.planted.textconv", v.touch+"; cat")
				v.git(t, "config", "diff.submodule", "diff")
			},
			args: []string{"diff", "HEAD~", "HEAD"},
		},
		{
			name: "alternate_refs_command",
			plant: func(t *testing.T, v *victim) {
				alternate := t.TempDir()
				v.git(t, "init", "-q", "--bare", alternate)
				v.write(t, ".git/objects/info/alternates", filepath.Join(alternate, "objects")+"\n")
				v.git(t, "config", "core.alternateRefsCommand", v.touch+"; true")
				v.git(t, "remote", "add", "origin", newVictim(t).dir)
			},
			args: []string{"fetch", "--quiet", "origin"},
		},
		{
			// The flag asks for the submodule's status, so git starts a git in it: the hardened
			// settings must reach that one too.
			name: "submodule_fsmonitor_child",
			plant: func(t *testing.T, v *victim) {
				sub := withSubmodule(t, v)
				v.git(t, "config", "--file", filepath.Join(sub, "config"), "core.fsmonitor", v.touch+"; false")
				v.write(t, "sub/g", "changed\n")
			},
			args: []string{"status", "--porcelain", "--ignore-submodules=none"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := tt.args
			if tt.name == "credential_helper" {
				args = []string{"ls-remote", unauthorized(t)}
			}
			control := newVictim(t)
			tt.plant(t, control)
			if out, err := control.plain(args...); !control.ran() {
				t.Fatalf("plain git %s did not run the planted program, so this row proves nothing (err %v)\n%s", strings.Join(args, " "), err, out)
			}

			v := newVictim(t)
			tt.plant(t, v)
			_, err := git.Repo{Dir: v.dir, Env: v.env}.Run(t.Context(), args...)
			if v.ran() {
				t.Errorf("Run(%s) ran the planted program", strings.Join(args, " "))
			}
			var unsafe *git.UnsafeConfigError
			if got := errors.As(err, &unsafe); got != tt.refused {
				t.Errorf("Run(%s) = %v; refused: %v, want %v", strings.Join(args, " "), err, got, tt.refused)
			}
		})
	}
}

// TestRun_hardens_every_command calls every method of Repo with a git in front of the real one
// that records the configuration each git process gets, and finds the hardened settings, last
// of their keys, in every one of them, and --ignore-submodules=dirty first in every status.
func TestRun_hardens_every_command(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, logs := t.TempDir(), t.TempDir()
	wrapper := "#!/bin/sh\n" +
		"log=" + logs + "/$$\n" +
		`echo "$*" > "$log"` + "\n" +
		`i=0; while [ "$i" -lt "${GIT_CONFIG_COUNT:-0}" ]; do eval "echo \"\$GIT_CONFIG_KEY_$i=\$GIT_CONFIG_VALUE_$i\"" >> "$log"; i=$((i+1)); done` + "\n" +
		`exec "` + real + `" "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newRepo(t)
	r = r.WithConfig("core.hooksPath=.githooks") // a caller cannot switch hooks back on
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := t.Context()

	calls := []struct {
		name string
		call func() error
	}{
		{"Run", func() error { _, err := r.Run(ctx, "rev-parse", "HEAD"); return err }},
		{"CurrentBranch", func() error { _, err := r.CurrentBranch(ctx); return err }},
		{"Head", func() error { _, err := r.Head(ctx); return err }},
		{"Resolve", func() error { _, err := r.Resolve(ctx, "main"); return err }},
		{"BranchExists", func() error { _, err := r.BranchExists(ctx, "main"); return err }},
		{"RevList", func() error { _, err := r.RevList(ctx, "main"); return err }},
		{"Log", func() error { _, err := r.Log(ctx, "main"); return err }},
		{"Status", func() error { _, err := r.Status(ctx); return err }},
		{"IsDirty", func() error { _, err := r.IsDirty(ctx); return err }},
		{"TopLevel", func() error { _, err := r.TopLevel(ctx); return err }},
		{"CommonDir", func() error { _, err := r.CommonDir(ctx); return err }},
		{"ConfigValue", func() error { _, _, err := r.ConfigValue(ctx, "user.name"); return err }},
		{"WorktreeList", func() error { _, err := r.WorktreeList(ctx); return err }},
	}
	for _, c := range calls {
		if err := c.call(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	commands, listings := 0, 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(logs, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		last := map[string]string{}
		for _, kv := range lines[1:] {
			k, v, _ := strings.Cut(kv, "=")
			last[strings.ToLower(k)] = v
		}
		for k, want := range map[string]string{
			"core.hookspath": os.DevNull, "core.fsmonitor": "false", "protocol.ext.allow": "never",
			"submodule.recurse": "false", "fetch.recursesubmodules": "false", "diff.ignoresubmodules": "all",
			"status.submodulesummary": "false", "diff.submodule": "short",
		} {
			if got, ok := last[k]; !ok || got != want {
				t.Errorf("git %s ran with %s = %q, want %q", lines[0], k, got, want)
			}
		}
		if sub, _, _ := strings.Cut(lines[0], " "); (sub == "status" || sub == "diff") && !strings.HasPrefix(lines[0], sub+" --ignore-submodules=dirty ") {
			t.Errorf("git %s does not start with --ignore-submodules=dirty", lines[0])
		}
		if strings.HasPrefix(lines[0], "config --list --show-scope") {
			listings++
		} else {
			commands++
		}
	}
	if want := len(calls); commands != want {
		t.Errorf("%d git commands recorded besides the config listings, want %d (one per call)", commands, want)
	}
	if listings == 0 {
		t.Error("no command listed the config first")
	}
}

// TestRun_keeps_trusted_programs: a program the repository's config names gives way to the
// user's own setting of the same key, not only to a value that runs nothing; and the user's
// credential helpers survive the repository's.
func TestRun_keeps_trusted_programs(t *testing.T) {
	v := newVictim(t)
	global := filepath.Join(t.TempDir(), "gitconfig")
	v.env = append(v.env, "GIT_CONFIG_GLOBAL="+global)
	for _, kv := range [][2]string{
		{"core.sshCommand", "ssh -o BatchMode=yes"},
		{"credential.helper", "cache"},
		{"credential.https://example.com.helper", "store"},
	} {
		v.git(t, "config", "--global", kv[0], kv[1])
	}
	for _, kv := range [][2]string{
		{"core.sshCommand", "planted-ssh"},
		{"credential.helper", "planted-helper"},
		{"core.pager", "planted-pager"},
		{"diff.planted.textconv", "planted-textconv"},
	} {
		v.git(t, "config", kv[0], kv[1])
	}
	r := git.Repo{Dir: v.dir, Env: v.env}
	get := func(args ...string) string {
		t.Helper()
		out, err := effectiveConfig(t, r, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := get("--get", "core.sshCommand"), "ssh -o BatchMode=yes"; got != want {
		t.Errorf("core.sshCommand = %q, want the user's %q", got, want)
	}
	if got, want := get("--get-all", "credential.helper"), "cache\nplanted-helper\n\ncache"; got != want {
		t.Errorf("credential.helper values = %q, want %q (the user's, the planted one, a reset, the user's again)", got, want)
	}
	if got, want := get("--get-urlmatch", "credential.helper", "https://example.com"), "store"; got != want {
		t.Errorf("credential helper for example.com = %q, want the user's %q", got, want)
	}
	if got, want := get("--get", "core.pager"), "cat"; got != want {
		t.Errorf("core.pager = %q, want %q", got, want)
	}
	if got := get("--get", "diff.planted.textconv"); got != "" {
		t.Errorf("diff.planted.textconv = %q, want empty", got)
	}
}

// effectiveConfig runs git config with args as a command that may run programs sees the
// config: git config itself is read-only and gets nothing taken away, but an alias of it is
// another command.
func effectiveConfig(t *testing.T, r git.Repo, args ...string) (string, error) {
	t.Helper()
	return r.WithConfig("alias.effective-config=config").Run(t.Context(), append([]string{"effective-config"}, args...)...)
}

// TestRun_takes_every_program_setting_away: each setting of the table, planted in the
// repository's config, reads back as the value that runs nothing.
func TestRun_takes_every_program_setting_away(t *testing.T) {
	v := newVictim(t)
	for key := range git.Programs {
		v.git(t, "config", strings.Replace(key, "*", "planted", 1), "planted-program")
	}
	r := git.Repo{Dir: v.dir, Env: v.env}
	for key, want := range git.Programs {
		key = strings.Replace(key, "*", "planted", 1)
		if got, err := effectiveConfig(t, r, "--get", key); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", key, got, err, want)
		}
	}
}

// TestRun_read_only_commands_pass_an_include: git config and rev-parse only read, so they are
// not refused for an include (a caller can find where one is, and still read the branches);
// anything else is.
func TestRun_read_only_commands_pass_an_include(t *testing.T) {
	v := newVictim(t)
	v.write(t, "extra.config", "[sandcastle]\n\tincluded = yes\n")
	v.git(t, "config", "include.path", filepath.Join(v.dir, "extra.config"))
	r := git.Repo{Dir: v.dir, Env: v.env}
	if got, err := r.Run(t.Context(), "config", "--get", "sandcastle.included"); err != nil || got != "yes" {
		t.Errorf("config --get = %q, %v; want the included value", got, err)
	}
	if _, err := r.Head(t.Context()); err != nil {
		t.Errorf("Head: %v", err)
	}
	_, err := r.Run(t.Context(), "status")
	var unsafe *git.UnsafeConfigError
	if !errors.As(err, &unsafe) || unsafe.Key != "include.path" || unsafe.Origin != "file:.git/config" {
		t.Fatalf("status: err = %#v, want an UnsafeConfigError for include.path in .git/config", err)
	}
	for _, want := range []string{"git status: refused", ".git/config sets include.path", "git config --unset include.path"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// BenchmarkRun measures one command: a read-only one runs git once; any other first lists the
// config (git config --list), so it runs git twice.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	r := git.Repo{Dir: dir, Env: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}}
	if _, err := r.Run(b.Context(), "init", "-q"); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if _, err := r.Run(b.Context(), "config", "sandcastle.key"+strconv.Itoa(i), "value"); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"rev-parse", "--git-dir"}, {"status", "--porcelain"}} {
		b.Run(args[0], func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Run(b.Context(), args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
