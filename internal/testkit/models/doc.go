// Package models is a pair of scripted model APIs, so that end-to-end tests run real agent CLIs
// deterministically and offline: Anthropic, the Messages API that Claude Code talks to through
// ANTHROPIC_BASE_URL, and OpenAI, the Responses API that Codex talks to through a model provider
// of its config. Each answers every main request (one turn of the agent's conversation: a request
// that offers tools) with the next Step of its script (Text, Bash, Error, Hang, TextThenHang),
// and everything else without spending one; a main request past the end of the script, or a
// step left unused by a test that otherwise passed, fails the test. Every reply reports the same
// usage (InputTokensPerReply and the rest), so the usage a CLI prints is predictable. Env,
// CodexArgs and CodexConfig point each CLI at its stand-in; testkit's ClaudeCodeVersion and
// CodexVersion are the releases whose wire behaviour the stand-ins were checked against.
package models
