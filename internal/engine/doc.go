// Package engine is the lifecycle of one run: the trigger decided, the workspace prepared, the
// sandbox started and its hooks run, the loop, the structured output read, the commits
// published and the outcome reported, through small interfaces it declares where it uses them
// (Reporter, GitHub, Progress, Workspaces, Sandboxes with the GitGuard of a container,
// Publisher). It keeps the rules of the lifecycle: what a refusal answers, which labels move,
// what the progress comment shows, that the sandbox is stopped and the git directory put back
// on every path, a cancelled run included, where the commits end up and what the status says,
// classified by the error's type. Run returns one report.Outcome, rendered three ways.
//
// It also holds the pure checks of preflight that need the plan's pieces together: the prompt
// rendered once (RenderPrompt), the pull request's templates (CheckPR) and the agent's
// environment (AgentEnv).
//
// The engine imports only pure packages (inputs, prompt, agent, structured, event, report,
// gitref, sandbox's interface) and run; the adapters never import it: app builds them and
// checks at compile time that each fits.
package engine
