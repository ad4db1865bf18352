package report

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// minSecretLen is the shortest value worth redacting: masking shorter ones would blank out
// ordinary words and digits everywhere.
const minSecretLen = 4

// Redactor replaces registered secrets with "***". The zero value is ready to use and it is
// safe for concurrent use.
type Redactor struct {
	mu       sync.RWMutex
	secrets  map[string]bool
	replacer *strings.Replacer
}

// Add registers secret and returns the forms it registered: a multi-line secret is also
// registered line by line, and its JSON string form too, so it is caught when a line or a JSON
// document carries it. Values shorter than 4 characters are ignored.
func (r *Redactor) Add(secret string) (forms []string) {
	forms = variants(secret)
	if len(forms) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	for _, f := range forms {
		r.secrets[f] = true
	}
	// Longest first, so a secret that contains another is replaced whole.
	all := make([]string, 0, len(r.secrets))
	for s := range r.secrets {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, "***")
	}
	r.replacer = strings.NewReplacer(pairs...)
	return forms
}

// Redact returns s with every registered secret replaced by "***".
func (r *Redactor) Redact(s string) string {
	r.mu.RLock()
	rep := r.replacer
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// variants are the forms of secret worth redacting.
func variants(secret string) []string {
	var out []string
	add := func(s string) {
		if utf8.RuneCountInString(s) >= minSecretLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(secret)
	if strings.ContainsAny(secret, "\r\n") {
		for line := range strings.Lines(secret) {
			add(strings.TrimRight(line, "\r\n"))
		}
	}
	for _, s := range slices.Clone(out) {
		b, _ := json.Marshal(s) // a string always encodes
		add(string(b[1 : len(b)-1]))
	}
	return out
}
