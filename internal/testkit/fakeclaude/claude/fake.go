package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Script is what NAME.script holds; package fakeclaude writes it.
type Script struct {
	Steps []Step `json:"steps"`
	// Usage is what each reply reports, as the model stand-ins do; an invocation's result line
	// carries it times the replies it was given.
	Usage Usage `json:"usage"`
}

// Step is one reply of the model: a shell tool call (bash), text that ends the turn (text), an
// API error (error), no answer (hang) or text and then no end (text_then_hang).
type Step struct {
	Kind    string `json:"kind"`
	Text    string `json:"text,omitempty"`
	Command string `json:"command,omitempty"`
	Status  int    `json:"status,omitempty"`
	Body    string `json:"body,omitempty"`
}

// Usage is one reply's tokens and cost.
type Usage struct {
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheReadTokens     int64   `json:"cache_read_input_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_input_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

// Call is one invocation, as NAME.calls records it.
type Call struct {
	Args   []string `json:"args"`
	Prompt string   `json:"prompt"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
}

// fake is one invocation of the fake claude.
type fake struct {
	script string // the path of the program; its files are script+".script" and the rest
	dir    string // the working directory
	home   string
	env    []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	hang   func() int // waits to be killed and returns the exit code

	out     *bufio.Writer
	session string
	replies int64
	usage   Usage
}

// run is the invocation with args; it returns the exit code.
func (f *fake) run(args []string) int {
	f.out = bufio.NewWriter(f.stdout)
	defer f.out.Flush()
	code, err := f.converse(args)
	if err != nil {
		f.out.Flush()
		fmt.Fprintln(f.stderr, "fakeclaude:", err)
		return 2
	}
	return code
}

func (f *fake) converse(args []string) (int, error) {
	prompt, err := io.ReadAll(f.stdin)
	if err != nil {
		return 0, err
	}
	if err := f.record(Call{Args: args, Prompt: string(prompt), Dir: f.dir, Env: f.env}); err != nil {
		return 0, err
	}
	var sc Script
	data, err := os.ReadFile(f.script + ".script")
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(data, &sc); err != nil {
		return 0, fmt.Errorf("%s.script: %w", f.script, err)
	}
	f.usage = sc.Usage
	if code, ok := f.startSession(args); !ok {
		return code, nil
	}
	f.line(map[string]any{"type": "system", "subtype": "init", "cwd": f.dir, "session_id": f.session, "model": flagValue(args, "--model"), "tools": []string{"Bash"}})
	f.remember("user", string(prompt))
	for {
		step, ok, err := f.next(sc)
		if err != nil {
			return 0, err
		}
		if !ok {
			return f.fail("fakeclaude: script exhausted: every step was used"), nil
		}
		switch step.Kind {
		case "bash":
			if err := f.bash(step.Command); err != nil {
				return 0, err
			}
		case "text":
			f.text(step.Text)
			f.result(step.Text, false)
			return 0, nil
		case "error":
			return f.fail(fmt.Sprintf("API Error: %d %s", step.Status, step.Body)), nil
		case "text_then_hang":
			f.text(step.Text)
			fallthrough
		case "hang":
			f.out.Flush()
			return f.hang(), nil
		default:
			return 0, fmt.Errorf("unknown step %q", step.Kind)
		}
	}
}

// startSession picks the session: a new one, the one --resume names, or a fork of it. A
// session to resume that is not where claude keeps it fails as claude does.
func (f *fake) startSession(args []string) (code int, ok bool) {
	resume := flagValue(args, "--resume")
	if resume == "" {
		f.session = newID()
		return 0, true
	}
	old, err := os.ReadFile(f.sessionFile(resume))
	if err != nil {
		f.session = newID()
		return f.fail("No conversation found with session ID: " + resume), false
	}
	f.session = resume
	if slices.Contains(args, "--fork-session") {
		f.session = newID()
		if err := os.WriteFile(f.sessionFile(f.session), old, 0o600); err != nil {
			return f.fail(err.Error()), false
		}
	}
	return 0, true
}

// next takes the next step of the script, across invocations.
func (f *fake) next(sc Script) (Step, bool, error) {
	n := 0
	if b, err := os.ReadFile(f.script + ".next"); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Step{}, false, err
	}
	if n >= len(sc.Steps) {
		return Step{}, false, nil
	}
	f.replies++
	return sc.Steps[n], true, os.WriteFile(f.script+".next", []byte(strconv.Itoa(n+1)), 0o644)
}

// bash calls the shell tool: the command runs in the working directory with the agent's
// environment, as claude's Bash tool runs it.
func (f *fake) bash(command string) error {
	id := fmt.Sprintf("toolu_%d", f.replies)
	f.line(f.assistant(map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]string{"command": command}}))
	f.out.Flush()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = f.dir, f.env
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fmt.Errorf("run %q: %w", command, err)
	}
	f.line(map[string]any{"type": "user", "session_id": f.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": id, "type": "tool_result", "content": output.String(), "is_error": err != nil}}}})
	f.remember("tool", output.String())
	return nil
}

func (f *fake) text(s string) {
	f.line(f.assistant(map[string]any{"type": "text", "text": s}))
	f.remember("assistant", s)
}

func (f *fake) assistant(block map[string]any) map[string]any {
	return map[string]any{"type": "assistant", "session_id": f.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "assistant", "content": []any{block}}}
}

// result is the line that ends the invocation, with the usage of every reply it got.
func (f *fake) result(text string, isError bool) {
	n := f.replies
	f.line(map[string]any{"type": "result", "subtype": "success", "is_error": isError, "result": text, "session_id": f.session,
		"total_cost_usd": float64(n) * f.usage.CostUSD,
		"usage": map[string]int64{"input_tokens": n * f.usage.InputTokens, "output_tokens": n * f.usage.OutputTokens,
			"cache_read_input_tokens": n * f.usage.CacheReadTokens, "cache_creation_input_tokens": n * f.usage.CacheCreationTokens}})
}

// fail ends the invocation as claude does when its request fails: an error result, exit 1.
func (f *fake) fail(msg string) int {
	f.result(msg, true)
	return 1
}

func (f *fake) line(v any) {
	b, _ := json.Marshal(v) // maps of strings, numbers and slices always encode
	f.out.Write(append(b, '\n'))
}

// remember appends one turn to the session's file, as claude keeps it: a JSON line recording
// the working directory, which a carrier rewrites when the session moves.
func (f *fake) remember(role, text string) {
	path := f.sessionFile(f.session)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return // a session that cannot be kept is one that cannot be resumed, as with claude
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer file.Close()
	b, _ := json.Marshal(map[string]string{"type": role, "sessionId": f.session, "cwd": f.dir, "text": text})
	file.Write(append(b, '\n'))
}

// sessionFile is where claude keeps session id of the working directory.
func (f *fake) sessionFile(id string) string {
	project := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, f.dir)
	return filepath.Join(f.home, ".claude", "projects", project, id+".jsonl")
}

func (f *fake) record(c Call) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	file, err := os.OpenFile(f.script+".calls", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := file.Write(append(b, '\n')); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// flagValue is the value after name in args, "" when absent.
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// newID is a session id shaped like claude's.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
