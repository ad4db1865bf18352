package fakeclaude

import (
	"bufio"
	"crypto/sha256"
	_ "embed" // the fake's source, whose hash names its build
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// Claude is a stand-in for the claude CLI itself, for tests that reach a whole run in a
// plain go test, without npm: a program (built from ./claude with go build, once for each
// version of its source) that speaks claude's stream-json and answers with the same steps as the model
// stand-ins. Bash runs the command in the agent's directory with its environment and reports
// the output as the tool's result; Text prints the final message and exits 0; Error prints
// "API Error: STATUS BODY" as an error result and exits 1; Hang prints nothing more until the
// agent is stopped; TextThenHang prints the text, then hangs. The steps go on across
// invocations, as a conversation does, and every reply reports the model stand-ins' usage
// (InputTokensPerReply and the rest) and CostPerReply. Sessions are kept in claude's store
// under the agent's HOME, so --resume and --fork-session work.
//
// A step past the end of the script fails the invocation ("script exhausted"); a script not
// used up by the end of a test that otherwise passed fails the test.
type Claude struct {
	t     testing.TB
	dir   string
	steps int
}

// CostPerReply is the cost in US dollars every reply of the fake claude reports.
const CostPerReply = 0.0025

// New puts the fake claude in a directory of its own with its script; put Dir first
// on the agent's PATH.
func New(t testing.TB, steps ...models.Step) *Claude {
	t.Helper()
	bin, err := fakeClaudeBinary()
	if err != nil {
		t.Fatalf("build the fake claude: %v", err)
	}
	f := &Claude{t: t, dir: t.TempDir(), steps: len(steps)}
	if err := copyFile(bin, f.path(), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fakeScript{Steps: steps, Usage: fakeUsage{models.InputTokensPerReply, models.OutputTokensPerReply,
		models.CacheReadTokensPerReply, models.CacheCreationTokensPerReply, CostPerReply}}
	data, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path()+".script", data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.check)
	return f
}

// Dir is the directory holding the fake, named claude.
func (f *Claude) Dir() string { return f.dir }

// Call is one invocation of the fake claude.
type Call struct {
	Args   []string `json:"args"`
	Prompt string   `json:"prompt"` // what it read on stdin
	Dir    string   `json:"dir"`    // its working directory
	Env    []string `json:"env"`    // its environment, KEY=VALUE
}

// Calls are the invocations so far, oldest first.
func (f *Claude) Calls() []Call {
	f.t.Helper()
	file, err := os.Open(f.path() + ".calls")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	defer file.Close()
	var calls []Call
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			f.t.Fatalf("fake claude calls: %v", err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		f.t.Fatal(err)
	}
	return calls
}

// Used is how many steps the invocations took so far.
func (f *Claude) Used() int {
	b, err := os.ReadFile(f.path() + ".next")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func (f *Claude) check() {
	if f.t.Failed() || f.t.Skipped() { // a skipped test may stop before the agent runs
		return
	}
	if got := f.Used(); got < f.steps {
		f.t.Errorf("fake claude: script not finished: %d steps used of %d", got, f.steps)
	}
}

func (f *Claude) path() string { return filepath.Join(f.dir, "claude") }

// fakeScript and its parts are the script as ./claude reads it.
type fakeScript struct {
	Steps []models.Step `json:"steps"`
	Usage fakeUsage     `json:"usage"`
}

type fakeUsage struct {
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheReadTokens     int64   `json:"cache_read_input_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_input_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

//go:embed claude/main.go
var fakeMain []byte

//go:embed claude/fake.go
var fakeSource []byte

// fakeBuild is the fake claude built once per process.
var fakeBuild struct {
	once sync.Once
	path string
	err  error
}

// fakeClaudeBinary builds the fake claude into the user's cache under a name
// that its source and the Go version decide, so that a later test process finds it built.
func fakeClaudeBinary() (string, error) {
	fakeBuild.once.Do(func() {
		h := sha256.New()
		h.Write(fakeMain)
		h.Write(fakeSource)
		io.WriteString(h, runtime.Version()+runtime.GOOS+runtime.GOARCH)
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "sandcastle-test", "fakeclaude")
		fakeBuild.path = filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:16])
		if _, err := os.Stat(fakeBuild.path); err == nil {
			return
		}
		fakeBuild.err = buildFake(dir, fakeBuild.path)
	})
	return fakeBuild.path, fakeBuild.err
}

// buildFake builds ./claude to path, through a file of its own that is renamed into
// place, so that parallel test processes never see half a program.
func buildFake(dir, path string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".build-*")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "github.com/sandcastle-action/sandcastle/internal/testkit/fakeclaude/claude")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return os.Rename(tmp.Name(), path)
}

func copyFile(from, to string, mode fs.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
