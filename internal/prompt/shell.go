package prompt

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// A placeholder in a command block never puts its value into the shell text. It becomes a
// reference to an environment variable of that one command's process, written for where the
// placeholder stands, so that the shell expands it into (part of) exactly one word and never
// parses it: results of parameter expansion are not read again as shell syntax.
//
// That holds only where the shell does nothing more with the word than pass it on. So a block
// that uses a placeholder must keep to a plain subset of the shell, which is the rule stated in
// docs/security.md's "Values never run as shell":
//
//   - It is simple commands joined by |, &&, || and ;. Each is a program, written as a plain
//     word, with its arguments, redirections to files it names itself, and variable
//     assignments before the program.
//   - A placeholder is only ever an argument: never the program, a variable's value or a
//     redirection's target.
//   - No program is a shell, an interpreter, a program that runs another program, or a shell
//     builtin other than echo, printf (whose first argument, the format, is fixed), pwd, true,
//     false and :. The other builtins evaluate their arguments, name variables with them (bash
//     evaluates the subscript in a name such as a[$(...)]), or change how the shell runs what
//     follows (cd changes where a relative program is found).
//   - Nor does any other word name one: not an argument, an option's value (--shell=bash) or a
//     variable's; no word holds a command line that starts with !, which git runs as shell (an
//     alias); and no $0, $_, $SHELL or $BASH, which expand to the shell's own name. Any program may run its arguments as a command (setarch, ssh-agent, a
//     script of the repository), and no list of such programs is complete; but to hide a shell
//     or an interpreter a command must name it, so refusing every word that does holds whatever
//     runs it. A known runner is refused as the program as well, as its arguments may name the
//     program it runs (setarch x86_64 {{V}}).
//   - No program is given a command to run by an option or a word for one (git rebase --exec,
//     git submodule foreach, tar --to-command, rsync -e), wherever the program stands.
//   - Nothing in it is a construct that runs a command, evaluates or is read differently by
//     dash and bash: no $(...), (...), compound commands, $((...)), $[...], ${...} other than
//     ${NAME}, $'...', unquoted braces, comments, background jobs (&) or here-documents; no
//     placeholder right after a backslash or a $; every quote closed.
//
// In that subset dash and bash cut the text into the same words, so what the scanner below
// decides about each word is what the shell will do. A block without placeholders is the
// template author's shell: it is not checked.

// quoting is how a placeholder stands in the shell text, and so how its reference is written.
type quoting int

const (
	bare   quoting = iota // among words: "${V}", a quoted word of its own, or part of one
	double                // inside "...": ${V}, already one word
	single                // inside '...': '"${V}"', the quote closed, the reference, reopened
)

// ref is the shell text that stands for variable name where a placeholder stood.
func (q quoting) ref(name string) string {
	switch q {
	case double:
		return "${" + name + "}"
	case single:
		return `'"${` + name + `}"'`
	default:
		return `"${` + name + `}"`
	}
}

// part is a piece of a command block: shell text as written, or a placeholder.
type part struct {
	text  string
	key   string // a placeholder's key; "" for text
	quote quoting
}

// shellError is what keeps a command block from passing its placeholders as data, at a byte
// offset into its body.
type shellError struct {
	at  int
	msg string
}

// token is a word, an operator that joins commands (|, ||, &&, ;) or a redirection operator.
type token struct {
	kind tokenKind
	at   int    // byte offset into the body
	text string // as written, placeholders and all
	keys []string
	// keyAt is the offset of a word's first placeholder.
	keyAt int
}

type tokenKind int

const (
	word tokenKind = iota
	joiner
	redirection
)

var (
	// keywords start or end compound commands where a command's name goes.
	keywords = []string{
		"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
		"done", "in", "function", "time", "coproc", "!", "[[", "]]",
	}
	// builtins are the builtins of bash and dash; plainBuiltins the only ones a command that
	// uses a placeholder may run, as they neither evaluate nor name anything with their
	// arguments.
	builtins = []string{
		".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "chdir", "command",
		"compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
		"eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history",
		"jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
		"readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
		"times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
	}
	plainBuiltins = []string{"echo", "printf", "pwd", "true", "false", ":"}
	// shellRE and interpreterRE name programs that run their arguments as code (versioned
	// names included: python3.12, perl5.36); wrappers run a program their arguments name.
	shellRE = regexp.MustCompile(`^(sh|bash|rbash|dash|ash|ksh|ksh93|mksh|pdksh|oksh|loksh|zsh|` +
		`yash|posh|fish|csh|tcsh|busybox|toybox)[0-9.]*$`)
	// The databases' shells among them run commands too (sqlite3's .shell, psql's \!).
	interpreterRE = regexp.MustCompile(`^(awk|gawk|mawk|nawk|sed|gsed|perl|python|pypy|ruby|irb|` +
		`node|nodejs|deno|bun|php|lua|luajit|tclsh|wish|expect|Rscript|R|julia|guile|racket|ocaml|` +
		`ghci|runghc|groovy|jshell|osascript|m4|dc|bc|vim|vi|nvim|emacs|ed|ex|gdb|lldb|pwsh|` +
		`powershell|elixir|iex|erl|escript|swipl|sbcl|clisp|scheme|gforth|java|kotlin|scala|` +
		`sqlite|psql|mysql|mariadb|duckdb|gnuplot)[0-9.]*$`)
	wrappers = []string{
		"env", "nohup", "timeout", "nice", "ionice", "stdbuf", "setsid", "sudo", "su", "doas",
		"runuser", "setpriv", "chroot", "flock", "xargs", "parallel", "watch", "strace", "ltrace",
		"valgrind", "unshare", "nsenter", "chrt", "taskset", "prlimit", "numactl", "systemd-run",
		"script", "fakeroot", "firejail", "bwrap", "ssh", "rsh", "find", "make", "gmake", "npx", "npm",
		"pnpm", "pnpx", "yarn", "bunx", "uvx", "uv", "pipx", "poetry", "docker", "podman", "kubectl",
		"time", "ssh-agent", "dbus-run-session", "dbus-launch", "xvfb-run", "unbuffer", "faketime",
		"eatmydata", "proot", "torsocks", "proxychains", "proxychains4", "sg", "newgrp", "pkexec",
		"capsh", "chpst", "cgexec", "schroot", "systemd-nspawn", "entr", "watchexec", "run-parts",
		"catchsegv", "chronic", "ccache", "distcc", "sem", "hyperfine", "perf", "tmux", "screen",
		"runcon", "sshpass", "rlwrap", "nocache", "trickle", "cpulimit", "daemonize",
		"start-stop-daemon", "flatpak-spawn", "nix-shell", "nix", "direnv", "mise", "vipe",
	}
	// archRE names setarch under the names it is also installed as, one for each architecture.
	archRE = regexp.MustCompile(`^(setarch|linux32|linux64|uname26|i[3-6]86|x86_64|athlon|ia64|` +
		`ppc|ppc32|ppc64.*|sparc|sparc32.*|sparc64|s390|s390x|mips|mips32|mips64|parisc|parisc32|` +
		`parisc64|alpha.*|arm|armv[0-9].*|armh|aarch64.*|arm64|riscv64|loongarch64|m68k)$`)
	// commandOptions are, for programs and git's commands, the options and words that give
	// them a command they run, most of them as shell: "" when all of its options may
	// (filter-branch's filters).
	commandOptions = map[string][]string{
		"git submodule": {"foreach"}, "git bisect": {"run"}, "git rebase": {"-x", "--exec"},
		"git grep": {"-O", "--open-files-in-pager"}, "git difftool": {"-x", "--extcmd"},
		"git filter-branch": {""}, "git fetch": {"--upload-pack"}, "git pull": {"--upload-pack"},
		"git clone": {"-u", "--upload-pack"}, "git ls-remote": {"--upload-pack"},
		"git fetch-pack": {"--upload-pack", "--exec"}, "git push": {"--receive-pack", "--exec"},
		"git send-pack": {"--receive-pack", "--exec"}, "git archive": {"--exec"},
		"tar": tarCommands, "gtar": tarCommands, "bsdtar": {"--use-compress-program"},
		"sort": {"--compress-program"}, "zip": {"-TT", "--unzip-command"},
		"rsync": {"-e", "--rsh", "--rsync-path"}, "scp": {"-S", "-o"}, "sftp": {"-S", "-o"},
	}
	tarCommands = []string{"-I", "--use-compress-program", "--to-command", "--checkpoint-action",
		"-F", "--info-script", "--new-volume-script", "--rsh-command"}
	// gitValueOptions are git's own options that take the next word as their value.
	gitValueOptions = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace"}
	// expansionRE is a parameter as the scanner lets one be written.
	expansionRE = regexp.MustCompile(`\$(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])`)
	// shellNames are the parameters that expand to the name of the shell running the command.
	shellNames = []string{"0", "_", "SHELL", "BASH", "BASH_ARGV0"}
	// plainRE is how a program must be written: no quotes, expansions or patterns.
	plainRE = regexp.MustCompile(`^[A-Za-z0-9_./+:@-]+$`)
	// assignmentRE is a word that assigns a variable before the program.
	assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\+?=`)
	// paramRE is what ${...} may hold: a name, a positional parameter or a special one.
	paramRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$`)
)

// scanCommand cuts the body of a command block (one line, no backtick) into shell text and
// placeholders, telling for each placeholder how it stands. A body with placeholders that
// leaves the plain subset above is refused, with the first thing that does.
func scanCommand(body string) ([]part, *shellError) {
	marks := placeholderRE.FindAllStringSubmatchIndex(body, -1)
	if len(marks) == 0 {
		return []part{{text: body}}, nil
	}
	l := &lexer{body: body, marks: marks}
	if err := l.run(); err != nil {
		return nil, l.explain(err)
	}
	if err := check(l.tokens); err != nil {
		return nil, l.explain(err)
	}
	return l.parts, nil
}

// lexer cuts a body into tokens and parts, refusing what leaves the plain subset.
type lexer struct {
	body   string
	marks  [][]int // the placeholders not yet read: start, end, key start, key end
	parts  []part
	last   int // end of the text already cut into parts
	tokens []token
	cur    *token // the word being read; nil between words
}

// explain completes a problem's message with the keys of the block and the way that works.
func (l *lexer) explain(e *shellError) *shellError {
	var keys []string
	for _, m := range placeholderRE.FindAllStringSubmatch(l.body, -1) {
		if !slices.Contains(keys, m[1]) {
			keys = append(keys, m[1])
		}
	}
	key := "{{" + keys[0] + "}}"
	msg := strings.ReplaceAll(e.msg, "$KEYS", braces(keys))
	return &shellError{at: e.at, msg: msg + "; give a value only as an argument of a plain command, as in printf '%s\\n' " + key + " or ./a-script-of-the-repository " + key + ", and do the rest in a command without placeholders"}
}

// construct is the problem of a construct a command that uses a placeholder cannot have.
func construct(at int, what string) *shellError {
	return &shellError{at: at, msg: "it uses $KEYS, so it may only be simple commands joined by |, &&, || or ;, but " + what}
}

// mark returns the placeholder that starts at i, or nil.
func (l *lexer) mark(i int) []int {
	if len(l.marks) > 0 && l.marks[0][0] == i {
		return l.marks[0]
	}
	return nil
}

// extend adds body[i:i+n] to the current word, starting one when there is none.
func (l *lexer) extend(i, n int) {
	if l.cur == nil {
		l.cur = &token{kind: word, at: i}
	}
	l.cur.text += l.body[i : i+n]
}

// endWord ends the current word, if any.
func (l *lexer) endWord() {
	if l.cur != nil {
		l.tokens = append(l.tokens, *l.cur)
		l.cur = nil
	}
}

// placeholder reads the placeholder m, standing as q says.
func (l *lexer) placeholder(m []int, q quoting) {
	if l.last < m[0] {
		l.parts = append(l.parts, part{text: l.body[l.last:m[0]]})
	}
	key := l.body[m[2]:m[3]]
	l.parts = append(l.parts, part{key: key, quote: q})
	l.last = m[1]
	l.extend(m[0], m[1]-m[0])
	if len(l.cur.keys) == 0 {
		l.cur.keyAt = m[0]
	}
	l.cur.keys = append(l.cur.keys, key)
	l.marks = l.marks[1:]
}

// run reads the whole body.
func (l *lexer) run() *shellError {
	body := l.body
	q, quoteAt := bare, 0
	for i := 0; i < len(body); {
		if m := l.mark(i); m != nil {
			l.placeholder(m, q)
			i = m[1]
			continue
		}
		n, err := l.char(i, q)
		if err != nil {
			return err
		}
		switch c := body[i]; {
		case q == single && c == '\'', q == double && c == '"':
			q = bare
		case q == bare && c == '\'':
			q, quoteAt = single, i
		case q == bare && c == '"':
			q, quoteAt = double, i
		}
		i += n
	}
	if q != bare {
		return construct(quoteAt, fmt.Sprintf("its %c is not closed", body[quoteAt]))
	}
	l.endWord()
	if l.last < len(body) {
		l.parts = append(l.parts, part{text: body[l.last:]})
	}
	return nil
}

// char reads what starts at i, in quotes q, and returns how many bytes it took.
func (l *lexer) char(i int, q quoting) (int, *shellError) {
	body := l.body
	c := body[i]
	next := func(s string) bool { return strings.HasPrefix(body[i+1:], s) }
	switch {
	case q == single:
	case c == '\\':
		if l.mark(i+1) != nil {
			return 0, &shellError{at: i + 1, msg: "{{" + l.body[l.marks[0][2]:l.marks[0][3]] + "}} follows a backslash, which would change how its reference is read; remove the backslash"}
		}
		if i+1 == len(body) {
			return 0, construct(i, "it ends with a backslash")
		}
		if q == double && strings.IndexByte("$`\"\\", body[i+1]) < 0 {
			break // a backslash that escapes nothing in "..."
		}
		l.extend(i, 2)
		return 2, nil
	case c == '$':
		n, err := l.dollar(i, q)
		if err == nil {
			l.extend(i, n)
		}
		return n, err
	case q == double:
	case c == ' ' || c == '\t':
		l.endWord()
		return 1, nil
	case c == '#' && l.cur == nil:
		return 0, construct(i, "# starts a comment")
	case c == '(' || c == ')':
		return 0, construct(i, fmt.Sprintf("%c is shell syntax (a subshell, a function, an array, a case pattern)", c))
	case c == '{' || c == '}':
		return 0, construct(i, fmt.Sprintf("%c is unquoted (a group of commands, or bash's brace expansion); quote it", c))
	case c == '|' && next("&"):
		return 0, construct(i, "|& is bash's alone")
	case c == '&' && !next("&"):
		return 0, construct(i, "& runs a command in the background (or is bash's &>)")
	case c == ';' && (next(";") || next("&")):
		return 0, construct(i, body[i:i+2]+" belongs to case")
	case c == '<' && next("<"):
		return 0, construct(i, "<< starts a here-document")
	case c == '|' || c == '&' || c == ';':
		op := string(c)
		if (c == '|' && next("|")) || c == '&' {
			op += op
		}
		l.endWord()
		l.tokens = append(l.tokens, token{kind: joiner, at: i, text: op})
		return len(op), nil
	case c == '<' || c == '>':
		return l.redirect(i), nil
	}
	l.extend(i, 1)
	return 1, nil
}

// redirect reads the redirection operator at i: the current word, when it is all digits, is
// the file descriptor it redirects (2>).
func (l *lexer) redirect(i int) int {
	at := i
	if w := l.cur; w != nil && len(w.keys) == 0 && strings.Trim(w.text, "0123456789") == "" && w.at+len(w.text) == i {
		at, l.cur = w.at, nil
	}
	l.endWord()
	op := l.body[i : i+1]
	if two := l.body[i:min(i+2, len(l.body))]; slices.Contains([]string{"<>", "<&", ">>", ">&", ">|"}, two) {
		op = two
	}
	l.tokens = append(l.tokens, token{kind: redirection, at: at, text: l.body[at:i] + op})
	return len(op)
}

// dollar reads the $ at i, in quotes q: a parameter or a literal $; anything else it may start
// is refused.
func (l *lexer) dollar(i int, q quoting) (int, *shellError) {
	body := l.body
	j := i + 1
	if m := l.mark(j); m != nil {
		return 0, &shellError{at: j, msg: "{{" + body[m[2]:m[3]] + "}} follows a $, which would read its reference as another expansion; remove the $ or quote it"}
	}
	if j == len(body) {
		return 1, nil
	}
	rest := body[j:]
	switch c := body[j]; {
	case strings.HasPrefix(rest, "(("):
		return 0, construct(i, "$((...)) evaluates arithmetic")
	case c == '(':
		return 0, construct(i, "$(...) runs a command")
	case c == '[':
		return 0, construct(i, "$[...] evaluates arithmetic")
	case c == '{':
		end := strings.IndexByte(rest, '}')
		if end < 0 || !paramRE.MatchString(rest[1:end]) {
			return 0, construct(i, "${...} holds more than a name, and bash evaluates what it holds (subscripts, ${!name}, defaults)")
		}
		return end + 2, namesShell(i, rest[1:end], body[i:j+end+1])
	case q == bare && (c == '\'' || c == '"'):
		return 0, construct(i, fmt.Sprintf("$%c...%c quoting is bash's, and dash reads it otherwise", c, c))
	case c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
		n := 1
		for j+n < len(body) && (body[j+n] == '_' || 'A' <= body[j+n] && body[j+n] <= 'Z' || 'a' <= body[j+n] && body[j+n] <= 'z' || '0' <= body[j+n] && body[j+n] <= '9') {
			n++
		}
		return 1 + n, namesShell(i, body[j:j+n], body[i:j+n])
	case '0' <= c && c <= '9' || strings.IndexByte("@*#?$!-", c) >= 0:
		return 2, namesShell(i, body[j:j+1], body[i:j+1])
	}
	return 1, nil
}

// namesShell refuses the parameter name, written as written at offset at, when it expands to
// the name of the shell that runs the command, which a program given it may run.
func namesShell(at int, name, written string) *shellError {
	if !slices.Contains(shellNames, name) {
		return nil
	}
	return construct(at, written+" expands to the name of a shell, which a program that runs its arguments (setarch, ssh-agent, ...) would run")
}

// check reads the tokens as commands joined by operators and checks each command.
func check(tokens []token) *shellError {
	var cmd []token
	for _, t := range tokens {
		if t.kind != joiner {
			cmd = append(cmd, t)
			continue
		}
		if len(cmd) == 0 {
			return construct(t.at, "no command comes before its "+t.text)
		}
		if err := checkCommand(cmd); err != nil {
			return err
		}
		cmd = nil
	}
	if len(cmd) > 0 {
		return checkCommand(cmd)
	}
	if last := tokens[len(tokens)-1]; last.kind == joiner && last.text != ";" {
		return construct(last.at, "no command comes after its "+last.text)
	}
	return nil
}

// checkCommand checks one simple command: its assignments, redirections, program and
// arguments.
func checkCommand(cmd []token) *shellError {
	program := ""
	args := 0
	for i := 0; i < len(cmd); i++ {
		t := cmd[i]
		key := ""
		if len(t.keys) > 0 {
			key = "{{" + t.keys[0] + "}}"
		}
		switch {
		case t.kind == redirection:
			if i+1 == len(cmd) || cmd[i+1].kind != word {
				return construct(t.at, "its "+t.text+" has no file")
			}
			i++
			target := cmd[i]
			if len(target.keys) > 0 {
				return &shellError{at: target.keyAt, msg: "{{" + target.keys[0] + "}} is the file of a redirection, so its value would name the file to read or write"}
			}
			if name, how := runnerIn(target.text); how != "" {
				return construct(target.at, fmt.Sprintf("its %s makes a file `%s`, which a pattern given to a program that runs its arguments could name, and `%s` %s", t.text, unquote(target.text), name, how))
			}
		case program == "" && assignmentRE.MatchString(t.text):
			if key != "" {
				return &shellError{at: t.keyAt, msg: key + " is assigned to a variable, where bash may evaluate it (declare -i, OPTIND, RANDOM, ...)"}
			}
			if name, how := runnerIn(t.text); how != "" {
				return construct(t.at, fmt.Sprintf("`%s` gives a variable `%s`, which a program that runs its arguments (setarch, ssh-agent, ...) could be given, and `%s` %s", unquote(t.text), name, name, how))
			}
		case program == "":
			if key != "" {
				return &shellError{at: t.keyAt, msg: key + " stands where a command's name goes, so its value would name the program to run"}
			}
			if msg := refusedProgram(t.text); msg != "" {
				return construct(t.at, msg+hidden(t.text, cmd[i+1:]))
			}
			program = t.text
		default:
			if name, how := runnerIn(t.text); how != "" {
				return construct(t.at, fmt.Sprintf("`%s` could run its argument `%s`, as setarch or ssh-agent run theirs, and `%s` %s", program, unquote(t.text), name, how))
			}
			args++
			if path.Base(program) == "printf" && args == 1 {
				if key != "" {
					return &shellError{at: t.keyAt, msg: key + " is the format of printf, which reads % and \\ in it (and bash's printf -v names a variable); give printf a fixed format first"}
				}
				if strings.HasPrefix(unquote(t.text), "-") {
					return construct(t.at, "printf's first argument, "+t.text+", is an option, not its format (bash's printf -v names a variable)")
				}
			}
		}
		// Some programs run a command an option gives them, as the program or as another
		// runner's.
		if t.kind == word {
			if err := commandOption(path.Base(unquote(t.text)), cmd[i+1:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// unquote drops the quotes and backslashes of a word as written: how it reads once the shell
// has removed them.
func unquote(word string) string {
	return strings.NewReplacer(`"`, "", "'", "", `\`, "").Replace(word)
}

// refusedProgram says why a command that uses a placeholder cannot run program, written as
// word; "" when it can.
func refusedProgram(word string) string {
	name := path.Base(word)
	switch {
	case slices.Contains(keywords, word):
		return "`" + word + "` starts or ends a compound command"
	case slices.Contains(builtins, name) && !slices.Contains(plainBuiltins, name):
		return "`" + word + "` is a shell builtin that evaluates or names variables or changes how the shell runs (only " + strings.Join(plainBuiltins, ", ") + " are plain)"
	case runs(name) != "":
		return "`" + word + "` " + runs(name)
	case !plainRE.MatchString(word):
		return "its program, " + word + ", is not a plain word (letters, digits and _ . / + : @ -)"
	}
	return ""
}

// runs says how the program called name runs what its arguments give; "" when it is not
// known to.
func runs(name string) string {
	switch {
	case shellRE.MatchString(name):
		return "is a shell, which runs its arguments as shell"
	case interpreterRE.MatchString(name):
		return "runs code that its arguments give"
	case runsOthers(name):
		return "runs a program that its arguments name"
	}
	return ""
}

// runsOthers reports whether the program called name runs the program its arguments name.
func runsOthers(name string) bool {
	return slices.Contains(wrappers, name) || archRE.MatchString(name)
}

// runnerIn returns the program a word names that runs what its arguments give, and how, when
// it names one, read as the shell will have read the word, with its parameters and
// placeholders empty (${UNSET}sh is sh): the word itself, or what follows an = in it (an
// option's value, a variable's), each alone or as the start of a command line with options
// ('sh -c', 'python3 -c'); or a command line that starts with !, which git runs as shell (an
// alias given by -c, git config or GIT_CONFIG_VALUE_0), whatever programs it names. Prose that
// starts with such a name ("find the bug: {{V}}") names nothing.
func runnerIn(word string) (name, how string) {
	text := unquote(expansionRE.ReplaceAllString(placeholderRE.ReplaceAllString(word, ""), ""))
	candidates := []string{text}
	for i := strings.IndexByte(text, '='); i >= 0; i = strings.IndexByte(text, '=') {
		text = text[i+1:]
		candidates = append(candidates, text)
	}
	for _, c := range candidates {
		fields := strings.Fields(c)
		switch {
		case len(fields) == 0:
		case strings.HasPrefix(c, "!"):
			return fields[0], "starts a command line that git runs as shell"
		case len(fields) == 1 || strings.HasPrefix(fields[1], "-"):
			if how := runs(path.Base(fields[0])); how != "" {
				return path.Base(fields[0]), how
			}
		}
	}
	return "", ""
}

// commandOption refuses the arguments of the program called name when they give it a command
// to run, through its options or words for one (tar's --to-command, git rebase's --exec).
func commandOption(name string, args []token) *shellError {
	key := name
	for i := 0; i < len(args) && args[i].kind == word; i++ {
		w := unquote(args[i].text)
		switch {
		case key == "git" && slices.Contains(gitValueOptions, w):
			i++
		case key == "git" && strings.HasPrefix(w, "-"):
		case key == "git":
			key += " " + w
			if slices.Contains(commandOptions[key], "") {
				return construct(args[i].at, "`"+key+"` runs the commands that its filters give")
			}
		default:
			for _, opt := range commandOptions[key] {
				if w == opt || strings.HasPrefix(w, opt+"=") || len(opt) == 2 && strings.HasPrefix(w, opt) {
					return construct(args[i].at, "`"+key+"` runs the command that its "+opt+" gives")
				}
			}
		}
	}
	return nil
}

// hidden names what the arguments of program, a refused one that is neither a shell nor an
// interpreter, would have it run: the first shell or interpreter among them, else the first
// program that runs others; "" when they name none.
func hidden(program string, args []token) string {
	if base := path.Base(program); shellRE.MatchString(base) || interpreterRE.MatchString(base) {
		return ""
	}
	first := ""
	for _, a := range args {
		if name, how := runnerIn(a.text); a.kind == word && how != "" {
			clause := fmt.Sprintf("; here it runs `%s`, and `%s` %s", unquote(a.text), name, how)
			if !runsOthers(name) {
				return clause
			}
			if first == "" {
				first = clause
			}
		}
	}
	return first
}
