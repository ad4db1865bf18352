package prompt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/sandbox"
	"github.com/sandcastle-action/sandcastle/internal/sandbox/host"
)

// FuzzTemplate checks the split against any template and any two values: the commands are
// exactly the one-line blocks of the raw template, their shell text does not depend on the
// values (which travel only in their environment), and nothing else is handed to the runner.
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
	{`printf '%s' "$(printf '%s' {{A}})"`, func(a, _ string) string { return strings.TrimRight(a, "\n") }},
	{`printf '%s' "$(printf '%s' "{{A}}")" "$(printf '%s' '{{B}}')"`, func(a, b string) string { return strings.TrimRight(a, "\n") + strings.TrimRight(b, "\n") }},
	{`printf '%s|%s' {{A}} {{B}}`, func(a, b string) string { return a + "|" + b }},
	{`printf '%s' "{{A}}"'{{B}}'{{A}}`, func(a, b string) string { return a + b + a }},
	{`x={{A}}; printf '%s' "$x"`, first},
	{`case {{A}} in *) printf '%s' {{B}};; esac`, second},
	{`(printf '%s' {{A}}); { printf '%s' {{B}}; }`, func(a, b string) string { return a + b }},
	{`printf '%s' {{A}} | cat # {{B}}`, first},
	{`test -n {{A}} || printf empty; printf '%s' {{A}}`, func(a, _ string) string {
		if a == "" {
			return "empty"
		}
		return a
	}},
	{`printf '%s' "{{A}}" >&2; printf '%s' '{{B}}'`, second},
	{`printf '%s' "${HOME:+}{{A}}" "$(( 1 ))"{{B}}`, func(a, b string) string { return a + "1" + b }},
	{`printf '%s' \'{{A}} "it's {{B}}" 'say "{{A}}"'`, func(a, b string) string { return "'" + a + "it's " + b + `say "` + a + `"` }},
	{`sh -c 'printf %s "$1"' sh {{A}}; env X={{B}} sh -c 'printf %s "$X"'`, func(a, b string) string { return a + b }},
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
