package scaffold

// Versions the starter files pin, so that a rebuilt image or a re-run workflow gets the same
// tools. Bumping one changes every file that uses it, and their golden files.
const (
	// ClaudeCodeVersion is the @anthropic-ai/claude-code release the Dockerfile installs.
	ClaudeCodeVersion = "2.1.332"
	// CodexVersion is the @openai/codex release.
	CodexVersion = "0.171.0"
	// PiVersion is the @mariozechner/pi-coding-agent release.
	PiVersion = "0.73.1"
	// OpenCodeVersion is the opencode-ai release.
	OpenCodeVersion = "1.18.33"
	// CopilotVersion is the @github/copilot release.
	CopilotVersion = "1.0.102"
	// CursorVersion is the Cursor agent CLI release; it is not on npm, so the Dockerfile
	// downloads its archive.
	CursorVersion = "2026.09.10-fd3934a"
	// BaseImage is the image the Dockerfile starts from.
	BaseImage = "debian:bookworm-slim"
	// NodeImage is the image for CLIs that need a newer Node.js than Debian's.
	NodeImage = "node:22-bookworm-slim"
	// ActionRef is the action the workflow runs.
	ActionRef = "sandcastle-action/sandcastle@v0"
	// CheckoutRef is the checkout action the workflow runs first.
	CheckoutRef = "actions/checkout@v4"
)
