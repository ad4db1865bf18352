package inputs

import "strings"

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
	Description string // one paragraph, for action.yml, --help and the README
	Kind        Kind
	Multiline   bool     // the value may span lines (YAML block scalars in a workflow)
	Choices     []string // KindChoice: the words the docs list; agents come from Env instead
}

// Input names, so code and tests refer to inputs without repeating string literals.
const (
	InputPrompt                   = "prompt"
	InputPromptFile               = "prompt-file"
	InputPromptArgs               = "prompt-args"
	InputCompletionSignal         = "completion-signal"
	InputMaxIterations            = "max-iterations"
	InputIdleTimeoutSeconds       = "idle-timeout-seconds"
	InputCompletionTimeoutSeconds = "completion-timeout-seconds"
	InputShellTimeoutSeconds      = "shell-timeout-seconds"
	InputAgent                    = "agent"
	InputModel                    = "model"
	InputEffort                   = "effort"
	InputPermissionMode           = "permission-mode"
	InputResumeSession            = "resume-session"
	InputForkSession              = "fork-session"
	InputSandbox                  = "sandbox"
	InputImage                    = "image"
	InputBuildImage               = "build-image"
	InputDockerfile               = "dockerfile"
	InputBuildContext             = "build-context"
	InputBuildArgs                = "build-args"
	InputPull                     = "pull"
	InputContainerUID             = "container-uid"
	InputContainerGID             = "container-gid"
	InputNetwork                  = "network"
	InputCPUs                     = "cpus"
	InputMemory                   = "memory"
	InputPidsLimit                = "pids-limit"
	InputMounts                   = "mounts"
	InputDevices                  = "devices"
	InputGroups                   = "groups"
	InputSELinuxLabel             = "selinux-label"
	InputSandboxSync              = "sandbox-sync"
	InputBranchStrategy           = "branch-strategy"
	InputBranch                   = "branch"
	InputName                     = "name"
	InputWorkingDirectory         = "working-directory"
	InputCopyToWorktree           = "copy-to-worktree"
	InputHookWorktreeReady        = "hook-worktree-ready"
	InputHookHostSandboxReady     = "hook-host-sandbox-ready"
	InputHookSandboxReady         = "hook-sandbox-ready"
	InputHookTimeoutSeconds       = "hook-timeout-seconds"
	InputEnv                      = "env"
	InputEnvFile                  = "env-file"
	InputLogFile                  = "log-file"
	InputVerbose                  = "verbose"
	InputOutputTag                = "output-tag"
	InputOutputType               = "output-type"
	InputOutputSchema             = "output-schema"
	InputOutputMaxRetries         = "output-max-retries"
)

// DefaultCompletionSignal is the text an agent prints to say all work is done, unless the
// completion-signal input says otherwise.
const DefaultCompletionSignal = "<promise>COMPLETE</promise>"

// Definitions lists every input, in the order action.yml and --help show them.
var Definitions = []Definition{
	{
		Name:        InputPrompt,
		Description: "The prompt, given inline. It is sent to the agent verbatim: no {{KEY}} substitution and no !`cmd` expansion. Set exactly one of prompt and prompt-file.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputPromptFile,
		Description: "Path of a prompt template, relative to the workspace. {{KEY}} placeholders are filled from prompt-args and the built-ins SOURCE_BRANCH and TARGET_BRANCH; !`cmd` expressions are replaced by the command's output, run in the sandbox. Set exactly one of prompt and prompt-file.",
		Kind:        KindPath,
	},
	{
		Name:        InputPromptArgs,
		Description: "Values for the {{KEY}} placeholders of prompt-file: a YAML or JSON map, or KEY=VALUE lines. Keys are letters, digits and _, not starting with a digit; SOURCE_BRANCH and TARGET_BRANCH are built in and cannot be set.",
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
		Description: "Most times the agent is run in a row; the loop stops sooner when it prints a completion signal.",
		Kind:        KindNumber,
	},
	{
		Name:        InputIdleTimeoutSeconds,
		Default:     "600",
		Description: "Seconds the agent may stay silent before it is stopped and the run fails.",
		Kind:        KindNumber,
	},
	{
		Name:        InputCompletionTimeoutSeconds,
		Default:     "60",
		Description: "Seconds to wait for the agent to exit after it printed a completion signal; then it is stopped and the iteration counts as complete.",
		Kind:        KindNumber,
	},
	{
		Name:        InputShellTimeoutSeconds,
		Default:     "30",
		Description: "Seconds each !`cmd` expression of a prompt template may run.",
		Kind:        KindNumber,
	},
	{
		Name:        InputAgent,
		Default:     "claude-code",
		Description: "The agent CLI to run: claude-code, codex, copilot, cursor, opencode or pi (see Agents in the README).",
		Kind:        KindChoice,
	},
	{
		Name:        InputModel,
		Description: "Model name passed to the agent. Empty means the agent's default model.",
		Kind:        KindString,
	},
	{
		Name:        InputEffort,
		Description: "Reasoning effort or thinking level, one the agent accepts (claude-code: low, medium, high, xhigh, max; the others are in the README's Agents table). Empty means the agent's default.",
		Kind:        KindString,
	},
	{
		Name:        InputPermissionMode,
		Description: "Permission mode for the agent (claude-code: default, acceptEdits, plan, auto, dontAsk, bypassPermissions). Empty skips permission prompts: the sandbox is the boundary.",
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
		Description: "Where the agent runs: docker (in a container from image, as a non-root user without capabilities, with memory and process limits) or none (directly in the action's container or on your machine, without isolation). The inputs image to sandbox-sync apply only to docker.",
		Kind:        KindChoice,
		Choices:     knownSandboxes,
	},
	{
		Name:        InputImage,
		Description: "Image the sandbox container runs. Empty means sandcastle:DIR, DIR being the name of working-directory in lower case; that image is built from dockerfile.",
		Kind:        KindString,
	},
	{
		Name:        InputBuildImage,
		Default:     string(BuildAuto),
		Description: "When to build image from dockerfile: auto (when the image is missing or was built from a different Dockerfile), always, or never (the image must exist or be pulled).",
		Kind:        KindChoice,
		Choices:     []string{string(BuildAuto), string(BuildAlways), string(BuildNever)},
	},
	{
		Name:        InputDockerfile,
		Default:     ".sandcastle/Dockerfile",
		Description: "Dockerfile that builds image, relative to working-directory.",
		Kind:        KindPath,
	},
	{
		Name:        InputBuildContext,
		Description: "Directory sent to the image build, relative to working-directory. Empty means the Dockerfile's directory.",
		Kind:        KindPath,
	},
	{
		Name:        InputBuildArgs,
		Description: "Build arguments for the Dockerfile: a YAML or JSON map, or KEY=VALUE lines. AGENT_UID and AGENT_GID default to the uid and gid the agent runs as.",
		Kind:        KindMap,
		Multiline:   true,
	},
	{
		Name:        InputPull,
		Default:     "false",
		Description: "Pull image from its registry when it is not present locally, before building it. Needs image set to an image of your own.",
		Kind:        KindBool,
	},
	{
		Name:        InputContainerUID,
		Description: "User id the agent runs as in the sandbox. Empty means the owner of working-directory. 0 (root) is refused.",
		Kind:        KindNumber,
	},
	{
		Name:        InputContainerGID,
		Description: "Group id the agent runs as in the sandbox. Empty means the group of working-directory. 0 (root) is refused.",
		Kind:        KindNumber,
	},
	{
		Name:        InputNetwork,
		Description: "Docker network the sandbox joins: bridge, host (the host's network), none (no network), or the name of a network you created. Empty means Docker's default bridge.",
		Kind:        KindString,
	},
	{
		Name:        InputCPUs,
		Description: "Most CPUs the sandbox may use, like 2 or 1.5. Empty means no limit.",
		Kind:        KindDecimal,
	},
	{
		Name:        InputMemory,
		Default:     "4g",
		Description: "Most memory the sandbox may use: bytes, or a number with k, m, g or t (powers of 1024), like 512m or 4g. At least 6m.",
		Kind:        KindSize,
	},
	{
		Name:        InputPidsLimit,
		Default:     "4096",
		Description: "Most processes the sandbox may run at once.",
		Kind:        KindNumber,
	},
	{
		Name:        InputMounts,
		Description: "Extra bind mounts, one per line as host:sandbox or host:sandbox:ro. host is relative to working-directory, absolute or under ~/, and must exist; sandbox is absolute or under ~/ (the agent's home). A Docker socket, or a directory holding one, cannot be mounted.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputDevices,
		Description: "Host devices the sandbox may use, one per line as /dev/name, optionally followed by :sandbox-path and :permissions (letters of rwm).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputGroups,
		Description: "Extra groups of the agent's user, one per line, by name (as the image knows it) or by number.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputSELinuxLabel,
		Description: "SELinux label of the bind mounts: z (shared with other containers) or Z (private to the sandbox). Empty means no label; hosts that enforce SELinux need one.",
		Kind:        KindString,
	},
	{
		Name:        InputSandboxSync,
		Default:     string(SyncAuto),
		Description: "How the repository reaches the sandbox: mount (bind-mount the checkout), copy (copy it in and the commits back out, for a Docker daemon that cannot see the checkout), or auto (mount when the daemon can see the checkout, else copy).",
		Kind:        KindChoice,
		Choices:     []string{string(SyncAuto), string(SyncMount), string(SyncCopy)},
	},
	{
		Name:        InputBranchStrategy,
		Default:     string(StrategyHead),
		Description: "How the agent's commits reach a branch: head (work in the checkout itself), merge-to-head (work in a worktree on a temporary branch, then merge it into the current branch) or branch (work in a worktree on the branch named by branch).",
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
		Name:        InputHookWorktreeReady,
		Description: "Shell commands run on the host once the worktree (with branch-strategy head, the checkout) is ready, one per line (a line ending in \\ continues on the next).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHookHostSandboxReady,
		Description: "Shell commands run on the host once the sandbox is ready, one per line (a line ending in \\ continues on the next).",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHookSandboxReady,
		Description: "Shell commands run inside the sandbox once it is ready, one per line (a line ending in \\ continues on the next), for example npm ci.",
		Kind:        KindList,
		Multiline:   true,
	},
	{
		Name:        InputHookTimeoutSeconds,
		Default:     "60",
		Description: "Seconds each hook command may run.",
		Kind:        KindNumber,
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
		Description: "Name of the tag, like result for <result>...</result>, that the agent writes its structured output in; the content becomes the action output named output. Needs max-iterations 1.",
		Kind:        KindString,
	},
	{
		Name:        InputOutputType,
		Default:     string(OutputObject),
		Description: "What the output-tag content is: object (JSON, checked against output-schema when given) or string (plain text). Used only with output-tag.",
		Kind:        KindChoice,
		Choices:     []string{string(OutputObject), string(OutputString)},
	},
	{
		Name:        InputOutputSchema,
		Description: "JSON Schema the structured output must match: inline JSON starting with {, or a file path relative to working-directory. Needs output-tag and output-type object.",
		Kind:        KindText,
		Multiline:   true,
	},
	{
		Name:        InputOutputMaxRetries,
		Default:     "0",
		Description: "Times to resume the agent's session and ask again when the structured output is missing or invalid. Needs an agent whose sessions can be resumed.",
		Kind:        KindNumber,
	},
}

// OutputNames lists the action's outputs in the order action.yml declares them.
var OutputNames = []string{
	"status",
	"iterations",
	"completion-signal",
	"commits",
	"commit-count",
	"branch",
	"base-sha",
	"head-sha",
	"output",
	"session-id",
	"session-file",
	"input-tokens",
	"output-tokens",
	"cache-read-tokens",
	"cache-creation-tokens",
	"cost-usd",
	"log-file",
	"preserved-worktree",
}

// Sandbox names.
const (
	// SandboxDocker runs the agent in a Docker container; the default.
	SandboxDocker = "docker"
	// SandboxNone runs the agent directly on the host, without isolation.
	SandboxNone = "none"
)

// knownSandboxes lists every sandbox name the sandbox input knows; Env.Sandboxes says which of
// them this build implements.
var knownSandboxes = []string{SandboxDocker, SandboxNone}

// dockerInputs are the inputs that apply only with sandbox docker.
var dockerInputs = []string{
	InputImage, InputBuildImage, InputDockerfile, InputBuildContext, InputBuildArgs, InputPull,
	InputContainerUID, InputContainerGID, InputNetwork, InputCPUs, InputMemory, InputPidsLimit,
	InputMounts, InputDevices, InputGroups, InputSELinuxLabel, InputSandboxSync,
}

// EnvName returns the variable the Actions runner sets for input name: INPUT_ and the name
// upper-cased with spaces turned into underscores. Hyphens are kept, so prompt-file is read
// from INPUT_PROMPT-FILE.
func EnvName(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
}

// Lookup returns the definition of the input called name.
func Lookup(name string) (Definition, bool) {
	for _, d := range Definitions {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}
