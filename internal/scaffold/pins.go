package scaffold

// The actions the starter workflow runs, pinned so that a re-run workflow gets the same ones. The
// Dockerfile's base, the published sandbox image, is pinned by internal/release's version.
const (
	// ActionRef is the action the workflow runs: this repository at its major tag.
	ActionRef = "sandcastle-action/sandcastle@v0"
	// CheckoutRef is the checkout action the workflow runs first.
	CheckoutRef = "actions/checkout@v4"
)
