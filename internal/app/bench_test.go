package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
)

// trivialAgent is a claude stand-in that prints a short stream and exits, so that what is timed
// is the pipeline, not a model.
const trivialAgent = `#!/bin/sh
cat > /dev/null
echo '{"type":"system","subtype":"init","session_id":"bench"}'
echo '{"type":"assistant","message":{"content":[{"type":"text","text":"nothing to do"}]}}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"nothing to do","total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1}}'
`

// BenchmarkPipelineOverhead runs Main for five iterations of a trivial agent and reports the
// time per iteration spent outside the agent process (scripts/bench-overhead.sh prints it).
func BenchmarkPipelineOverhead(b *testing.B) {
	const iterations = 5
	e := env{"PATH": os.Getenv("PATH"), "HOME": b.TempDir(), "LANG": "C"}
	bin := filepath.Join(e["HOME"], "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		b.Fatal(err)
	}
	agent := filepath.Join(bin, "claude")
	if err := os.WriteFile(agent, []byte(trivialAgent), 0o755); err != nil {
		b.Fatal(err)
	}
	e["PATH"] = bin + string(os.PathListSeparator) + e["PATH"]
	dir := benchRepo(b, e)

	// The agent's own cost: the same process started directly.
	start := time.Now()
	const probes = 20
	for range probes {
		cmd := exec.Command(agent)
		cmd.Stdin = nil
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	agentTime := time.Since(start) / probes

	b.ResetTimer()
	for b.Loop() {
		var out testkit.SyncBuffer
		code := Main(b.Context(), System{
			Args:   []string{"run", "--sandbox", "none", "--prompt", "do nothing", "--max-iterations", "5", "--log-file", "-"},
			Getenv: e.get,
			Getwd:  func() (string, error) { return dir, nil },
			Stdout: &out,
			Stderr: &out,
		})
		if code != 0 {
			b.Fatalf("exit %d:\n%s", code, out.String())
		}
	}
	perIteration := b.Elapsed() / time.Duration(b.N*iterations)
	b.ReportMetric(float64(perIteration.Microseconds())/1000, "ms/iteration")
	b.ReportMetric(float64(agentTime.Microseconds())/1000, "ms/agent-process")
	b.ReportMetric(float64((perIteration-agentTime).Microseconds())/1000, "ms/overhead-per-iteration")
}

func benchRepo(b *testing.B, e env) string {
	dir := b.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty", "-m", "initial"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + e["PATH"], "HOME=" + e["HOME"]}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// timedAgent is a trivial claude for the container benchmark: it appends the time it started
// and the time it ends (ns since the epoch; container and host share the clock) to .bench-times
// in the workspace, around a short stream.
const timedAgent = `#!/bin/sh
date +%s%N >> .bench-times
cat > /dev/null
echo '{"type":"system","subtype":"init","session_id":"bench"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"nothing to do","usage":{"input_tokens":1,"output_tokens":1}}'
date +%s%N >> .bench-times
`

// BenchmarkDockerRun measures what the container costs: for one and for five iterations of a
// trivial agent, the time from the start of Main to the agent's start, and from the agent's
// exit to Main's return (outputs written, container removed). scripts/bench-docker.sh prints it.
func BenchmarkDockerRun(b *testing.B) {
	actkit.RequireDocker(b)
	actkit.RequireImage(b, actkit.BaseImage)
	if os.Geteuid() != 0 {
		b.Skip("needs root to give the checkout to another user")
	}
	e := env{"PATH": os.Getenv("PATH"), "HOME": b.TempDir(), "LANG": "C"}
	build := b.TempDir()
	if err := os.WriteFile(filepath.Join(build, "claude"), []byte(timedAgent), 0o755); err != nil {
		b.Fatal(err)
	}
	dockerfile := "FROM " + actkit.BaseImage + "\nCOPY claude /usr/local/bin/claude\n"
	if err := os.WriteFile(filepath.Join(build, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, iterations := range []int{1, 5} {
		b.Run(fmt.Sprintf("iterations=%d", iterations), func(b *testing.B) {
			var toAgent, afterAgent, total time.Duration
			for b.Loop() {
				dir := benchRepo(b, e)
				if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
					if err != nil {
						return err
					}
					return os.Lchown(p, workspaceUID, workspaceUID)
				}); err != nil {
					b.Fatal(err)
				}
				var out testkit.SyncBuffer
				start := time.Now()
				code := Main(b.Context(), System{
					Args: []string{"run", "--prompt", "do nothing", "--max-iterations", strconv.Itoa(iterations),
						"--log-file", "-", "--image", "sandcastle-bench:trivial", "--dockerfile", filepath.Join(build, "Dockerfile")},
					Getenv: e.get,
					Getwd:  func() (string, error) { return dir, nil },
					Stdout: &out,
					Stderr: &out,
				})
				end := time.Now()
				if code != 0 {
					b.Fatalf("exit %d:\n%s", code, out.String())
				}
				times := strings.Fields(readFileB(b, filepath.Join(dir, ".bench-times")))
				if len(times) != 2*iterations {
					b.Fatalf(".bench-times has %d stamps, want %d", len(times), 2*iterations)
				}
				toAgent += stamp(b, times[0]).Sub(start)
				afterAgent += end.Sub(stamp(b, times[len(times)-1]))
				total += end.Sub(start)
			}
			n := time.Duration(b.N)
			b.ReportMetric(ms(toAgent/n), "ms/start-to-agent")
			b.ReportMetric(ms(afterAgent/n), "ms/agent-exit-to-outputs")
			b.ReportMetric(ms(total/n/time.Duration(iterations)), "ms/iteration")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func stamp(b *testing.B, ns string) time.Time {
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		b.Fatalf("bad time stamp %q", ns)
	}
	return time.Unix(0, n)
}

func readFileB(b *testing.B, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}
