package prompt

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// FuzzTemplate checks the safety property against any template and any two values: the
// commands are exactly the blocks of the raw template, each with its placeholders filled in,
// and nothing else is ever handed to the runner.
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
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	blockRE := regexp.MustCompile("!`([^`]+)`")
	f.Fuzz(func(t *testing.T, template, a, b string) {
		values := map[string]string{"A": a, "B": b, "SOURCE_BRANCH": "main", "TARGET_BRANCH": "main"}
		p, _, err := Template(template, map[string]string{"A": a, "B": b}, map[string]string{"SOURCE_BRANCH": "main", "TARGET_BRANCH": "main"})
		if err != nil {
			return // placeholders other than A, B and the built-ins
		}

		// The oracle: blocks of the raw template, placeholders filled in one by one.
		var want []string
		for _, m := range blockRE.FindAllStringSubmatch(template, -1) {
			want = append(want, fill(m[1], values))
		}
		if got := p.Commands(); !slices.Equal(got, want) {
			t.Fatalf("Commands() = %q, want %q", got, want)
		}

		var mu sync.Mutex
		var calls []string
		run := func(_ context.Context, cmd string) (Output, error) {
			mu.Lock()
			calls = append(calls, cmd)
			mu.Unlock()
			return Output{Stdout: "!`out` {{A}}"}, nil
		}
		if _, err := p.Expand(t.Context(), run, 0); err != nil {
			t.Fatalf("Expand() error: %v", err)
		}
		slices.Sort(calls)
		slices.Sort(want)
		if !slices.Equal(calls, want) {
			t.Fatalf("runner called with %q, want %q", calls, want)
		}
	})
}

// fill substitutes placeholders by hand, left to right, without rescanning values: an
// implementation independent of the package's.
func fill(s string, values map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return b.String() + s
		}
		j := strings.Index(s[i+2:], "}}")
		if j >= 0 {
			key := strings.Trim(s[i+2:i+2+j], reSpace)
			if v, ok := values[key]; ok { // values holds only valid keys
				b.WriteString(s[:i] + v)
				s = s[i+2+j+2:]
				continue
			}
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
}

// reSpace is what \s matches in Go's regular expressions.
const reSpace = " \t\n\f\r"
