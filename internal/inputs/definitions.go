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
	InputSandbox                  = "sandbox"
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
		Description: "The agent CLI to run, for example claude-code.",
		Kind:        KindChoice,
	},
	{
		Name:        InputModel,
		Description: "Model name passed to the agent. Empty means the agent's default model.",
		Kind:        KindString,
	},
	{
		Name:        InputEffort,
		Description: "Reasoning effort, one the agent accepts (claude-code: low, medium, high, xhigh, max). Empty means the agent's default.",
		Kind:        KindString,
	},
	{
		Name:        InputPermissionMode,
		Description: "Permission mode for the agent (claude-code: default, acceptEdits, plan, auto, dontAsk, bypassPermissions). Empty skips permission prompts: the sandbox is the boundary.",
		Kind:        KindString,
	},
	{
		Name:        InputSandbox,
		Default:     "none",
		Description: "Where the agent runs: none (directly in the action's container or on your machine) or docker (not available yet).",
		Kind:        KindChoice,
		Choices:     knownSandboxes,
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
	"input-tokens",
	"output-tokens",
	"cache-read-tokens",
	"cache-creation-tokens",
	"cost-usd",
	"log-file",
	"preserved-worktree",
}

// knownSandboxes lists every sandbox name the sandbox input knows; Env.Sandboxes says which of
// them this build implements.
var knownSandboxes = []string{"none", "docker"}

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
