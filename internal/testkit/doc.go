// Package testkit holds helpers for tests that drive real tools: RequireBinary, and two scripted
// stand-ins for model APIs, so end-to-end tests run real agent iterations deterministically and
// offline: Anthropic, for the Anthropic Messages API that the real Claude Code CLI talks to
// through ANTHROPIC_BASE_URL, and OpenAI, for the OpenAI Responses API that the real Codex CLI
// talks to through a custom model provider. FakeClaude stands in for the claude CLI itself,
// driven by the same steps, so a whole run reaches every part of the lifecycle in a plain go
// test, without npm. For the GitHub side it has GitServer, a git
// smart-HTTP remote (git http-backend) that checks the push token, and GitHub, a stateful fake
// of the GitHub REST API under /api/v3, in the style of go-github's own tests: the one fake of
// the suite, since the real API cannot run here.
//
// # The script
//
// NewAnthropic(t, steps...) and NewOpenAI(t, steps...) start an HTTP server on 127.0.0.1. Every
// "main" request — one that offers tools, i.e. one turn of the agent's conversation: a POST to
// /v1/messages (Anthropic) or /v1/responses (OpenAI) — is answered by the next step: step index
// = number of main requests received before it. The same steps script both:
//
//	Text(s)          assistant text that ends the turn: the CLI prints s as its final message
//	Bash(cmd)        one call of the CLI's shell tool (Anthropic: Bash tool_use; OpenAI: a
//	                 function_call of the shell tool the request offers, exec_command for codex):
//	                 the CLI runs cmd and calls back with the result, which is the next main
//	                 request
//	Error(status, m) an HTTP error with the API's error JSON
//	Hang()           no answer until the client goes away or the test ends (an idle agent)
//	TextThenHang(s)  s as finished assistant text, then the response is held open unfinished:
//	                 the CLI prints the line with s and waits, never ending the turn (an agent
//	                 that prints the completion signal and never exits)
//
// Replies are streamed as each API does (Anthropic: message_start, ping,
// content_block_start/delta/stop, message_delta with stop_reason and usage, message_stop;
// OpenAI: response.created, response.output_item.added, the item's deltas,
// response.output_item.done, response.completed with usage), or sent as one JSON object when the
// request did not ask to stream. Each reply reports the same usage (InputTokensPerReply,
// OutputTokensPerReply, CacheReadTokensPerReply, and for Anthropic CacheCreationTokensPerReply),
// so the usage the CLI prints is predictable: claude's result line shows n replies' tokens and a
// non-zero total_cost_usd; codex's turn.completed shows input_tokens n×(InputTokensPerReply +
// CacheReadTokensPerReply), since in the Responses API input_tokens includes the cached part,
// cached_input_tokens n×CacheReadTokensPerReply and output_tokens n×OutputTokensPerReply.
//
// Nothing else consumes a step: requests without tools (titles, topics and similar helper calls)
// get a short text; Anthropic answers /v1/messages/count_tokens with a fixed count and HEAD
// /api/hello with 200; any other request, codex's WebSocket upgrade (GET /v1/responses)
// included, is logged to the test log and answered 404. A main request past the end of the
// script gets the text "script exhausted" and fails the test; a script not used up by the end of
// a test that otherwise passed fails it too. Requests returns the main requests received (model,
// system, messages, tools, raw body; a Responses request's input items are mapped onto messages,
// see Request) and WaitRequests waits for the nth, so a test can see that a resumed session
// re-sends its earlier turns, or act once the agent hangs.
//
// Retries spend steps like any request. With Anthropic's Env (CLAUDE_CODE_MAX_RETRIES=0) one
// Error step ends the run for 401, 403, 413, 429, 500 and 529; 400 makes claude 2.1.332 send five
// more attempts with fewer beta features, and 404 one more without streaming (see Error). With
// OpenAI's provider settings (request_max_retries=0, stream_max_retries=0) codex 0.171.0 makes
// one request per Error step, whatever the status, and fails the turn (turn.failed, exit 1); its
// message quotes the API's message, except for 429 ("exceeded retry limit") and 500 (a canned
// "high demand" text). A stream cut before response.completed fails the turn too, with
// "stream disconnected before completion", instead of being replayed.
//
// # The environment
//
// Anthropic's Env(home) returns what claude needs beside PATH; give it nothing else from the
// caller's environment, since a developer's CLAUDE_CODE_OAUTH_TOKEN or CLAUDE_CONFIG_DIR would
// otherwise take part:
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
//
// OpenAI's Env(home) returns HOME=<home>, CODEX_HOME=<home>/.codex (which must exist before
// codex starts: create it) and CODEX_API_KEY=<fake>. The stand-in is chosen by codex's config,
// not its environment: pass CodexArgs (two -c flags that define and select the model provider
// "sandcastle_test" with base_url URL(), env_key CODEX_API_KEY, wire_api "responses" and retries
// off) to `codex exec`, or, when the product builds codex's argv, write CodexConfig (the same as
// a config.toml body) to $CODEX_HOME/config.toml. Run codex with --skip-git-repo-check outside a
// git repository; it runs shell commands with /bin/bash -lc. Use a model of its bundled catalog
// (gpt-5.5): another name adds a "Model metadata ... not found" warning item to its output.
// Beside the stand-in, codex 0.171.0 runs `git ls-remote https://github.com/openai/plugins.git`
// in the background (its plugin marketplace), which fails harmlessly offline; the config
// features.plugins=false stops it.
//
// # Workflows under act
//
// Act runs a workflow file under nektos/act (ActVersion, which scripts/install-act.sh installs)
// against the local Docker engine, as Gitea's and Forgejo's runners, built on act, run it too:
// each job in a container of Platform (BaseImage) on the host's network, each Docker action in a
// container of its own that joins the job's network, the workspace a volume of root's. Nothing
// is pulled. Actions come from local directories (Actions, act's --local-repository), GITHUB_*
// from Env (act lets GITHUB_SERVER_URL, GITHUB_API_URL, GITHUB_GRAPHQL_URL and GITHUB_REPOSITORY
// be set), secrets from Secrets through act's environment. ActRun.Printed returns the lines the
// steps printed. actions/checkout cannot be fetched: CheckoutStandIn writes a composite action
// that fetches the branch from the git remote as it would. The containers a Docker action
// starts are on Docker's default bridge, where 127.0.0.1 is their own: ForContainers gives a
// test server an address on the bridge's gateway that they, the host and act's jobs all reach.
package testkit
