package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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
		var out syncBuffer
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
