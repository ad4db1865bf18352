package app

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/gitguard"
	"github.com/sandcastle-action/sandcastle/internal/report"
)

// repoGuard keeps the repository's git directory from a Docker sandbox's agent: it puts back
// what the agent changed after every iteration and once the sandbox is gone, warns about it,
// and keeps the paths for the outputs and the summary.
type repoGuard struct {
	guard    *gitguard.Guard
	log      *report.Log
	restored []string // sorted, each once
}

// check puts back what the agent changed so far.
func (g *repoGuard) check() error {
	changes, err := g.guard.Check()
	g.note(changes)
	return err
}

// close checks a last time, once nothing can write the repository any more, and removes the
// mount targets the sandbox needed. A failure joins the run's error, err: the repository may
// still hold what the agent planted.
func (g *repoGuard) close(ctx context.Context, err error) error {
	changes, cerr := g.guard.Close(ctx)
	g.note(changes)
	return errors.Join(err, cerr)
}

func (g *repoGuard) note(changes []gitguard.Change) {
	if len(changes) == 0 {
		return
	}
	what := make([]string, len(changes))
	for i, c := range changes {
		what[i] = c.String()
		if !slices.Contains(g.restored, c.Path) {
			g.restored = append(g.restored, c.Path)
		}
	}
	slices.Sort(g.restored)
	g.log.Warning("the agent changed what decides which programs git runs on this machine (files of the repository's git directory, or a repository it nested in the working tree); each was put back as it was, or moved out of the working tree: %s", strings.Join(what, ", "))
}
