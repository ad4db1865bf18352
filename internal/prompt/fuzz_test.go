package prompt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
)

// FuzzTemplate checks the split against any template and any two values: the commands are
// exactly the one-line blocks of the raw template, every placeholder in them is replaced, their
// shell text does not depend on the values (which travel only in their environment), and
// nothing else is handed to the runner.
func FuzzTemplate(f *testing.F) {
	for _, seed := range [][3]string{
		{"{{A}} {{B}}", "!`id`", "x"},
		{"!{{A}}", "`id`", ""},
		{"{{A}}{{B}}", "!`", "rm -rf /`"},
		{"{{A}}whoami{{B}}", "!`", "`"},
		{"!`echo {{A}}` {{B}}", "a` !`b` `c", "!\x01`d`"},
		{"!`a`{{A}}!`b`", "` !`x` !`", "{{A}}"},
		{"{{ A }} !`git log {{SOURCE_BRANCH}}` {{{B}}}", "{{B}}", "{{A}}"},
		{"\x01!`a`\x01 {{A}}", "\x01", "!``!`x`"},
		{"!`echo '{{A}}' \"{{B}}\" $(printf %s {{A}})`", "'; id; '", "\"; id; \""},
		{"!`echo ${{A}} ; echo {{B}}`", "x", "y"},
		{"!`a\n!`b` !`", "x", "y"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	blockRE := regexp.MustCompile("!`([^`\n]+)`")
	f.Fuzz(func(t *testing.T, template, a, b string) {
		tmpl, err := Parse(template)
		if err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var se *SyntaxError
				if !errors.As(e, &se) || se.Line < 1 || se.Line > strings.Count(template, "\n")+1 || se.Column < 1 {
					t.Fatalf("Parse error %v is not a *SyntaxError inside the template", e)
				}
			}
			return
		}
		values := map[string]string{"A": a, "B": b, "SOURCE_BRANCH": "main"}
		p, err := tmpl.Render(values)
		var ve *ValueError
		var mk *MissingKeysError
		switch {
		case errors.As(err, &mk):
			return // placeholders other than A, B and SOURCE_BRANCH
		case errors.As(err, &ve):
			if !strings.Contains(a+b, "\x00") {
				t.Fatalf("Render refused %v, but no value holds a NUL byte", err)
			}
			return
		case err != nil:
			t.Fatalf("Render: %v", err)
		}
		// Other values, same shell text.
		other, err := tmpl.Render(map[string]string{"A": "other", "B": "", "SOURCE_BRANCH": "x"})
		if err != nil {
			t.Fatalf("Render with other values: %v", err)
		}

		// The oracle: blocks of the raw template, on one line each.
		var want []string
		for _, m := range blockRE.FindAllStringSubmatch(template, -1) {
			want = append(want, m[1])
		}
		cmds := p.Commands()
		if got := sourcesOf(cmds); !slices.Equal(got, want) {
			t.Fatalf("commands = %q, want %q", got, want)
		}
		for i, c := range cmds {
			if placeholderRE.MatchString(c.Shell) {
				t.Fatalf("a placeholder of !`%s` is left in the shell text %q, with no value", c.Source, c.Shell)
			}
			if c.Shell != other.Commands()[i].Shell {
				t.Fatalf("the shell text depends on the values: %q and %q", c.Shell, other.Commands()[i].Shell)
			}
			for name, v := range c.Env {
				if v != values[strings.TrimPrefix(name, varPrefix)] {
					t.Fatalf("Env[%s] = %q, want the value intact", name, v)
				}
			}
		}

		var mu sync.Mutex
		var calls []string
		run := func(_ context.Context, c Command) (Output, error) {
			mu.Lock()
			calls = append(calls, c.Source)
			mu.Unlock()
			return Output{Stdout: "!`out` {{A}}"}, nil
		}
		if _, _, err := p.Expand(t.Context(), run, 0); err != nil {
			t.Fatalf("Expand() error: %v", err)
		}
		slices.Sort(calls)
		slices.Sort(want)
		if !slices.Equal(calls, want) {
			t.Fatalf("runner called with %q, want %q", calls, want)
		}
	})
}

// positions are command blocks that print values A and B, each standing somewhere a template
// may put it, with what they print.
var positions = []struct {
	body string
	want func(a, b string) string
}{
	{`printf '%s' {{A}}`, first},
	{`printf '%s' "{{A}}"`, first},
	{`printf '%s' '{{A}}'`, first},
	{`printf '%s' x{{A}}y "x{{B}}y" 'x{{A}}y'`, func(a, b string) string { return "x" + a + "yx" + b + "yx" + a + "y" }},
	{`printf '%s|%s' {{A}} {{B}}`, func(a, b string) string { return a + "|" + b }},
	{`printf '%s' "{{A}}"'{{B}}'{{A}}`, func(a, b string) string { return a + b + a }},
	{`printf '%s' {{A}} | cat`, first},
	{`true && printf '%s' {{A}}; false || printf '%s' {{B}}`, func(a, b string) string { return a + b }},
	{`printf '%s' "{{A}}" >&2; printf '%s' '{{B}}'`, second},
	{`printf '%s' "${UNSET}{{A}}" "$#"{{B}}`, func(a, b string) string { return a + "0" + b }},
	{`printf '%s' \'{{A}} "it's {{B}}" 'say "{{A}}"'`, func(a, b string) string { return "'" + a + "it's " + b + `say "` + a + `"` }},
	{`LC_ALL=C printf '%s' {{A}} 2>/dev/null </dev/null`, first},
	{`printf '%s' "$"{{A}} a#{{B}}`, func(a, b string) string { return "$" + a + "a#" + b }},
}

func first(a, _ string) string  { return a }
func second(_, b string) string { return b }

// FuzzCommandValues runs commands through real shells, sh and bash, in the host sandbox as the
// run does: whatever the values hold (quotes, $(), backticks, ;, newlines), nothing in them
// runs, so no file ever appears in the working directory, and each arrives intact. A value
// holding a NUL byte, which no process can be given, is refused.
func FuzzCommandValues(f *testing.F) {
	hostile := []string{
		`x"; touch pwned; echo "y`,
		`'; touch pwned; '`,
		"$(touch pwned)",
		"`touch pwned`",
		"; touch pwned",
		"a\nb; touch pwned\n",
		"${SANDCASTLE_ARG_B:=$(touch pwned)}",
		`\"; touch pwned #`,
		"*",
		"-n",
		"",
		"a\x00b",
		"a[$(touch pwned)]",
		"x' \"$(touch pwned)\" '",
		"\t\r\n",
	}
	for i := range positions {
		for _, v := range hostile {
			f.Add(uint8(i), v, "$(touch pwned)")
		}
	}
	var shells []string
	for _, sh := range []string{"sh", "bash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		}
	}
	dir, err := os.MkdirTemp("", "prompt-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	sb := host.New(dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir})
	f.Cleanup(func() { sb.Close(context.Background()) })

	f.Fuzz(func(t *testing.T, pos uint8, a, b string) {
		at := positions[int(pos)%len(positions)]
		tmpl, err := Parse("Value: !`" + at.body + "`\n")
		if err != nil {
			t.Fatalf("Parse(%q): %v", at.body, err)
		}
		values := map[string]string{"A": a, "B": b}
		p, err := tmpl.Render(values)
		refused := false
		for _, k := range tmpl.Keys() {
			refused = refused || strings.Contains(values[k], "\x00") || len(values[k]) > maxCommandValue
		}
		if refused {
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("Render with a value no command can be given = %v, want a *ValueError", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		c := p.Commands()[0]
		for _, sh := range shells {
			res, err := sb.Exec(t.Context(), sandbox.Exec{Argv: []string{sh, "-c", c.Shell}, Env: c.Env})
			if err != nil {
				t.Fatalf("%s -c %q: %v", sh, c.Shell, err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) > 0 {
				for _, e := range entries {
					os.RemoveAll(dir + "/" + e.Name())
				}
				t.Fatalf("%s -c %q with A=%q B=%q created %s: a value ran as shell", sh, c.Shell, a, b, entries[0].Name())
			}
			if want := at.want(a, b); res.ExitCode != 0 || res.Stdout != want {
				t.Fatalf("%s -c %q with A=%q B=%q printed %q (exit %d, %s), want %q", sh, c.Shell, a, b, res.Stdout, res.ExitCode, res.Stderr, want)
			}
		}
	})
}

// FuzzCommandTemplates proves the rule for where a placeholder may stand, rather than values:
// any command that Parse accepts with shell text of any kind around {{X}} never runs X's value,
// in dash or in bash, whether the value is shell code, an arithmetic expression whose subscript
// runs a command (which bash evaluates wherever it evaluates arithmetic or names a variable),
// or the name of a program. Each such value leaves a marker in a directory of its own when it
// runs.
//
// The commands run for real, so they run where they can do no harm: with PATH holding only a
// few harmless programs and those that run others (shells, interpreters, env, xargs, setarch,
// ssh-agent, ...), which a command the rule wrongly accepted would need to run a value; and
// only commands without a / or ~ in them, which keeps every file they name in their working
// directory.
//
// PATH also holds run-args, which stands for any program the rule does not know that runs its
// arguments as a command, as setarch and ssh-agent did before they were listed and as a script
// of the repository may: through it the fuzzer checks the rule's construction, that no shell or
// interpreter hides behind a runner, whichever it is. It runs anything but the harmful program
// itself: which program such a runner runs, a value among its arguments included
// (./a-script {{X}}), is its author's choice, which the rule cannot see.
func FuzzCommandTemplates(f *testing.F) {
	for _, r := range refused {
		before, after, _ := strings.Cut(r.body, "{{X}}")
		f.Add(before, after)
		f.Add("run-args "+before, after)
	}
	for _, p := range positions {
		before, after, _ := strings.Cut(strings.ReplaceAll(p.body, "{{B}}", "{{A}}"), "{{A}}")
		f.Add(before, strings.ReplaceAll(after, "{{A}}", "{{X}}"))
	}
	for _, seed := range [][2]string{
		{"printf '%s' ", ""}, {"echo ", " | xargs"}, {"env ", ""}, {"printf '%s' ", " | sh"},
		{"true; ", ""}, {"printf %s x; ", " x"}, {"echo x > ", ""}, {"echo \"", "\""},
		{"sh -c 'echo \"$1\"' sh ", ""}, {"printf '%s' $", ""}, {"echo ${", "}"}, {"a=", " printf x"},
		{"setarch x86_64 sh -c ", ""}, {"ssh-agent sh -c ", ""}, {"setarch x86_64 ", ""}, {"ssh-agent ", ""},
		{"linux32 bash -c ", ""}, {"taskset 1 sh -c ", ""}, {"ionice -c3 sh -c ", ""}, {"chrt -o 0 sh -c ", ""},
		{"setpriv sh -c ", ""}, {"prlimit --nofile=64 sh -c ", ""}, {"find . -maxdepth 0 -exec sh -c ", " ';'"},
		{"script -qc ", " log"}, {"strace -o trace sh -c ", ""}, {"run-args sh -c ", ""}, {"run-args ", ""},
		{"run-args ${UNSET}sh -c ", ""}, {"run-args $UNSET\"sh\" -c ", ""}, {"run-args s\\h -c ", ""},
		{"run-args \"$0\" -c ", ""}, {"run-args $_ -c ", ""}, {"printf x > sh; run-args s? -c ", ""},
		{"run-args perl -e ", ""}, {"run-args awk ", ""}, {"run-args git -c 'alias.x=!sh -c' x ", ""},
		{"run-args --shell=sh -c ", ""}, {"git -c 'alias.x=!eval \"$1\"' x ", ""},
		{"git config --global alias.x '!eval \"$1\"'; git x ", ""}, {"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!eval \"$1\"' git x ", ""}, {"run-args ", "sh -c 'echo \"$1\"' sh"},
	} {
		f.Add(seed[0], seed[1])
	}

	root := f.TempDir()
	dirs := map[string]string{}
	for _, d := range []string{"bin", "home", "work", "markers"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.Mkdir(dirs[d], 0o755); err != nil {
			f.Fatal(err)
		}
	}
	var shells []string
	for _, name := range []string{
		"dash", "bash", "sh", "env", "xargs", "timeout", "nice", "nohup", "setsid", "stdbuf", "flock",
		"setarch", "linux32", "linux64", "x86_64", "i386", "ssh-agent", "taskset", "ionice", "chrt",
		"setpriv", "prlimit", "script", "find", "strace", "perl", "awk", "sed", "git", "tar", "sort", "zip",
		"cat", "touch", "printf", "echo", "true", "false", "test",
	} {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(dirs["bin"], name)); err != nil {
				f.Fatal(err)
			}
			if name == "dash" || name == "bash" {
				shells = append(shells, p)
			}
		}
	}
	marker := func(name string) string { return filepath.Join(dirs["markers"], name) }
	program := "pwn-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.WriteFile(filepath.Join(dirs["bin"], program), []byte("#!/bin/sh\n: > "+marker("program")+"\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	runArgs := "#!/bin/sh\ncase \"$1\" in " + program + ") exit 0 ;; esac\nexec \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dirs["bin"], "run-args"), []byte(runArgs), 0o755); err != nil {
		f.Fatal(err)
	}
	values := []string{
		`x"; : > ` + marker("dq") + `; "'; : > ` + marker("sq") + `; '$(: > ` + marker("sub") + ")`: > " + marker("tick") + "`; : > " + marker("semi"),
		"a[$(: > " + marker("arith") + ")]",
		program,
	}
	sb := host.New(dirs["work"], []string{"PATH=" + dirs["bin"], "HOME=" + dirs["home"]})
	f.Cleanup(func() { sb.Close(context.Background()) })

	f.Fuzz(func(t *testing.T, before, after string) {
		body := before + "{{X}}" + after
		if strings.ContainsAny(body, "`\n\x00") {
			return // another block, or none; a prompt file holds no NUL byte
		}
		tmpl, err := Parse("!`" + body + "`")
		if err != nil || strings.ContainsAny(body, "/~") {
			return
		}
		for _, v := range values {
			p, err := tmpl.Render(map[string]string{"X": v})
			if err != nil {
				return // another placeholder than X
			}
			c := p.Commands()[0]
			for _, sh := range shells {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				_, err := sb.Exec(ctx, sandbox.Exec{Argv: []string{sh, "-c", c.Shell}, Env: c.Env})
				cancel()
				if err != nil {
					t.Fatalf("%s -c %q: %v", sh, c.Shell, err)
				}
				if ran, _ := os.ReadDir(dirs["markers"]); len(ran) > 0 {
					for _, e := range ran {
						os.Remove(marker(e.Name()))
					}
					t.Fatalf("Parse accepted !`%s`, and %s -c %q ran the value %q (%s)", body, filepath.Base(sh), c.Shell, v, ran[0].Name())
				}
			}
		}
	})
}
