package inputs

import (
	"time"

	"github.com/sandcastle-action/sandcastle/internal/event"
)

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

// BuildPolicy says when the sandbox image is built.
type BuildPolicy string

const (
	// BuildAuto builds when the image is missing or was built from a different Dockerfile.
	BuildAuto BuildPolicy = "auto"
	// BuildAlways builds on every run.
	BuildAlways BuildPolicy = "always"
	// BuildNever never builds: the image must exist, or be pulled when Pull is set.
	BuildNever BuildPolicy = "never"
)

// SyncMode says how the repository reaches the sandbox.
type SyncMode string

const (
	// SyncAuto mounts when the Docker daemon can see the checkout, and copies otherwise.
	SyncAuto SyncMode = "auto"
	// SyncMount bind-mounts the checkout into the sandbox.
	SyncMount SyncMode = "mount"
	// SyncCopy copies the checkout in and the commits back out through the Docker API.
	SyncCopy SyncMode = "copy"
)

// LogStdout is the log-file value meaning "no log file, log to standard output only".
const LogStdout = "-"

// Config is one validated run configuration. Paths are absolute; lists carry no blank entries.
type Config struct {
	// Mode is the mode's name, one of Modes; ModeRun unless the mode input says otherwise.
	Mode string
	// Prompt is the prompt text: the prompt input, the contents of PromptFile, or the mode's
	// built-in prompt.
	Prompt string
	// PromptFile is the absolute path Prompt was read from, "" for an inline prompt. Only a prompt
	// from a file is a template ({{KEY}} substitution, !`cmd` expansion); an inline one is verbatim.
	PromptFile string
	// BuiltInPrompt says Prompt is the mode's built-in template, used since neither prompt nor
	// prompt-file was set. It is a template as a file's is.
	BuiltInPrompt bool
	// PromptArgs are the {{KEY}} values for a template, with those a mode's built-in prompt takes
	// from the other inputs (Mode.Args); nil when there are none.
	PromptArgs map[string]string
	// CompletionSignals are the texts that end the loop; never empty.
	CompletionSignals []string
	// MaxIterations is the most agent invocations in the loop; at least 1.
	MaxIterations int
	// IdleTimeout is how long the agent may be silent before it is stopped and the run fails.
	IdleTimeout time.Duration
	// CompletionTimeout is how long to wait for the agent to exit once it printed a signal.
	CompletionTimeout time.Duration
	// ShellTimeout bounds each !`cmd` expression of a template, and VerifyCommand.
	ShellTimeout time.Duration
	// VerifyCommand is run by sh in the sandbox after each iteration; "" = none.
	VerifyCommand string
	// RunTimeout bounds the whole run, publishing excepted; 0 = no limit.
	RunTimeout time.Duration
	// MaxCostUSD is the most the agent may cost, as it reports it; 0 = no limit.
	MaxCostUSD float64

	// Agent is the agent's name, one of Env.Agents.
	Agent string
	// Model is the model name; "" = the agent's default.
	Model string
	// Effort is the reasoning effort, one the agent accepts; "" = the agent's default.
	Effort string
	// PermissionMode is the agent's permission mode; "" = skip permission prompts.
	PermissionMode string
	// ResumeSession is the id of a session the first iteration continues; "" = a fresh one.
	ResumeSession string
	// ForkSession continues ResumeSession under a new id, leaving it unchanged.
	ForkSession bool
	// Sandbox is where the agent runs: SandboxDocker or SandboxNone.
	Sandbox string
	// Docker configures the container; the zero value unless Sandbox is SandboxDocker.
	Docker DockerConfig

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

	// GitHub is what the run does on GitHub: push, pull request, comment, triggers and guards.
	GitHub GitHubConfig
}

// PushMode says whether and how the agent's branch is pushed.
type PushMode string

const (
	// PushAuto pushes, fast-forward only, the branch of a branch-strategy run that made commits,
	// when running as a GitHub Action; anything else pushes nothing.
	PushAuto PushMode = "auto"
	// PushNone never pushes.
	PushNone PushMode = "none"
	// PushForce overwrites the remote branch with the agent's.
	PushForce PushMode = "force"
	// PushLease overwrites the remote branch only if it is still where it was when the run
	// started.
	PushLease PushMode = "lease"
)

// GitHubConfig is the GitHub side of a run.
type GitHubConfig struct {
	// Token authenticates pushes and API calls; "" = the GITHUB_TOKEN variable, if any. It is
	// trimmed and holds no whitespace. A secret: never log it or put it in a message.
	Token string
	// Push says whether and how the branch is pushed.
	Push PushMode
	// OpenPR opens (or updates) a pull request from the pushed branch. Never with PushNone or
	// StrategyMergeToHead, whose branch is deleted.
	OpenPR bool
	// PRDraft opens the pull request as a draft.
	PRDraft bool
	// PRBase is the pull request's base branch; "" = the branch the run started from or, for a
	// run on the event's pull request branch, that pull request's base.
	PRBase string
	// PRTitle and PRBody are {{KEY}} templates; "" = the built-in ones. PRTitle is one trimmed
	// line; PRBody is Markdown as given. Both are "" unless OpenPR.
	PRTitle, PRBody string
	// ProgressComment keeps one comment on the triggering issue or pull request up to date.
	ProgressComment bool

	// Subjects are what the mode answers (an issue, a pull request, the workflow); an event
	// about anything else is skipped. None answers every event.
	Subjects []event.Subject
	// TriggerPhrases start a run from a comment; never empty (the default is /sandcastle and
	// @sandcastle), no two equal ignoring case.
	TriggerPhrases []string
	// TriggerNotBefore are words that, right after a trigger phrase, ask another mode: the
	// phrase does not count then. Set by the mode.
	TriggerNotBefore []string
	// TriggerLabel is the label that starts a run; "" = any label.
	TriggerLabel string
	// InProgressLabel is on the issue while a run works on it; "" = none. The three labels are
	// trimmed, at most 50 characters without commas, and differ (ignoring case) when set.
	InProgressLabel string
	// BlockedLabel is added when a run fails; "" = none.
	BlockedLabel string
	// AllowedUsers may trigger runs without write permission: GitHub logins, no bots, no two
	// equal ignoring case.
	AllowedUsers []string
	// AllowedBots are bots that may trigger runs without a permission check: logins, with or
	// without the "[bot]" suffix, no two equal ignoring case.
	AllowedBots []string
	// AllowBots lets any bot with write permission trigger runs.
	AllowBots bool
	// RefuseIfOpenPR refuses an issue that already has an open pull request by a collaborator.
	RefuseIfOpenPR bool
	// AllowForks lets an OnPullRequest run work on a pull request from a fork; its commits go
	// to a branch of this repository, never to the fork. Off: such a pull request is refused.
	AllowForks bool

	// OutputAction is what the host does with the structured output: none, review or triage.
	OutputAction string
	// OnPullRequest runs on the event's pull request's own branch: the pull request the event
	// is about (a pull_request event's, or the one a comment was made on) is looked up, its head
	// fetched and checked out (in a worktree, on a branch named as its head branch; a fork's on
	// one of this repository, see AllowForks), and the commits pushed back to it, with a lease on
	// the head the run started from. An event about no pull request is skipped. Set by the modes
	// pr and review.
	OnPullRequest bool
	// Reply quotes the agent's final message, its answer to the comment that started the run,
	// in the progress comment once the run ends. Set by the mode pr.
	Reply bool
	// Triage is what a triage run may do; zero unless OutputAction is triage.
	Triage TriageConfig
	// Relay gives the Docker sandbox read-only access to the repository on GitHub.
	Relay bool
}

// TriageConfig bounds what a triage run carries out.
type TriageConfig struct {
	AllowedLabels []string // labels it may add or remove, trimmed, no two equal ignoring case
	MaxActions    int
	TriagedLabel  string // "" = mark by comment only
	PullRequests  bool
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
	// Type says whether the content is JSON or plain text: JSON exactly when there is a Schema.
	Type OutputType
	// Schema is the raw JSON Schema document (valid JSON, not yet compiled); nil for none.
	// Only with OutputObject.
	Schema []byte
	// MaxRetries is how often to resume the session and ask again; > 0 only for resumable agents.
	MaxRetries int
}

// DockerConfig is how the Docker sandbox is built and run. Paths are absolute host paths, as
// this process sees them; translating them for a daemon outside our own container is the
// caller's job.
type DockerConfig struct {
	// Image is the image reference the container runs; never empty. When the image input is
	// empty it is "sandcastle:" and the working directory's name in lower case, other characters
	// than a-z, 0-9, _, . and - turned into -; or, when there is no Dockerfile to build it from
	// either, the agent's published sandbox image (see Prebuilt).
	Image string
	// Prebuilt says Image is the agent's published sandbox image (release.SandboxImage), used
	// because neither the image input nor a Dockerfile was there: Build is then BuildNever and
	// Pull true, so it is pulled when the engine lacks it and never built.
	Prebuilt bool
	// Build says when Image is built from Dockerfile.
	Build BuildPolicy
	// Dockerfile is the absolute path of the Dockerfile. It exists when Build is BuildAlways or
	// the dockerfile input was given; otherwise a missing default file is the caller's to report
	// if it needs to build.
	Dockerfile string
	// BuildContext is the absolute directory sent to the build: the build-context input, else
	// the Dockerfile's directory. The Dockerfile need not lie inside it.
	BuildContext string
	// BuildArgs are the build arguments given; nil when none. AGENT_UID and AGENT_GID are left
	// to the caller to default to the agent's uid and gid when absent.
	BuildArgs map[string]string
	// Pull allows pulling Image from its registry when it is missing locally; never with
	// BuildAlways or the default Image built here, always with Prebuilt.
	Pull bool

	// UID and GID are the user and group the agent runs as; nil means the owner and group of the
	// working directory, which the caller resolves. When set they are in 1..2147483647: root is
	// refused.
	UID, GID *int
	// Groups are extra groups for the agent's user, names or decimal ids, without duplicates.
	Groups []string

	// Network is the Docker network to join; "" means Docker's default bridge.
	Network string
	// CPUs is the most CPUs the container may use; 0 means no limit. When set, CPUs*1e9 is a
	// whole number of at least 1 that fits an int64 (Docker's NanoCPUs).
	CPUs float64
	// Memory is the most memory the container may use, in bytes; at least 6 MiB.
	Memory int64
	// PidsLimit is the most processes the container may run at once; at least 1.
	PidsLimit int64

	// Mounts are the extra bind mounts, in the order given, no two with the same Sandbox path.
	Mounts []Mount
	// Devices are the host devices given to the container.
	Devices []Device
	// SELinuxLabel is the label option for bind mounts: "", "z" or "Z".
	SELinuxLabel string
	// Sync says how the repository reaches the sandbox.
	Sync SyncMode
}

// Mount is one extra bind mount.
type Mount struct {
	// Host is the absolute, clean host path: relative ones are resolved against the working
	// directory and ~ against Env.Home. It existed when the inputs were loaded, and it is not a
	// Docker socket or a directory holding one.
	Host string
	// Sandbox is the clean path inside the sandbox as given: absolute, or "~" or "~/..." for the
	// agent's home, which the caller expands. It never contains "..".
	Sandbox string
	// ReadOnly mounts Host read-only.
	ReadOnly bool
}

// Device is one host device given to the container.
type Device struct {
	// Host is the device path on the host, under /dev/.
	Host string
	// Sandbox is the path inside the sandbox; Host when not given.
	Sandbox string
	// Permissions are the cgroup permissions, letters of "rwm"; "rwm" when not given.
	Permissions string
}
