package scaffold

// Versions the starter files pin, so that a rebuilt image or a re-run workflow gets the same
// tools. Bumping one changes every file that uses it, and their golden files.
const (
	// ClaudeCodeVersion is the @anthropic-ai/claude-code release the Dockerfile installs.
	ClaudeCodeVersion = "2.1.332"
	// BaseImage is the image the Dockerfile starts from.
	BaseImage = "debian:bookworm-slim"
	// ActionRef is the action the workflow runs.
	ActionRef = "sandcastle-action/sandcastle@v0"
	// CheckoutRef is the checkout action the workflow runs first.
	CheckoutRef = "actions/checkout@v4"
)
