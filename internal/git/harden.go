package git

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
)

// The repository's own configuration is not trusted: an agent with write access to the
// working tree or to .git can plant settings there that make git run a program of its choosing
// on the host. Every command therefore runs with the settings below added after all others, so
// that they win over the repository's (git lets the command line override a config file; the
// GIT_CONFIG_COUNT variables count as command line and reach the git processes a command starts
// for submodules too).
//
// What git 2.39 does with each was checked by hand and is pinned by harden_test.go.

// hardened is added to every command, whatever the repository says.
var hardened = []string{
	"core.hooksPath=" + os.DevNull, // no hook runs: /dev/null is not a directory of hooks
	"core.fsmonitor=false",
	// The ext:: transport runs a command line taken from the URL; a url.<base>.insteadOf planted
	// in the repository could rewrite any remote to one.
	"protocol.ext.allow=never",
	// Submodules have configs of their own, which countermand below does not read: no command
	// of ours goes into them.
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"diff.ignoreSubmodules=all",
	// Both would make git start a git in each submodule, for a summary of its commits or for
	// its diff.
	"status.submoduleSummary=false",
	"diff.submodule=short",
}

// worktreeDiffs are the subcommands that compare the working tree with the index. In each
// populated submodule they would start a git of its own, to see whether its files changed: a git
// that reads the submodule's config, which countermand does not. diff.ignoreSubmodules above
// does not stop it, since a submodule.<name>.ignore in .gitmodules, a file of the working tree,
// wins over it; only the option on the command line wins over that. So these commands get
// --ignore-submodules=dirty first (a caller's own later option still wins): git then still
// sees a submodule whose commit moved, reading its HEAD itself, but starts nothing in it.
var worktreeDiffs = map[string]bool{"status": true, "diff": true, "diff-files": true, "diff-index": true}

// withSubmodulesIgnored returns args with --ignore-submodules=dirty after the subcommand, when
// it is one of worktreeDiffs.
func withSubmodulesIgnored(args []string) []string {
	if len(args) == 0 || !worktreeDiffs[args[0]] {
		return args
	}
	return slices.Concat(args[:1], []string{"--ignore-submodules=dirty"}, args[1:])
}

// Trusted scopes are the configuration of the machine and of its user, and the command line
// (the GIT_CONFIG_* variables we were given and set). The local and worktree scopes are the
// repository's, which the agent can write.
func trustedScope(scope string) bool {
	return scope == "system" || scope == "global" || scope == "command"
}

// A program setting names a program git runs. When the repository's own config sets one, the
// command gets the same setting back from the trusted scopes when they have one, and otherwise
// the value here, which runs nothing, or only git's own default program. An empty program is
// never run: git fails the operation that needed it instead (an empty diff.external, textconv or
// merge driver makes that diff or merge fail with "cannot run"), and an empty filter driver is
// no filter, which filter.<driver>.required=false lets checkout and add go on without.
//
// The keys are git's canonical forms (section and name in lower case); "*" stands for any
// subsection. They are every setting git 2.39's git-config(1) documents as naming a program
// or a shell command, including those only commands we never run read (mergetool, send-email,
// imap-send, web--browse, archive, submodule update, add -p): a future caller need not know.
var programs = map[string]string{
	// For each alternate (objects/info/alternates) fetch and receive-pack run it through the
	// shell, instead of git for-each-ref; true lists no refs of the alternates, which only
	// makes the negotiation send more. core.alternateRefsPrefixes, read when it is unset, only
	// gives for-each-ref patterns after "--".
	"core.alternaterefscommand": "true",
	"core.sshcommand":           "ssh",
	"core.askpass":              "",
	"core.editor":               ":",
	"sequence.editor":           ":",
	"core.pager":                "cat",
	"diff.external":             "",
	"diff.*.command":            "",
	"diff.*.textconv":           "",
	"merge.*.driver":            "",
	"filter.*.clean":            "",
	"filter.*.smudge":           "",
	"filter.*.process":          "",
	"filter.*.required":         "false",
	"gpg.program":               "gpg",
	"gpg.openpgp.program":       "gpg",
	"gpg.x509.program":          "gpgsm",
	"gpg.ssh.program":           "ssh-keygen",
	"gpg.ssh.defaultkeycommand": "",
	"remote.*.vcs":              "",         // a remote helper, git-remote-<vcs>, found by that name
	"submodule.*.update":        "checkout", // "!command" runs the command
	"interactive.difffilter":    "",
	"difftool.*.cmd":            "",
	"difftool.*.path":           "",
	"mergetool.*.cmd":           "",
	"mergetool.*.path":          "",
	"browser.*.cmd":             "",
	"browser.*.path":            "",
	"man.*.cmd":                 "",
	"man.*.path":                "",
	"guitool.*.cmd":             "",
	"instaweb.httpd":            "",
	"imap.tunnel":               "",
	"tar.*.command":             "",
	"sendemail.smtpserver":      "", // a program when it is an absolute path
	"sendemail.tocmd":           "",
	"sendemail.cccmd":           "",
	"sendemail.headercmd":       "",
	"sendemail.*.smtpserver":    "",
	"sendemail.*.tocmd":         "",
	"sendemail.*.cccmd":         "",
	"sendemail.*.headercmd":     "",
}

// UnsafeConfigError is a command refused because the repository's own config holds a setting
// that could make git run a program of the agent's and that no command-line setting can take
// back: an include (the included file is read as if it were part of the config, and may be
// anywhere the agent can write), or a remote's upload-pack or receive-pack program (for these
// git keeps the first value it reads, which is the repository's).
type UnsafeConfigError struct {
	Args   []string
	Key    string // as git lists it: include.path, includeif.<condition>.path, remote.<name>.uploadpack
	Origin string // where it is set, as git lists it: file:.git/config
}

func (e *UnsafeConfigError) Error() string {
	return fmt.Sprintf("git %s: refused: %s sets %s, which makes git read or run what the file names and which the agent could have planted there; remove it with git config --unset %s",
		strings.Join(e.Args, " "), strings.TrimPrefix(e.Origin, "file:"), e.Key, e.Key)
}

// setting is one line of git config --list --show-scope --show-origin.
type setting struct {
	scope, origin, key, value string
}

// listArgs lists every setting a command in the directory would read, with its scope and
// file, following includes. It reads files only: nothing it lists is run.
var listArgs = []string{"config", "--list", "--show-scope", "--show-origin", "-z"}

// parseSettings parses the output of listArgs: scope NUL origin NUL key [LF value] NUL, per
// setting.
func parseSettings(out string) []setting {
	fields := strings.Split(out, "\x00")
	var list []setting
	for i := 0; i+2 < len(fields); i += 3 {
		key, value, _ := strings.Cut(fields[i+2], "\n")
		list = append(list, setting{scope: fields[i], origin: fields[i+1], key: key, value: value})
	}
	return list
}

// splitKey splits section.subsection.name; the subsection, which may hold dots, is "" when
// there is none.
func splitKey(key string) (section, sub, name string) {
	section, rest, _ := strings.Cut(key, ".")
	if i := strings.LastIndex(rest, "."); i >= 0 {
		return section, rest[:i], rest[i+1:]
	}
	return section, "", rest
}

// readOnly are the subcommands that only read refs, objects and config files: whatever the
// config says, they run no program (hooks and fsmonitor are off for every command), so they need
// no listing, and an include or a remote's program does not stop them. Pushing from a
// repository whose config the agent changed still reads its branches.
var readOnly = map[string]bool{
	"config": true, "rev-parse": true, "rev-list": true, "symbolic-ref": true, "show-ref": true, "merge-base": true,
}

// countermand returns what a command must add to take away the program settings of the
// repository's own config in list: config pairs, and environment variables (base is the
// environment the command starts from). It refuses, with an *UnsafeConfigError naming args,
// the settings that cannot be taken back.
func countermand(args []string, list []setting, base []string) (config, env []string, err error) {
	trusted := map[string]string{} // the last trusted value of each key
	for _, s := range list {
		if trustedScope(s.scope) {
			trusted[s.key] = s.value
		}
	}
	done := map[string]bool{}
	helpers, proxy := false, false
	for _, s := range list {
		if trustedScope(s.scope) || done[s.key] {
			continue
		}
		done[s.key] = true
		section, sub, name := splitKey(s.key)
		switch {
		case (section == "include" || section == "includeif") && name == "path":
			return nil, nil, &UnsafeConfigError{Args: args, Key: s.key, Origin: s.origin}
		case section == "remote" && sub != "" && (name == "uploadpack" || name == "receivepack"):
			return nil, nil, &UnsafeConfigError{Args: args, Key: s.key, Origin: s.origin}
		case section == "credential" && name == "helper":
			helpers = true
		case section == "core" && sub == "" && name == "gitproxy":
			proxy = true
		case section == "pager" && sub == "":
			config = append(config, s.key+"=false") // pager.<command>: no pager
		default:
			neutral, ok := programs[s.key]
			if !ok && sub != "" {
				neutral, ok = programs[section+".*."+name]
			}
			if !ok {
				continue
			}
			if v, set := trusted[s.key]; set {
				neutral = v
			}
			config = append(config, s.key+"="+neutral)
		}
	}
	if helpers {
		// credential.helper is a list: an empty value empties it, then the trusted helpers
		// (credential.helper and credential.<url>.helper of the machine and the user) come back
		// in their order.
		config = append(config, "credential.helper=")
		for _, s := range list {
			if _, _, name := splitKey(s.key); (s.scope == "system" || s.scope == "global") && strings.HasPrefix(s.key, "credential.") && name == "helper" {
				config = append(config, s.key+"="+s.value)
			}
		}
	}
	if proxy && !hasVar(base, "GIT_PROXY_COMMAND") {
		// git takes the first core.gitProxy it reads, but GIT_PROXY_COMMAND before any: empty,
		// it means no proxy.
		env = append(env, "GIT_PROXY_COMMAND=")
	}
	return config, env, nil
}

func hasVar(env []string, key string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			return true
		}
	}
	return false
}

// countermands lists the settings a command in r.Dir would read and returns what it must add
// to take the repository's program settings away (see countermand); nothing for a read-only
// command.
func (r Repo) countermands(ctx context.Context, args []string) (config, env []string, err error) {
	if len(args) > 0 && readOnly[args[0]] {
		return nil, nil, nil
	}
	out, err := r.exec(ctx, listArgs, nil, nil)
	if err != nil {
		if ge, ok := err.(*Error); ok {
			// The command would fail to read the same config: report it as its own failure.
			return nil, nil, &Error{Args: args, ExitCode: ge.ExitCode, Stderr: ge.Stderr}
		}
		return nil, nil, fmt.Errorf("git %s: read the config first: %w", strings.Join(args, " "), err)
	}
	return countermand(args, parseSettings(out), r.Env)
}
