package inputs

import (
	"strings"

	"github.com/sandcastle-action/sandcastle/internal/release"
)

// Kind says what shape of value an input takes. It drives the docs and the CLI help, and tells
// FromFlags which flags may repeat.
type Kind int

const (
	// KindString is free text on one line.
	KindString Kind = iota + 1
	// KindText is free text that may span lines.
	KindText
	// KindNumber is a whole number.
	KindNumber
	// KindBool is true or false (also yes/no, 1/0).
	KindBool
	// KindChoice is one of a fixed set of words.
	KindChoice
	// KindList is one item per line; on the command line the flag may repeat.
	KindList
	// KindMap is a map of names to strings (YAML, JSON or KEY=VALUE lines).
	KindMap
	// KindPath is a file or directory path.
	KindPath
	// KindDecimal is a number that may have a fraction, like 1.5.
	KindDecimal
	// KindSize is an amount of memory: bytes, or a number with a unit like 512m or 4g.
	KindSize
)

// String returns the word the docs use for k.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindText:
		return "text"
	case KindNumber:
		return "number"
	case KindBool:
		return "boolean"
	case KindChoice:
		return "choice"
	case KindList:
		return "list"
	case KindMap:
		return "map"
	case KindPath:
		return "path"
	case KindDecimal:
		return "decimal"
	case KindSize:
		return "size"
	default:
		return "unknown"
	}
}

// Definition describes one input. The same name is the action.yml input, the CLI flag --<name>
// and, through EnvName, the INPUT_* variable the runner sets.
type Definition struct {
	Name        string
	Default     string // as action.yml spells it; "" = no default
	Description string // one paragraph, for action.yml, --help and docs/inputs.md
	Kind        Kind
	Multiline   bool     // the value may span lines (YAML block scalars in a workflow)
	Choices     []string // KindChoice: the words the docs list; agents come from Env instead
	// ActionDefault is action.yml's default when it is a workflow expression, like
	// ${{ github.token }}, that the command line cannot have; "" = Default. The runner
	// evaluates it, so Load never sees it: on the command line the input defaults to Default.
	ActionDefault string
	// Formerly is the top-level input this key of a map input was before it moved there, so
	// that a workflow that still sets it is told where it went; "" = none.
	Formerly string
}

// Input names, so code and tests refer to inputs without repeating string literals.
const (
	InputMode                     = "mode"
	InputPrompt                   = "prompt"
	InputPromptFile               = "prompt-file"
	InputPromptArgs               = "prompt-args"
	InputCompletionSignal         = "completion-signal"
	InputTimeouts                 = "timeouts"
	InputMaxIterations            = "max-iterations"
	InputIdleTimeoutSeconds       = "timeouts.idle-seconds"
	InputCompletionTimeoutSeconds = "timeouts.completion-seconds"
	InputShellTimeoutSeconds      = "timeouts.shell-seconds"
	InputRunMinutes               = "timeouts.run-minutes"
	InputMaxCostUSD               = "timeouts.max-cost-usd"
	InputVerifyCommand            = "verify-command"
	InputAgent                    = "agent"
	InputModel                    = "model"
	InputEffort                   = "effort"
	InputPermissionMode           = "permission-mode"
	InputResumeSession            = "resume-session"
	InputForkSession              = "fork-session"
	InputSandbox                  = "sandbox"
	InputImage                    = "image"
	InputDocker                   = "docker"
	InputBuildImage               = "docker.build-image"
	InputDockerfile               = "dockerfile"
	InputBuildContext             = "docker.build-context"
	InputBuildArgs                = "docker.build-args"
	InputPull                     = "docker.pull"
	InputContainerUID             = "docker.container-uid"
	InputContainerGID             = "docker.container-gid"
	InputNetwork                  = "docker.network"
	InputCPUs                     = "docker.cpus"
	InputMemory                   = "docker.memory"
	InputPidsLimit                = "docker.pids-limit"
	InputMounts                   = "docker.mounts"
	InputDevices                  = "docker.devices"
	InputGroups                   = "docker.groups"
	InputSELinuxLabel             = "docker.selinux-label"
	InputSandboxSync              = "docker.sync"
	InputBranchStrategy           = "branch-strategy"
	InputBranch                   = "branch"
	InputName                     = "name"
	InputWorkingDirectory         = "working-directory"
	InputCopyToWorktree           = "copy-to-worktree"
	InputHooks                    = "hooks"
	InputHookWorktreeReady        = "hooks.worktree-ready"
	InputHookHostSandboxReady     = "hooks.host-sandbox-ready"
	InputHookSandboxReady         = "hooks.sandbox-ready"
	InputHookTimeoutSeconds       = "timeouts.hook-seconds"
	InputEnv                      = "env"
	InputEnvFile                  = "env-file"
	InputLogFile                  = "log-file"
	InputVerbose                  = "verbose"
	InputOutputTag                = "output-tag"
	InputOutputSchema             = "output-schema"
	InputOutputMaxRetries         = "output-max-retries"
	InputGitHubToken              = "github-token"
	InputPush                     = "push"
	InputOpenPR                   = "open-pr"
	InputPRDraft                  = "pr-draft"
	InputPRBase                   = "pr-base"
	InputPRTitle                  = "pr-title"
	InputPRBody                   = "pr-body"
	InputProgressComment          = "progress-comment"
	InputTriggerPhrases           = "trigger-phrases"
	InputTriggerLabel             = "trigger-label"
	InputInProgressLabel          = "in-progress-label"
	InputBlockedLabel             = "blocked-label"
	InputAllowedUsers             = "allowed-users"
	InputAllowedBots              = "allowed-bots"
	InputRefuseIfOpenPR           = "refuse-if-open-pr"
	InputAllowForks               = "allow-forks"
	InputOutputAction             = "output-action"
	InputTriage                   = "triage"
	InputAllowedLabels            = "triage.allowed-labels"
	InputMaxActions               = "triage.max-actions"
	InputTriagedLabel             = "triage.triaged-label"
	InputTriagePullRequests       = "triage.pull-requests"
	InputGitHubRelay              = "github-relay"
)

// What output-action does with the structured output.
const (
	OutputActionNone   = "none"
	OutputActionReview = "review"
	OutputActionTriage = "triage"
	OutputActionPlan   = "plan"
)

// DefaultCompletionSignal is the text an agent prints to say all work is done, unless the
// completion-signal input says otherwise.
const DefaultCompletionSignal = "<promise>COMPLETE</promise>"

// Topic is a section of docs/inputs.md: the inputs from First up to the next topic's First, in
// the order of Definitions.
type Topic struct {
	Title string
	First string // the name of its first input
}

// Topics are the sections of docs/inputs.md, in order; the first starts at the first input.
var Topics = []Topic{
	{"What to run", InputMode},
	{"The loop", InputCompletionSignal},
	{"The agent", InputAgent},
	{"The sandbox", InputSandbox},
	{"Branches and the workspace", InputBranchStrategy},
	{"Environment and log", InputEnv},
	{"Structured output", InputOutputTag},
	{"Pushes and pull requests", InputGitHubToken},
	{"Comments, triggers and labels", InputProgressComment},
	{"Who may start a run", InputAllowedUsers},
	{"Review, triage and GitHub in the sandbox", InputOutputAction},
}

// Definitions lists every input, in the order action.yml and --help show them.
var Definitions = []Definition{
	{
		Name:        InputMode,
		Default:     ModeRun,
		Description: "What the run is for; it gives the inputs a workflow leaves out the values that job needs (see Modes in the README). The mode run presets nothing; implement works on the event's issue, on the branch sandcastle/issue-N-TITLE, and opens a draft pull request that closes it; pr makes the changes a comment on a pull request asks for and pushes them to its branch; review posts one review of the event's pull request; triage labels, comments on and closes open issues; plan splits the work into tasks, which a job matrix runs in implement mode. Each but run has a built-in prompt, which prompt or prompt-file replaces. An input the workflow sets wins, unless the mode cannot work with its value: then the run is refused, naming both.",
		Kind:        KindChoice,
		Choices:     modeNames(),
	},
	{
		Name:        InputPrompt,
		Description: "The prompt, given inline. It is sent to the agent verbatim: no {{KEY}} substitution and no !`cmd` expansion. Set one of prompt and prompt-file, unless the mode has a built-in prompt.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputPromptFile,
		Description: "Path of a prompt template, relative to the workspace. {{KEY}} placeholders are filled from prompt-args and the built-ins SOURCE_BRANCH, TARGET_BRANCH and VERIFY_OUTPUT (see verify-command); !`cmd` expressions are replaced by the command's output, run in the sandbox. Set one of prompt and prompt-file, unless the mode has a built-in prompt.",
		Kind:        KindPath,
	},
	{
		Name:        InputPromptArgs,
		Description: "Values for the {{KEY}} placeholders of prompt-file or of the mode's built-in prompt: a YAML or JSON map, or KEY=VALUE lines. Keys are letters, digits and _, not starting with a digit; SOURCE_BRANCH, TARGET_BRANCH and VERIFY_OUTPUT are built in and cannot be set.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputCompletionSignal,
		Default:     DefaultCompletionSignal,
		Description: "Text the agent prints when all work is done, which ends the loop early. One signal per line; any of them counts.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputMaxIterations,
		Default:     "1",
		Description: "Most times the agent is run in a row; the loop stops sooner when it prints a completion signal. Empty means the mode's value, or 1 (see Modes in the README).",
		Kind:        KindNumber,
	},
	{
		Name:        InputVerifyCommand,
		Description: "Shell command run by sh in the sandbox after each iteration, like the test suite or a linter; it may run timeouts' shell-seconds. When it fails, the end of its output goes into the next iteration's prompt: where a prompt template has {{VERIFY_OUTPUT}}, else after the prompt. The run is complete only when the agent printed a completion signal and the command passed after that iteration; a signal with the command failing does not end the loop, and max-iterations running out with it failing is status unverified.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputTimeouts,
		Description: "Limits of a run, as a map: idle-seconds, completion-seconds, shell-seconds and hook-seconds, and the budgets run-minutes and max-cost-usd (see its keys). Give a YAML or JSON map, or KEY=VALUE lines; on the command line --timeouts KEY=VALUE, repeated. A key left out keeps its default.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputIdleTimeoutSeconds,
		Formerly:    "idle-timeout-seconds",
		Default:     "600",
		Description: "Seconds the agent may stay silent before it is stopped and the run fails.",
		Kind:        KindNumber,
	},
	{
		Name:        InputCompletionTimeoutSeconds,
		Formerly:    "completion-timeout-seconds",
		Default:     "60",
		Description: "Seconds to wait for the agent to exit after it printed a completion signal; then it is stopped and the iteration counts as complete.",
		Kind:        KindNumber,
	},
	{
		Name:        InputShellTimeoutSeconds,
		Formerly:    "shell-timeout-seconds",
		Default:     "30",
		Description: "Seconds each !`cmd` expression of a prompt template may run, and verify-command.",
		Kind:        KindNumber,
	},
	{
		Name:        InputRunMinutes,
		Description: "Budget: minutes the whole run may take, from preparing the workspace to the end of the loop and what follows it, publishing excepted. When they are up the agent is stopped, the commits made so far are pushed and status is budget-exhausted. Empty means no limit but the job's own.",
		Kind:        KindNumber,
	},
	{
		Name:        InputMaxCostUSD,
		Description: "Budget: US dollars the agent may spend, as it reports its cost, checked after each iteration; once reached the loop stops, the commits made so far are pushed and status is budget-exhausted. Needs an agent that reports its cost (claude-code, opencode, pi). Empty means no limit.",
		Kind:        KindDecimal,
	},
	{
		Name:        InputHookTimeoutSeconds,
		Formerly:    "hook-timeout-seconds",
		Default:     "60",
		Description: "Seconds each hook command may run.",
		Kind:        KindNumber,
	},
	{
		Name:        InputAgent,
		Default:     "claude-code",
		Description: "The agent CLI to run (see docs/agents.md).",
		Kind:        KindChoice,
	},
	{
		Name:        InputModel,
		Description: "Model name passed to the agent. Empty means the agent's default model.",
		Kind:        KindString,
	},
	{
		Name:        InputEffort,
		Description: "Reasoning effort or thinking level, one the agent accepts. Empty means the agent's default.",
		Kind:        KindString,
	},
	{
		Name:        InputPermissionMode,
		Description: "Permission mode for the agent, one it accepts. Empty skips permission prompts: the sandbox is the boundary.",
		Kind:        KindString,
	},
	{
		Name:        InputResumeSession,
		Description: "Id of an earlier session of the agent (the session-id output of a run) to continue in the first iteration; later iterations start fresh as usual. The session file must be in the agent's store under HOME, where runs save it (see session-file). Agents that keep sessions: claude-code, codex, pi.",
		Kind:        KindString,
	},
	{
		Name:        InputForkSession,
		Default:     "false",
		Description: "With resume-session: continue the conversation under a new session id and leave the earlier session as it was (claude-code, codex).",
		Kind:        KindBool,
	},
	{
		Name:        InputSandbox,
		Default:     SandboxDocker,
		Description: "Where the agent runs: docker (in a container from image, as a non-root user without capabilities, with memory and process limits, unable to change what git on the runner executes) or none (directly in the action's container or on your machine, without isolation). Use none for trusted prompts only: there the agent runs as the action itself, with the job's token and every secret in reach, and can plant in the repository's .git what later git commands of the job run. The inputs image, dockerfile and docker apply only to docker.",
		Kind:        KindChoice,
		Choices:     knownSandboxes,
	},
	{
		Name:        InputImage,
		Description: "Image the sandbox container runs. Empty means sandcastle:DIR, DIR being the name of working-directory in lower case, built from dockerfile; or, when there is no dockerfile, the agent's published image " + release.Registry + "/" + release.Owner + "/sandcastle-sandbox-AGENT of the action's own version, pulled when missing.",
		Kind:        KindString,
	},
	{
		Name:        InputDockerfile,
		Default:     ".sandcastle/Dockerfile",
		Description: "Dockerfile that builds image, relative to working-directory. Without it (and without image) the sandbox runs the agent's published image; sandcastle init writes one that starts from that image.",
		Kind:        KindPath,
	},
	{
		Name:        InputDocker,
		Description: "Settings of the Docker sandbox that most runs leave alone, as a map: how the image is built or pulled, the user the agent runs as, its network, CPU, memory and process limits, extra mounts, devices and groups, and how the repository reaches it (see its keys). Give a YAML or JSON map (a list as a YAML list or one item per line, build-args as a nested map), or KEY=VALUE lines; on the command line --docker KEY=VALUE, repeated. A key left out keeps its default. Used only with sandbox docker.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputBuildImage,
		Formerly:    "build-image",
		Default:     string(BuildAuto),
		Description: "When to build image from dockerfile: auto (when the image is missing or was built from a different Dockerfile), always, or never (the image must exist or be pulled).",
		Kind:        KindChoice,
		Choices:     []string{string(BuildAuto), string(BuildAlways), string(BuildNever)},
	},
	{
		Name:        InputBuildContext,
		Formerly:    "build-context",
		Description: "Directory sent to the image build, relative to working-directory. Empty means the Dockerfile's directory.",
		Kind:        KindPath,
	},
	{
		Name:        InputBuildArgs,
		Formerly:    "build-args",
		Description: "Build arguments for the Dockerfile: a YAML or JSON map, or KEY=VALUE lines. AGENT_UID and AGENT_GID default to the uid and gid the agent runs as.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputPull,
		Formerly:    "pull",
		Default:     "false",
		Description: "Pull image from its registry when it is not present locally, before building it. Needs image set to an image of your own; the published image used without a Dockerfile is pulled anyway.",
		Kind:        KindBool,
	},
	{
		Name:        InputContainerUID,
		Formerly:    "container-uid",
		Description: "User id the agent runs as in the sandbox. Empty means the owner of working-directory, or 1000 when that is root (the checkout is then lent to 1000 for the run). 0 (root) is refused.",
		Kind:        KindNumber,
	},
	{
		Name:        InputContainerGID,
		Formerly:    "container-gid",
		Description: "Group id the agent runs as in the sandbox. Empty means the group of working-directory, or 1000 when root owns it. 0 (root) is refused.",
		Kind:        KindNumber,
	},
	{
		Name:        InputNetwork,
		Formerly:    "network",
		Description: "Docker network the sandbox joins: bridge, host (the host's network), none (no network), or the name of a network you created. Empty means Docker's default bridge.",
		Kind:        KindString,
	},
	{
		Name:        InputCPUs,
		Formerly:    "cpus",
		Description: "Most CPUs the sandbox may use, like 2 or 1.5. Empty means no limit.",
		Kind:        KindDecimal,
	},
	{
		Name:        InputMemory,
		Formerly:    "memory",
		Default:     "4g",
		Description: "Most memory the sandbox may use: bytes, or a number with k, m, g or t (powers of 1024), like 512m or 4g. At least 6m.",
		Kind:        KindSize,
	},
	{
		Name:        InputPidsLimit,
		Formerly:    "pids-limit",
		Default:     "4096",
		Description: "Most processes the sandbox may run at once.",
		Kind:        KindNumber,
	},
	{
		Name:        InputMounts,
		Formerly:    "mounts",
		Description: "Extra bind mounts, one per line as host:sandbox or host:sandbox:ro. host is relative to working-directory, absolute or under ~/, and must exist; sandbox is absolute or under ~/ (the agent's home). A Docker socket, or a directory holding one, cannot be mounted.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputDevices,
		Formerly:    "devices",
		Description: "Host devices the sandbox may use, one per line as /dev/name, optionally followed by :sandbox-path and :permissions (letters of rwm).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputGroups,
		Formerly:    "groups",
		Description: "Extra groups of the agent's user, one per line, by name (as the image knows it) or by number.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputSELinuxLabel,
		Formerly:    "selinux-label",
		Description: "SELinux label of the bind mounts: z (shared with other containers) or Z (private to the sandbox). Empty means no label; hosts that enforce SELinux need one.",
		Kind:        KindString,
	},
	{
		Name:        InputSandboxSync,
		Formerly:    "sandbox-sync",
		Default:     string(SyncAuto),
		Description: "How the repository reaches the sandbox: mount (bind-mount the checkout), copy (copy it in and the commits back out, for a Docker daemon that cannot see the checkout), or auto (mount when the daemon can see the checkout, else copy).",
		Kind:        KindChoice,
		Choices:     []string{string(SyncAuto), string(SyncMount), string(SyncCopy)},
	},
	{
		Name:        InputBranchStrategy,
		Default:     string(StrategyHead),
		Description: "How the agent's commits reach a branch: head (work in the checkout itself), merge-to-head (work in a worktree on a temporary branch, then merge it into the current branch) or branch (work in a worktree on the branch named by branch). Empty means the mode's value, or head (see Modes in the README).",
		Kind:        KindChoice,
		Choices:     []string{string(StrategyHead), string(StrategyMergeToHead), string(StrategyBranch)},
	},
	{
		Name:        InputBranch,
		Description: "Branch to work on; required with branch-strategy branch and used only there. It is created when missing.",
		Kind:        KindString,
	},
	{
		Name:        InputName,
		Description: "Name of the run, shown in logs and used in temporary branch names.",
		Kind:        KindString,
	},
	{
		Name:        InputWorkingDirectory,
		Default:     ".",
		Description: "The repository directory to work in, relative to the workspace.",
		Kind:        KindPath,
	},
	{
		Name:        InputCopyToWorktree,
		Description: "Paths relative to working-directory to copy into the worktree before the agent starts, one per line, typically git-ignored files such as node_modules. Not used with branch-strategy head.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHooks,
		Description: "Shell commands run at points of the run, as a map: worktree-ready and host-sandbox-ready on the host, sandbox-ready inside the sandbox (see its keys), each one command per line or a YAML list. Give a YAML or JSON map, or KEY=VALUE lines; on the command line --hooks KEY=VALUE, repeated. Each command may run timeouts' hook-seconds.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputHookWorktreeReady,
		Formerly:    "hook-worktree-ready",
		Description: "Shell commands run on the host once the worktree (with branch-strategy head, the checkout) is ready, one per line (a line ending in \\ continues on the next).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHookHostSandboxReady,
		Formerly:    "hook-host-sandbox-ready",
		Description: "Shell commands run on the host once the sandbox is ready, one per line (a line ending in \\ continues on the next).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHookSandboxReady,
		Formerly:    "hook-sandbox-ready",
		Description: "Shell commands run inside the sandbox once it is ready, one per line (a line ending in \\ continues on the next), for example npm ci.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputEnv,
		Description: "Names of environment variables to pass from the job into the sandbox, one per line or separated by commas. The variables the agent needs for its credentials pass without being listed.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputEnvFile,
		Default:     ".sandcastle/.env",
		Description: "File of KEY=VALUE lines, relative to working-directory, whose variables pass into the sandbox. A missing default file is ignored.",
		Kind:        KindPath,
	},
	{
		Name:        InputLogFile,
		Description: "File to write the run log to, relative to working-directory. Empty means .sandcastle/logs/<branch>.log; - means no file, log to standard output only.",
		Kind:        KindPath,
	},
	{
		Name:        InputVerbose,
		Default:     "false",
		Description: "Log the agent's full stream, tool calls included.",
		Kind:        KindBool,
	},
	{
		Name:        InputOutputTag,
		Description: "Name of the tag, like result for <result>...</result>, that the agent writes its structured output in; the content becomes the action output named output. It is read from the final message of the iteration that printed a completion signal, else of the last iteration.",
		Kind:        KindString,
	},
	{
		Name:        InputOutputSchema,
		Description: "JSON Schema the structured output must match: inline JSON starting with {, or a file path relative to working-directory. Needs output-tag. With a schema the output is a JSON object checked against it, and each of its fields is also an output of its own; without one it is the tag's text as written.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputOutputMaxRetries,
		Default:     "0",
		Description: "Times to resume the agent's session and ask again when the structured output is missing or invalid. Needs an agent whose sessions can be resumed.",
		Kind:        KindNumber,
	},

	// GitHub: what a run does there (push, pull request, comment) and who may start it.
	{
		Name:          InputGitHubToken,
		ActionDefault: "${{ github.token }}",
		Description:   "Token for pushing the branch and for the GitHub API (pull request, comment, labels, permission checks). In the Action it defaults to the job's token; give a personal access token or an App token when pushes must start other workflows. The agent never sees it. On the command line leave this flag out and set GITHUB_TOKEN instead, since a flag's value shows in the process list.",
		Kind:          KindString,
	},
	{
		Name:        InputPush,
		Default:     string(PushAuto),
		Description: "Whether and how the agent's branch is pushed with github-token: auto (in the Action, a fast-forward push of branch when branch-strategy is branch and the agent made commits; otherwise nothing), none (never), force (overwrite the remote branch) or lease (overwrite it only if it is still where it was when the run started). With branch-strategy merge-to-head nothing is pushed. When auto or lease finds that the remote branch moved, nothing is overwritten: the commits go to a new recovery branch (the recovery-branch output) and status is branch-moved. Empty means the mode's value, or auto (see Modes in the README).",
		Kind:        KindChoice,
		Choices:     []string{string(PushAuto), string(PushNone), string(PushForce), string(PushLease)},
	},
	{
		Name:        InputOpenPR,
		Default:     "false",
		Description: "Open a pull request from the pushed branch, or update the one an earlier run opened (found by a hidden marker, never duplicated). It needs a pushed branch: branch-strategy branch, or head with push force or lease; not push none, nor merge-to-head, which deletes its branch. Empty means the mode's value, or false (see Modes in the README).",
		Kind:        KindBool,
	},
	{
		Name:        InputPRDraft,
		Default:     "true",
		Description: "Open the pull request as a draft. Where the repository does not support drafts (private repositories on GitHub Free and Pro), it is opened ready for review, and the log and the comment say so. Used only with open-pr: true. Empty means the mode's value, or true (see Modes in the README).",
		Kind:        KindBool,
	},
	{
		Name:        InputPRBase,
		Description: "Branch the pull request merges into. Empty means the branch the run started from or, for a run on the triggering pull request's own branch, that pull request's base. Used only with open-pr: true.",
		Kind:        KindString,
	},
	{
		Name:        InputPRTitle,
		Description: "Title of the pull request, one line, with {{KEY}} placeholders: ISSUE_NUMBER, ISSUE_TITLE, ISSUE_BODY, PR_NUMBER, PR_TITLE, PR_BODY, COMMENT_BODY, HEAD_REF, BASE_REF, REVIEW_PATH, REVIEW_LINE, DIFF_HUNK, ACTOR and REPOSITORY from the event, and BRANCH, BASE, COMMITS (a Markdown list), COMMIT_COUNT, SUMMARY (the agent's final message), OUTPUT (the structured output) and STATUS from the run. Empty means \"Fix #N: TITLE\" with the number and title of the triggering issue, else the subject of the agent's only commit, else \"Sandcastle: BRANCH\". Used only with open-pr: true.",
		Kind:        KindString,
	},
	{
		Name:        InputPRBody,
		Description: "Body of the pull request, Markdown with the same {{KEY}} placeholders as pr-title. Empty means \"Closes #N\" when an issue triggered the run, then the list of commits and the agent's summary. Used only with open-pr: true.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputProgressComment,
		Default:     "true",
		Description: "Keep one comment on the triggering issue or pull request: created when the run starts, edited as it goes (iteration, last tool call, commits so far) and at the end with the final status, links, and on failure the reason and where the work was kept. A re-run edits the same comment. Empty means the mode's value, or true (see Modes in the README).",
		Kind:        KindBool,
	},
	{
		Name:        InputTriggerPhrases,
		Description: "Phrases that start a run from a new issue or pull request comment, one per line, each at most 100 characters. A phrase counts as a whole word, in any case, outside quoted lines. Empty means the mode's value (see Modes in the README), or /sandcastle and @sandcastle.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputTriggerLabel,
		Description: "Label that starts a run when it is added to an issue or pull request; the run removes it as it starts, so adding it again starts another. Empty means the mode's value (see Modes in the README) or, without one, that no label is needed: every issue or pull request event the workflow receives starts a run, except a label taken off and the labels, comments and pull request the action itself changes.",
		Kind:        KindString,
	},
	{
		Name:        InputInProgressLabel,
		Description: "Label on the issue or pull request while a run works on it. Empty means the mode's value (see Modes in the README), or none. It must differ from trigger-label and blocked-label.",
		Kind:        KindString,
	},
	{
		Name:        InputBlockedLabel,
		Description: "Label added to the issue or pull request when a run fails, and removed when the next one starts. Empty means the mode's value (see Modes in the README), or none. It must differ from trigger-label and in-progress-label.",
		Kind:        KindString,
	},
	{
		Name:        InputAllowedUsers,
		Description: "GitHub logins that may start runs without write permission on the repository, one per line or separated by commas. Everyone else needs write, maintain or admin permission.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputAllowedBots,
		Description: "Bots that may start runs without a permission check, one per line or separated by commas, with or without the [bot] suffix, like dependabot[bot] or renovate; * lets any bot start runs. A bot acts for a GitHub App, which is installed on the repository rather than a collaborator of it, so no permission look-up can check it: with *, any App that can act on the repository would start runs. None by default, so that one bot's comment cannot set off another run.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputAllowForks,
		Default:     "false",
		Description: "Let a run on a pull request's own branch (mode pr or review) work on a pull request from a fork. Off by default: the fork's head is code a stranger wrote, so such a pull request is refused (status refused, with the reason, and one comment) before anything is made. With true the head is fetched from this repository's refs/pull/N/head, the agent works on it in the sandbox, and its commits go to a branch of this repository, sandcastle/pr-N-SHA (SHA the head's short commit id), which the run's reply on the pull request links; the fork is never pushed to.",
		Kind:        KindBool,
	},
	{
		Name:        InputRefuseIfOpenPR,
		Default:     "true",
		Description: "Refuse to run on an issue that already has an open pull request by a collaborator that would close it (Closes, Fixes or Resolves #N in its description; a mere mention does not count), so a run does not duplicate someone's work. A refusal is not a failure: the job stays green with status refused and the reason in refusal-reason.",
		Kind:        KindBool,
	},

	// What the host does with a review or triage run's structured output, and what the sandbox
	// may read of GitHub.
	{
		Name:        InputOutputAction,
		Default:     OutputActionNone,
		Description: "What the host does with the structured output: none; review (post it as one review of the event's pull request, event COMMENT: the summary as its body, each comment on its line of the diff, one outside the diff in the body, none repeated on a re-run); or triage (carry out, with github-token, what it asks for each issue: labels added or removed, a comment, closing it, each checked against the triage input's allowed-labels and max-actions and the repository's issues; refused actions are listed in the summary and the actions output's refused list, and are not a failure); or plan (check the list of tasks it gives and set the matrix and task-count outputs, one implement job per task on the branch sandcastle/PLAN-ID/TASK-ID; see docs/modes.md). review, triage and plan default output-tag to result and output-schema to their own schema (see docs/security.md). Empty means the mode's value, or none (see Modes in the README).",
		Kind:        KindChoice,
		Choices:     []string{OutputActionNone, OutputActionReview, OutputActionTriage, OutputActionPlan},
	},
	{
		Name:        InputTriage,
		Description: "Settings of a triage run (output-action triage), as a map: the labels it may add or remove, the most actions it carries out, the label it marks issues with, and whether it acts on pull requests (see its keys). Give a YAML or JSON map (allowed-labels as a YAML list or one per line), or KEY=VALUE lines; on the command line --triage KEY=VALUE, repeated. A key left out keeps the mode's value or its default.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputAllowedLabels,
		Formerly:    "allowed-labels",
		Description: "Labels a triage run may add to or remove from issues, one per line or separated by commas. Empty means the mode's value (see Modes in the README), or none. Used only with output-action triage.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputMaxActions,
		Formerly:    "max-actions",
		Default:     "20",
		Description: "Most actions (a label added or removed, a comment, a close) a triage run carries out; the rest are refused. Used only with output-action triage.",
		Kind:        KindNumber,
	},
	{
		Name:        InputTriagedLabel,
		Formerly:    "triaged-label",
		Default:     "sandcastle:triaged",
		Description: "Label a triage run adds to each issue it acted on, besides what the agent asked; an issue with it, or with a comment an earlier triage run wrote, is skipped on the next run. Empty means no label: only the comment marks an issue. Used only with output-action triage.",
		Kind:        KindString,
	},
	{
		Name:        InputTriagePullRequests,
		Formerly:    "triage-pull-requests",
		Default:     "false",
		Description: "Let a triage run act on pull requests too, not only on issues. Used only with output-action triage.",
		Kind:        KindBool,
	},
	{
		Name:        InputGitHubRelay,
		Default:     "true",
		Description: "Give the Docker sandbox read-only access to this repository on GitHub through a relay on the host, which adds github-token itself: gh (gh issue list, gh issue view, gh api) and curl --unix-socket work in the sandbox, every write is refused, and the token never enters it. Needs a token and the repository (in Actions, always there). false gives the sandbox no GitHub access at all.",
		Kind:        KindBool,
	},
}

// Sandbox names.
const (
	// SandboxDocker runs the agent in a Docker container; the default.
	SandboxDocker = "docker"
	// SandboxNone runs the agent directly on the host, without isolation.
	SandboxNone = "none"
)

// knownSandboxes lists every sandbox name the sandbox input knows.
var knownSandboxes = []string{SandboxDocker, SandboxNone}

// dockerInputs are the inputs that apply only with sandbox docker: image, dockerfile and the
// keys of the docker map.
func dockerInputs() []string {
	names := []string{InputImage, InputDockerfile}
	for _, k := range Keys(InputDocker) {
		names = append(names, k.Name)
	}
	return names
}

// EnvName returns the variable the Actions runner sets for input name: INPUT_ and the name
// upper-cased with spaces turned into underscores. Hyphens are kept, so prompt-file is read
// from INPUT_PROMPT-FILE.
func EnvName(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// Lookup returns the definition of the input called name, or of the key of a map input called
// "input.key".
func Lookup(name string) (Definition, bool) {
	for _, d := range Definitions {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

// AgentValues says, for the docs and --help, which values input name takes by agent: the
// agents for agent, each agent's efforts for effort and permission modes for permission-mode;
// "" for any other input. The values are the agent registry's, which agents holds.
func AgentValues(name string, agents []AgentInfo) string {
	byAgent := func(values func(AgentInfo) []string) string {
		var parts []string
		for _, a := range agents {
			v := "none"
			if len(values(a)) > 0 {
				v = strings.Join(values(a), ", ")
			}
			parts = append(parts, a.Name+": "+v)
		}
		return "By agent: " + strings.Join(parts, "; ") + "."
	}
	switch name {
	case InputAgent:
		var names []string
		for _, a := range agents {
			names = append(names, a.Name)
		}
		return "One of: " + strings.Join(names, ", ") + "."
	case InputEffort:
		return byAgent(func(a AgentInfo) []string { return a.Efforts })
	case InputPermissionMode:
		return byAgent(func(a AgentInfo) []string { return a.PermissionModes })
	}
	return ""
}
