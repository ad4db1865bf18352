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

// Spec is what a caller needs to know about one agent CLI before running it: the values it
// accepts, the environment it reads, and where it keeps its sessions. A Spec is a fresh value
// on every Lookup: its slices are the caller's to keep.
type Spec struct {
	// Name is the value of the agent input, e.g. "claude-code".
	Name string
	// Label is the CLI's name for people, e.g. "Claude Code".
	Label string
	// Secret is the variable a starter workflow passes from the repository's secrets: one of
	// Credentials, or, for a CLI that needs none (a free default model), of EnvNames.
	Secret string
	// Program is the executable Command runs (argv[0]), looked up on the sandbox's PATH.
	Program string
	// DefaultModel is the model Command uses when Request.Model is empty.
	DefaultModel string
	// Efforts lists the values Request.Effort may take, weakest first; none means the CLI has
	// no effort setting and Effort must be empty.
	Efforts []string
	// PermissionModes lists the values Request.PermissionMode may take; none means the CLI has
	// no permission modes and PermissionMode must be empty.
	PermissionModes []string
	// EnvNames lists the environment variables the CLI reads for credentials and endpoints;
	// these pass into the sandbox when set.
	EnvNames []string
	// Credentials lists the variables of which at least one must be set for the CLI to log in
	// when it cannot use a login of the machine it runs on (in a container, say).
	Credentials []string
	// MaxPromptBytes is the largest prompt Command accepts, or 0 for no limit. CLIs that take
	// the prompt as a command-line argument are bound by the kernel's limit on one argument.
	MaxPromptBytes int
	// ReportsCost says the CLI reports what each invocation cost (Usage.CostUSD), which a cost
	// budget is checked against.
	ReportsCost bool
	// Sessions says where the CLI keeps its sessions, or is nil when they cannot be resumed.
	// Resuming is what structured-output retries and the resume-session input need.
	Sessions *Sessions
}

// Provider knows one agent CLI: its Spec, how to start one invocation, and how to read what
// the invocation prints. Its consumers declare the methods they call.
type Provider struct {
	Spec
	cli cli
}

// cli is what differs from one agent CLI to the next beyond its Spec.
type cli interface {
	// command builds the invocation of r, a request Provider.Command has checked against the
	// Spec, for model (r.Model or the default). Its Argv holds the arguments after the program.
	command(r Request, model string) (Command, error)
	// parse appends the events found in one stdout line to dst.
	parse(line []byte, dst []Event) []Event
}

// Command builds the non-interactive invocation for r, after checking r against the Spec: the
// model, effort and permission mode it names, the session it resumes, and the prompt's size.
// The argv is exec'd directly, never through a shell.
func (p Provider) Command(r Request) (Command, error) {
	model, err := checkRequest(p.Spec, r)
	if err != nil {
		return Command{}, err
	}
	cmd, err := p.cli.command(r, model)
	if err != nil {
		return Command{}, err
	}
	cmd.Argv = append([]string{p.Program}, cmd.Argv...)
	return cmd, nil
}

// Parse appends the events found in one stdout line (without its newline) to dst. Lines that
// are not the agent's JSON produce no events.
func (p Provider) Parse(line []byte, dst []Event) []Event { return p.cli.parse(line, dst) }
