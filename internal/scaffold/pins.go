package scaffold

import "github.com/sandcastle-action/sandcastle/internal/release"

// The actions the starter workflow runs, pinned so that a re-run workflow gets the same ones. The
// Dockerfile's base, the published sandbox image, is pinned by internal/release's version.
const (
	// CheckoutRef is the checkout action the workflow runs first.
	CheckoutRef = "actions/checkout@v4"
)

// ActionRef is the action the workflow runs: this repository at the major tag of this source
// tree's release.
func ActionRef() string {
	return release.Owner + "/sandcastle@" + release.MajorTag()
}
