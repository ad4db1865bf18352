package inputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/event"
	"github.com/sandcastle-action/sandcastle/internal/fanout"
	"github.com/sandcastle-action/sandcastle/internal/gitref"
	"github.com/sandcastle-action/sandcastle/internal/review"
	"github.com/sandcastle-action/sandcastle/internal/triage"
)

// Env is what Load needs from outside: where relative paths start, how to read files, and which
// agents this build has. Every field must be set, except Home.
type Env struct {
	// WorkDir is the absolute directory relative paths start from: GITHUB_WORKSPACE in the
	// Action, the process's working directory on the command line.
	WorkDir string
	// Home is the absolute home directory that ~ in a mount's host path stands for; "" means
	// unknown, and such a mount is refused.
	Home string
	// ReadFile reads at most limit bytes of the regular file at path. It never waits on
	// anything else (a named pipe, a device): for a path that is not a regular file its error
	// is a *NotRegularError.
	ReadFile func(path string, limit int64) ([]byte, error)
	// Stat describes a file, following symlinks (os.Stat).
	Stat func(path string) (fs.FileInfo, error)
	// Agents are the agents the agent input accepts.
	Agents []AgentInfo
	// Event is the event that started the run; nil outside Actions, or when it could not be
	// read, which EventUnread then says (and the caller reports). The implement mode names its
	// branch after the event's issue.
	Event       *event.Event
	EventUnread bool
}

// AgentInfo is what validation needs to know about one agent, so inputs need not import the
// agent package.
type AgentInfo struct {
	Name            string
	Efforts         []string // values the effort input may take; none = effort must be empty
	PermissionModes []string // values permission-mode may take; none = it must be empty
	Resumable       bool     // sessions can be resumed, which output-max-retries and resume-session need
	Forkable        bool     // a resumed session can continue under a new id (fork-session)
	ReportsCost     bool     // it reports what each invocation cost, which max-cost-usd needs
}

// Problem is one invalid input: what the user gave the run is wrong, and nothing was started.
// Load returns every Problem it finds, joined; use errors.As to reach them. A caller that finds
// a bad setting later (a flag, the repository the inputs name, the environment) says so with a
// Problem too, so that one look at the error's type tells bad input from a failed run.
type Problem struct {
	Input   string // the input's name, e.g. "max-iterations", or "docker.memory" for a map input's key; "" when the problem is no one input's
	Message string // what is wrong and what would be valid
}

func (p *Problem) Error() string {
	if p.Input == "" {
		return p.Message
	}
	return label(p.Input) + ": " + p.Message
}

// RuntimeError is an input that proved unusable once the run had started: a log file that
// cannot be created, a Docker daemon that cannot be reached. It names the input as a Problem
// does, but something was already done, so it is a failed run, not bad input.
type RuntimeError struct {
	Input string // the input's name
	Err   error  // what went wrong, and what to change
}

func (e *RuntimeError) Error() string { return fmt.Sprintf("%s: %v", label(e.Input), e.Err) }

func (e *RuntimeError) Unwrap() error { return e.Err }

var (
	identRe     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	outputTagRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
)

// maxSeconds keeps seconds * time.Second from overflowing a time.Duration.
const maxSeconds = int64(math.MaxInt64 / int64(time.Second))

// Load applies the defaults to raw, checks every input and returns the Config. When anything is
// wrong it returns all the problems at once, each a *Problem, joined with errors.Join.
// An error that is not a Problem means env itself is unusable.
func Load(raw Raw, env Env) (Config, error) {
	if !filepath.IsAbs(env.WorkDir) {
		return Config{}, fmt.Errorf("load inputs: work directory %q is not absolute", env.WorkDir)
	}
	l := &loader{raw: maps.Clone(raw), env: env}
	for name := range raw {
		if !isTopLevel(name) {
			hint := didYouMean(name, "")
			if hint != "" {
				hint = " (" + hint + ")"
			}
			l.problem(name, "there is no such input%s; see the inputs in action.yml or sandcastle run --help", hint)
		}
	}
	l.expandGroups()
	slices.SortFunc(l.problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })

	var c Config
	c.Mode = l.choice(InputMode)
	l.applyMode(c.Mode)
	var wdOK bool
	c.WorkingDirectory, wdOK = l.workingDirectory()
	l.prompt(&c)
	c.CompletionSignals = l.list(InputCompletionSignal)
	if len(c.CompletionSignals) == 0 {
		// A value of only blank lines is "not given"; the default keeps the set non-empty.
		c.CompletionSignals = []string{DefaultCompletionSignal}
	}
	c.MaxIterations = int(l.number(InputMaxIterations, 1, math.MaxInt32))
	c.IdleTimeout = l.seconds(InputIdleTimeoutSeconds)
	c.CompletionTimeout = l.seconds(InputCompletionTimeoutSeconds)
	c.ShellTimeout = l.seconds(InputShellTimeoutSeconds)

	agent, agentOK := l.agent()
	c.Agent = agent.Name
	c.Model = l.single(InputModel)
	c.Effort = l.fromAgent(InputEffort, agent, agentOK, agent.Efforts, "effort")
	c.PermissionMode = l.fromAgent(InputPermissionMode, agent, agentOK, agent.PermissionModes, "permission mode")
	c.ResumeSession, c.ForkSession = l.session(agent, agentOK)
	c.Sandbox = l.sandbox()
	if c.Sandbox == SandboxNone {
		l.notDocker(c.Sandbox)
	} else {
		// With an invalid sandbox the Docker inputs are still checked, so every problem shows
		// at once; the Config is not returned then.
		c.Docker = l.docker(c.WorkingDirectory, wdOK, c.Agent)
	}

	c.BranchStrategy = BranchStrategy(l.choice(InputBranchStrategy))
	c.Branch = l.branch(c.BranchStrategy)
	c.Name = l.single(InputName)
	c.CopyToWorktree = l.copyToWorktree(c.BranchStrategy)
	c.Hooks = Hooks{
		WorktreeReady:    l.commands(InputHookWorktreeReady),
		HostSandboxReady: l.commands(InputHookHostSandboxReady),
		SandboxReady:     l.commands(InputHookSandboxReady),
		Timeout:          l.seconds(InputHookTimeoutSeconds),
	}

	c.EnvNames = l.envNames()
	if wdOK {
		c.EnvFile, c.EnvFileValues = l.envFile(c.WorkingDirectory)
	}
	c.LogFile = l.logFile(c.WorkingDirectory)
	c.Verbose = l.boolean(InputVerbose)
	c.GitHub = l.github(c.BranchStrategy)
	l.modeArgs(&c)
	c.Output = l.output(c.WorkingDirectory, wdOK, agent, agentOK, c.GitHub.OutputAction)
	c.VerifyCommand = strings.TrimSpace(l.text(InputVerifyCommand))
	c.RunTimeout, c.MaxCostUSD = l.budgets(agent, agentOK)

	if err := errors.Join(l.problems...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// loader collects problems while reading inputs one by one.
type loader struct {
	raw      Raw // what was given, less what the mode refused
	env      Env
	mode     Mode // the mode's row, whose settings are the defaults of what raw lacks
	problems []error
}

func (l *loader) problem(input, format string, args ...any) {
	l.problems = append(l.problems, &Problem{Input: input, Message: fmt.Sprintf(format, args...)})
}

// given returns the value of name as given, and whether it was given (non-blank).
func (l *loader) given(name string) (string, bool) {
	v, ok := l.raw[name]
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}

// text returns the value of name as given, or the mode's, or its default.
func (l *loader) text(name string) string {
	if v, ok := l.given(name); ok {
		return v
	}
	if s, ok := l.mode.setting(name); ok {
		return s.Value
	}
	d, _ := Lookup(name)
	return d.Default
}

// single returns the trimmed value of a one-line input, or its default.
func (l *loader) single(name string) string {
	v := strings.TrimSpace(l.text(name))
	if strings.ContainsAny(v, "\r\n") {
		l.problem(name, "%q spans several lines; give a single line", v)
		return ""
	}
	return v
}

func (l *loader) number(name string, lowest, highest int64) int64 {
	v := l.single(name)
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && n > highest:
		l.problem(name, "%q is too large; use at most %d", v, highest)
	case err != nil:
		l.problem(name, "%q is not a whole number; use %d or more", v, lowest)
	case n < lowest:
		l.problem(name, "%d is too small; use %d or more", n, lowest)
	default:
		return n
	}
	return 0
}

func (l *loader) seconds(name string) time.Duration {
	return time.Duration(l.number(name, 1, maxSeconds)) * time.Second
}

func (l *loader) boolean(name string) bool {
	b, _ := l.flag(name)
	return b
}

// flag is boolean that also says whether the value was valid, so that a problem of its own
// does not set off problems about the inputs that depend on it.
func (l *loader) flag(name string) (value, ok bool) {
	v := l.single(name)
	if value, ok = parseBool(v); !ok {
		l.problem(name, "%q is not a boolean; use true or false", v)
	}
	return value, ok
}

// parseBool reads a boolean input's value, and says whether it is one.
func parseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "1":
		return true, true
	case "false", "no", "0":
		return false, true
	}
	return false, false
}

// choice returns the value of a KindChoice input when it is one of its Choices.
func (l *loader) choice(name string) string {
	v := l.single(name)
	d, _ := Lookup(name)
	if slices.Contains(d.Choices, v) {
		return v
	}
	l.problem(name, "%q is not valid; use %s", v, oneOf(d.Choices))
	return ""
}

// oneOf lists valid values for a message: "a", "a or b", "one of: a, b, c".
func oneOf(values []string) string {
	switch len(values) {
	case 0:
		return "nothing (none are available)"
	case 1:
		return values[0]
	case 2:
		return values[0] + " or " + values[1]
	}
	return "one of: " + strings.Join(values, ", ")
}

// list returns the non-blank lines of name, trimmed.
func (l *loader) list(name string) []string {
	var out []string
	for _, line := range strings.Split(l.text(name), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// commands returns the shell commands of a hook input, one per line. A line ending in a
// backslash continues on the next, as it would in a shell script, so long commands copied from
// a workflow's run: block keep working.
func (l *loader) commands(name string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range l.list(name) {
		if continues(line) {
			cur.WriteString(strings.TrimSpace(line[:len(line)-1]) + " ")
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// continues reports whether line ends in an unescaped backslash, which joins it to the next.
func continues(line string) bool {
	n := len(line) - len(strings.TrimRight(line, `\`))
	return n%2 == 1
}

// resolve makes p absolute against base.
func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// readError says why a file could not be read, naming the path once.
func readError(path string, err error) string {
	var fe *fileError
	if errors.As(err, &fe) {
		return fe.msg
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("file %s does not exist", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("cannot read %s: %v", path, err)
}

func (l *loader) workingDirectory() (string, bool) {
	dir := resolve(l.env.WorkDir, l.single(InputWorkingDirectory))
	info, err := l.env.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.problem(InputWorkingDirectory, "directory %s does not exist; give a directory relative to %s", dir, l.env.WorkDir)
	case err != nil:
		l.problem(InputWorkingDirectory, "cannot use %s: %v", dir, err)
	case !info.IsDir():
		l.problem(InputWorkingDirectory, "%s is not a directory; give the repository's directory", dir)
	default:
		return dir, true
	}
	return dir, false
}

func (l *loader) prompt(c *Config) {
	inline, hasInline := l.given(InputPrompt)
	_, hasFile := l.given(InputPromptFile)
	file := l.single(InputPromptFile)
	argsText, hasArgs := l.given(InputPromptArgs)
	switch {
	case hasInline && hasFile:
		l.problem(InputPrompt, "prompt and prompt-file are both set; use one of them")
	case !hasInline && !hasFile && l.mode.Prompt != "":
		c.Prompt, c.BuiltInPrompt = l.mode.Prompt, true
	case !hasInline && !hasFile && l.mode.Name == "":
		// The mode is invalid, and its problem says enough: a valid one may have had a prompt.
	case !hasInline && !hasFile:
		l.problem(InputPrompt, "no prompt given; set prompt (inline text) or prompt-file (a template file), or a mode with a built-in prompt")
	case hasInline:
		c.Prompt = inline
	case file == "":
		// single reported why the path is unusable.
	default:
		c.PromptFile = resolve(l.env.WorkDir, file)
		data, err := l.readText(c.PromptFile)
		switch {
		case err != nil:
			l.problem(InputPromptFile, "%s; paths are relative to %s", readError(c.PromptFile, err), l.env.WorkDir)
		case strings.TrimSpace(string(data)) == "":
			l.problem(InputPromptFile, "file %s is empty; write the prompt in it", c.PromptFile)
		default:
			c.Prompt = string(data)
		}
	}
	if hasArgs {
		args, problems := parsePromptArgs(argsText)
		for _, p := range problems {
			l.problem(InputPromptArgs, "%s", p)
		}
		switch {
		case hasInline && len(args) > 0:
			// An empty map or only comments is no arguments, which an inline prompt takes.
			l.problem(InputPromptArgs, "cannot be used with an inline prompt, which is sent verbatim; put the prompt in a file and use prompt-file")
		case !hasInline:
			c.PromptArgs = args
		}
	}
}

func (l *loader) agent() (AgentInfo, bool) {
	name := l.single(InputAgent)
	var names []string
	for _, a := range l.env.Agents {
		if a.Name == name {
			return a, true
		}
		names = append(names, a.Name)
	}
	l.problem(InputAgent, "%q is not a known agent; use %s", name, oneOf(names))
	return AgentInfo{Name: name}, false
}

// fromAgent checks that the value of name is one the agent accepts. When the agent itself is
// invalid, the agent's problem is enough.
func (l *loader) fromAgent(name string, agent AgentInfo, agentOK bool, valid []string, what string) string {
	v := l.single(name)
	switch {
	case v == "" || !agentOK || slices.Contains(valid, v):
		return v
	case len(valid) == 0:
		l.problem(name, "agent %q takes no %s; remove %s", agent.Name, what, name)
	default:
		l.problem(name, "agent %q does not accept %s %q; use %s, or leave it empty for the default", agent.Name, what, v, oneOf(valid))
	}
	return ""
}

// session reads resume-session and fork-session. Whether the session exists is checked by the
// caller, which knows where the agent keeps it.
func (l *loader) session(agent AgentInfo, agentOK bool) (string, bool) {
	id, fork := l.single(InputResumeSession), l.boolean(InputForkSession)
	switch {
	case fork && id == "":
		l.problem(InputForkSession, "needs resume-session: set the id of the session to fork")
	case id == "" || !agentOK:
	case !agent.Resumable:
		l.problem(InputResumeSession, "agent %q cannot resume a session; remove resume-session, or use an agent that can: %s", agent.Name, oneOf(l.agentsWith(func(a AgentInfo) bool { return a.Resumable })))
	case fork && !agent.Forkable:
		l.problem(InputForkSession, "agent %q cannot fork a session without changing it; set fork-session to false to continue the session in place, or use %s", agent.Name, oneOf(l.agentsWith(func(a AgentInfo) bool { return a.Forkable })))
	}
	return id, fork
}

// agentsWith names the agents for which ok holds.
func (l *loader) agentsWith(ok func(AgentInfo) bool) []string {
	var names []string
	for _, a := range l.env.Agents {
		if ok(a) {
			names = append(names, a.Name)
		}
	}
	return names
}

func (l *loader) sandbox() string {
	v := l.single(InputSandbox)
	if !slices.Contains(knownSandboxes, v) {
		l.problem(InputSandbox, "%q is not a sandbox; use %s", v, oneOf(knownSandboxes))
		return ""
	}
	return v
}

func (l *loader) branch(strategy BranchStrategy) string {
	v := l.single(InputBranch)
	if v == "" && strategy == StrategyBranch && l.mode.IssueBranch {
		return l.issueBranch()
	}
	switch {
	case strategy == "":
		// The strategy's own problem says enough.
	case strategy == StrategyBranch && v == "":
		l.problem(InputBranch, "is required with branch-strategy %q; give the name of the branch to work on", StrategyBranch)
	case strategy != StrategyBranch && v != "":
		l.problem(InputBranch, "is used only with branch-strategy %q, but it is %q; set branch-strategy: branch or remove branch", StrategyBranch, strategy)
	case v != "":
		if err := gitref.Check(v); err != nil {
			l.problem(InputBranch, "%v", err)
			return ""
		}
	}
	return v
}

func (l *loader) copyToWorktree(strategy BranchStrategy) []string {
	paths := l.list(InputCopyToWorktree)
	if len(paths) > 0 && strategy == StrategyHead {
		l.problem(InputCopyToWorktree, "is not used with branch-strategy head, which works in the checkout itself; use merge-to-head or branch, or remove copy-to-worktree")
		return nil
	}
	var out []string
	for _, p := range paths {
		slashed := filepath.ToSlash(p)
		switch {
		case filepath.IsAbs(p) || strings.HasPrefix(slashed, "/"):
			l.problem(InputCopyToWorktree, "%q is absolute; give a path relative to working-directory", p)
		case slices.Contains(strings.Split(slashed, "/"), ".."):
			l.problem(InputCopyToWorktree, "%q contains ..; give a path inside working-directory", p)
		default:
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

func (l *loader) envNames() []string {
	var out []string
	for _, line := range l.list(InputEnv) {
		for _, name := range strings.Split(line, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "" || slices.Contains(out, name):
			case !identRe.MatchString(name):
				l.problem(InputEnv, "%q is not a variable name; use letters, digits and _, not starting with a digit", name)
			default:
				out = append(out, name)
			}
		}
	}
	return out
}

func (l *loader) envFile(dir string) (string, map[string]string) {
	v := l.single(InputEnvFile)
	path := resolve(dir, v)
	data, err := l.readText(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && v == defaultOf(InputEnvFile):
		// The default file is optional: most repositories have none.
		return path, nil
	case err != nil:
		l.problem(InputEnvFile, "%s; paths are relative to working-directory %s", readError(path, err), dir)
		return path, nil
	}
	values, err := ParseEnvFile(data)
	if err != nil {
		for _, e := range Unjoin(err) {
			l.problem(InputEnvFile, "%s: %v", path, e)
		}
	}
	return path, values
}

func (l *loader) logFile(dir string) string {
	switch v := l.single(InputLogFile); v {
	case "", LogStdout:
		return v
	default:
		return resolve(dir, v)
	}
}

func (l *loader) output(dir string, dirOK bool, agent AgentInfo, agentOK bool, action string) *OutputConfig {
	tag := l.single(InputOutputTag)
	schemaText, hasSchema := l.given(InputOutputSchema)
	if own, ok := actionSchemas[action]; ok {
		// The host reads the output itself: its own tag and schema unless the workflow names
		// others.
		if tag == "" {
			tag = defaultActionTag
		}
		if !hasSchema {
			schemaText, hasSchema = own, true
		}
	}
	retries := int(l.number(InputOutputMaxRetries, 0, math.MaxInt32))
	if tag == "" {
		if hasSchema {
			l.problem(InputOutputSchema, "needs output-tag; set output-tag to the tag the agent writes its output in")
		}
		if retries > 0 {
			l.problem(InputOutputMaxRetries, "needs output-tag; set output-tag or use 0")
		}
		return nil
	}
	if !outputTagRe.MatchString(tag) {
		l.problem(InputOutputTag, "%q is not a tag name; use a letter followed by letters, digits, _, . or -, like result", tag)
	}
	if retries > 0 && agentOK && !agent.Resumable {
		l.problem(InputOutputMaxRetries, "agent %q cannot resume a session, which retries need; use 0, or an agent that can: %s", agent.Name, strings.Join(l.agentsWith(func(a AgentInfo) bool { return a.Resumable }), ", "))
	}
	// A schema says the output is a JSON object; without one it is the tag's text.
	out := &OutputConfig{Tag: tag, Type: OutputString, MaxRetries: retries}
	if hasSchema {
		out.Type = OutputObject
		out.Schema = l.schema(strings.TrimSpace(schemaText), dir, dirOK)
	}
	return out
}

// defaultActionTag is the tag a review, triage or plan run's output is read from by default.
const defaultActionTag = "result"

// actionSchemas are the default output-schema of each output-action that reads the output.
var actionSchemas = map[string]string{OutputActionReview: review.Schema, OutputActionTriage: triage.Schema, OutputActionPlan: fanout.Schema}

// schema returns the JSON Schema document given inline (starting with "{") or as a file path.
func (l *loader) schema(v, dir string, dirOK bool) []byte {
	where := "inline schema"
	data := []byte(v)
	if !strings.HasPrefix(v, "{") {
		if strings.ContainsAny(v, "\r\n") {
			l.problem(InputOutputSchema, "is neither inline JSON (which starts with {) nor a single-line file path")
			return nil
		}
		if !dirOK {
			return nil // the working-directory problem says enough
		}
		path := resolve(dir, v)
		var err error
		if data, err = l.readText(path); err != nil {
			l.problem(InputOutputSchema, "%s; give inline JSON starting with { or a file path relative to working-directory %s", readError(path, err), dir)
			return nil
		}
		where = path
	}
	if err := checkJSON(data); err != nil {
		l.problem(InputOutputSchema, "%s is not valid JSON: %v; give a JSON Schema document", where, err)
		return nil
	}
	return data
}

// checkJSON reports where data stops being JSON, by line and column.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		before := data[:min(int(se.Offset), len(data))]
		line := bytes.Count(before, []byte("\n")) + 1
		col := len(before) - bytes.LastIndexByte(before, '\n') - 1
		return fmt.Errorf("line %d column %d: %s", line, col, se.Error())
	}
	return err
}

// defaultOf returns the default of a defined input.
func defaultOf(name string) string {
	d, _ := Lookup(name)
	return d.Default
}

// Unjoin is every error err joins with errors.Join, however deep, or err itself: each problem
// of Load's error, say. It is nil for nil.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Unjoin(e)...)
		}
		return out
	}
	return []error{err}
}
