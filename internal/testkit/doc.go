// Package testkit holds helpers for tests that drive real tools: RequireBinary, and Anthropic, a
// scripted stand-in for the Anthropic Messages API that the real Claude Code CLI talks to through
// ANTHROPIC_BASE_URL, so end-to-end tests run real agent iterations deterministically and offline.
//
// # The script
//
// NewAnthropic(t, steps...) starts an HTTP server on 127.0.0.1. Every "main" request — a POST to
// /v1/messages that offers tools, i.e. one turn of the agent's conversation — is answered by the
// next step: step index = number of main requests received before it. The steps are
//
//	Text(s)          assistant text, stop_reason end_turn: the CLI finishes and prints its result
//	Bash(cmd)        a Bash tool_use, stop_reason tool_use: the CLI runs cmd and calls back
//	                 with the tool_result, which is the next main request
//	Error(status, m) an HTTP error with the API's error JSON
//	Hang()           no answer until the client goes away or the test ends (an idle agent)
//	TextThenHang(s)  s as a finished text block, then the response is held open: the CLI prints
//	                 the assistant line with s and waits, never printing a result (an agent that
//	                 prints the completion signal and never exits)
//
// Replies are streamed as the API does (message_start, ping, content_block_start/delta/stop with
// text_delta or input_json_delta, message_delta with stop_reason and usage, message_stop), or sent
// as one JSON message when the request did not ask to stream. Each reply reports the same usage
// (InputTokensPerReply, OutputTokensPerReply, CacheReadTokensPerReply,
// CacheCreationTokensPerReply), so the CLI's result line shows predictable tokens and a non-zero
// total_cost_usd.
//
// Nothing else consumes a step: requests without tools (titles, topics and similar helper calls)
// get a short text, /v1/messages/count_tokens a fixed count, HEAD /api/hello a 200; any other
// path is logged to the test log and answered 404. A main request past the end of the script gets
// the text "script exhausted" and fails the test; a script not used up by the end of a test that
// otherwise passed fails it too. Requests returns the main requests received (model, system,
// messages, tools, raw body) and WaitRequests waits for the nth, so a test can see that a resumed
// session re-sends its earlier turns, or act once the agent hangs.
//
// Retries spend steps like any request. With Env's CLAUDE_CODE_MAX_RETRIES=0 one Error step ends
// the run for 401, 403, 413, 429, 500 and 529; 400 makes claude 2.1.332 send five more attempts
// with fewer beta features, and 404 one more without streaming (see Error).
//
// # The environment
//
// Env(home) returns what the CLI needs beside PATH; give it nothing else from the caller's
// environment, since a developer's CLAUDE_CODE_OAUTH_TOKEN or CLAUDE_CONFIG_DIR would otherwise
// take part:
//
//	HOME=<home>                      settings, sessions (<home>/.claude/projects/...)
//	TMPDIR=<home>/tmp                per-run scratch and the messaging socket, else in /tmp
//	ANTHROPIC_API_KEY=<fake>         any value; the stand-in does not check it
//	ANTHROPIC_BASE_URL=<server URL>
//	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1  no /api/hello probe, telemetry, update checks
//	CLAUDE_CODE_MAX_RETRIES=0        errors fail at once instead of after minutes of backoff
//	IS_SANDBOX=1                     allows --dangerously-skip-permissions as root
//
// With these, claude makes no DNS lookup and no connection except to the stand-in.
package testkit
