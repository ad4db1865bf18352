package inputs

import "time"

// BranchStrategy says how the agent's commits relate to branches.
type BranchStrategy string

const (
	// StrategyHead works directly in the checkout, on its current branch; no worktree.
	StrategyHead BranchStrategy = "head"
	// StrategyMergeToHead works in a worktree on a temporary branch that is merged into the
	// checkout's branch afterwards and then deleted.
	StrategyMergeToHead BranchStrategy = "merge-to-head"
	// StrategyBranch works in a worktree on a named branch; the commits stay there.
	StrategyBranch BranchStrategy = "branch"
)

// OutputType says how the text inside the output tag is read.
type OutputType string

const (
	// OutputObject is JSON, optionally checked against a schema.
	OutputObject OutputType = "object"
	// OutputString is plain text.
	OutputString OutputType = "string"
)

// LogStdout is the log-file value meaning "no log file, log to standard output only".
const LogStdout = "-"

// Config is one validated run configuration. Paths are absolute; lists carry no blank entries.
type Config struct {
	// Prompt is the prompt text: the prompt input, or the contents of PromptFile.
	Prompt string
	// PromptFile is the absolute path Prompt was read from, "" for an inline prompt. Only a prompt
	// from a file is a template ({{KEY}} substitution, !`cmd` expansion); an inline one is verbatim.
	PromptFile string
	// PromptArgs are the {{KEY}} values for a template; nil when none were given.
	PromptArgs map[string]string
	// CompletionSignals are the texts that end the loop; never empty.
	CompletionSignals []string
	// MaxIterations is the most agent invocations in the loop; at least 1.
	MaxIterations int
	// IdleTimeout is how long the agent may be silent before it is stopped and the run fails.
	IdleTimeout time.Duration
	// CompletionTimeout is how long to wait for the agent to exit once it printed a signal.
	CompletionTimeout time.Duration
	// ShellTimeout bounds each !`cmd` expression of a template.
	ShellTimeout time.Duration

	// Agent is the agent's name, one of Env.Agents.
	Agent string
	// Model is the model name; "" = the agent's default.
	Model string
	// Effort is the reasoning effort, one the agent accepts; "" = the agent's default.
	Effort string
	// PermissionMode is the agent's permission mode; "" = skip permission prompts.
	PermissionMode string
	// Sandbox is where the agent runs, one of Env.Sandboxes.
	Sandbox string

	// BranchStrategy says how commits reach a branch.
	BranchStrategy BranchStrategy
	// Branch is the branch to work on; set exactly when BranchStrategy is StrategyBranch.
	Branch string
	// Name is the run's name; "" = none.
	Name string
	// WorkingDirectory is the absolute path of the repository directory; it exists.
	WorkingDirectory string
	// CopyToWorktree are clean relative paths (no "..") to copy into the worktree; empty with
	// StrategyHead.
	CopyToWorktree []string
	// Hooks are the commands run at lifecycle points.
	Hooks Hooks

	// EnvNames are the names of host variables passed into the sandbox, without duplicates.
	EnvNames []string
	// EnvFile is the absolute path of the env file.
	EnvFile string
	// EnvFileValues are the variables parsed from EnvFile; nil when the file does not exist.
	// A key with an empty value is kept with "" so the caller can decide what empty means.
	EnvFileValues map[string]string

	// LogFile is the absolute path of the run log; "" = the default under .sandcastle/logs/,
	// chosen by the caller once the branch is known; LogStdout = no file.
	LogFile string
	// Verbose logs the agent's full stream.
	Verbose bool

	// Output is the structured-output request; nil when output-tag is not set.
	Output *OutputConfig
}

// Hooks are shell commands run at fixed points of a run, each bounded by Timeout.
type Hooks struct {
	// WorktreeReady run on the host once the worktree (or the checkout, for head) is ready.
	WorktreeReady []string
	// HostSandboxReady run on the host once the sandbox has started.
	HostSandboxReady []string
	// SandboxReady run inside the sandbox once it has started.
	SandboxReady []string
	// Timeout bounds each command.
	Timeout time.Duration
}

// OutputConfig asks for structured output read from a tag in the agent's final text.
type OutputConfig struct {
	// Tag is the tag name, like "result" for <result>...</result>.
	Tag string
	// Type says whether the content is JSON or plain text.
	Type OutputType
	// Schema is the raw JSON Schema document (valid JSON, not yet compiled); nil for none.
	// Only with OutputObject.
	Schema []byte
	// MaxRetries is how often to resume the session and ask again; > 0 only for resumable agents.
	MaxRetries int
}
