package docker

import (
	"context"
	"errors"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Sweep removes the containers left behind by earlier runs on the same repository (see
// Options.Repo) and returns how many it removed. A container is left behind when dead, given its
// labelOwner, says the process that started it is gone; runs that are still going on the same
// repository (merge-to-head runs in parallel, say) keep theirs.
//
// Inside a container Action, repo must identify the repository on the daemon's host (its host
// path, see Self): workspaces of concurrent jobs on one daemon share their in-container path.
func (e *Engine) Sweep(ctx context.Context, repo string, dead func(owner string) bool) (int, error) {
	list, err := e.api.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: client.Filters{}.Add("label", labelRepo+"="+repoKey(repo)),
	})
	if err != nil {
		return 0, fmt.Errorf("docker: list containers of earlier runs: %w", err)
	}
	n := 0
	var errs []error
	for _, c := range list.Items {
		if !dead(c.Labels[labelOwner]) {
			continue
		}
		_, err := e.api.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		switch {
		case err == nil:
			n++
		case !cerrdefs.IsNotFound(err): // gone already: another sweep got it
			errs = append(errs, fmt.Errorf("docker: remove container %.12s of run %q: %w", c.ID, c.Labels[labelRun], err))
		}
	}
	return n, errors.Join(errs...)
}
