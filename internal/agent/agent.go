package agent

// EventKind says what an Event carries.
type EventKind int

const (
	// EventText is assistant text (a whole block or a delta).
	EventText EventKind = iota + 1
	// EventToolCall is a tool invocation: Tool and Args are set.
	EventToolCall
	// EventResult is the agent's final answer for the invocation; IsError marks a failure report.
	EventResult
	// EventSession carries the agent's session id.
	EventSession
	// EventUsage carries token usage (and cost when the agent reports it) to add to the
	// invocation's total: a CLI that reports per turn or per step emits one per report.
	EventUsage
	// EventError is an error the agent reported without ending the invocation (a retried
	// request, say): shown as a warning, and kept as the failure detail should the CLI then fail.
	// An error that ends the invocation is an EventResult with IsError.
	EventError
)

// Event is one thing learned from a line of agent output.
type Event struct {
	Kind      EventKind
	Text      string // EventText, EventResult, EventError
	Tool      string // EventToolCall: the tool name as the agent spells it
	Args      string // EventToolCall: a one-line display form of the main argument
	SessionID string // EventSession
	Usage     Usage  // EventUsage
	IsError   bool   // EventResult: the agent reports that the invocation failed
}

// Usage is token usage and cost. Zero values mean "not reported".
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheCreationTokens += o.CacheCreationTokens
	u.CostUSD += o.CostUSD
}

// Request is what one invocation of the agent needs.
type Request struct {
	Prompt         string
	Model          string // "" = the provider's default model
	Effort         string // "" = the CLI's default
	PermissionMode string // "" = skip permission prompts (the sandbox is the boundary)
	ResumeSession  string // session id to resume, "" for a fresh session
	ForkSession    bool   // with ResumeSession: continue in a new session, leaving the parent untouched
}

// Command is how to start one invocation: argv (no shell), stdin and extra environment.
type Command struct {
	Argv  []string
	Stdin string
	Env   map[string]string
}

// Provider knows one agent CLI.
type Provider interface {
	// Name is the value of the agent input, e.g. "claude-code".
	Name() string
	// DefaultModel is the model Command uses when Request.Model is empty.
	DefaultModel() string
	// Efforts lists the values Request.Effort may take, weakest first; none means the CLI has
	// no effort setting and Effort must be empty. The slice is the caller's to keep.
	Efforts() []string
	// PermissionModes lists the values Request.PermissionMode may take; none means the CLI has
	// no permission modes and PermissionMode must be empty.
	PermissionModes() []string
	// Command builds the non-interactive invocation for r.
	Command(r Request) (Command, error)
	// Parse appends the events found in one stdout line (without its newline) to dst.
	// Lines that are not the agent's JSON produce no events.
	Parse(line []byte, dst []Event) []Event
	// Sessions says where the CLI keeps its sessions, or is nil when they cannot be resumed.
	// Resuming is what structured-output retries and the resume-session input need.
	Sessions() *Sessions
	// MaxPromptBytes is the largest prompt Command accepts, or 0 for no limit. CLIs that take
	// the prompt as a command-line argument are bound by the kernel's limit on one argument.
	MaxPromptBytes() int
	// EnvNames lists the environment variables the CLI reads for credentials and endpoints;
	// these pass into the sandbox when set.
	EnvNames() []string
	// Credentials lists the variables of which at least one must be set for the CLI to log in
	// when it cannot use a login of the machine it runs on (in a container, say).
	Credentials() []string
}
