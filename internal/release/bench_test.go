package release

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandcastle-action/sandcastle/internal/testkit/actkit"
	"github.com/sandcastle-action/sandcastle/internal/testkit/models"
)

// BenchmarkActionStartup measures the action image as a runner starts it, on a warm daemon (the
// image present, one run before the timed ones): from `docker start` of its container to the
// binary's first line, to the loop's first iteration (inputs and repository checked), and to the
// agent's first line in the job log, the real claude of the image answering the scripted model
// with sandbox: none. It also reports the image's size. scripts/bench-startup.sh prints it.
func BenchmarkActionStartup(b *testing.B) {
	id := actkit.ReleaseImages(b, "../..", "action")["action"]
	pull, disk := actkit.PullSize(b, id), actkit.InspectImage(b, id).Size
	var first, iteration, agent time.Duration
	startup(b, id) // warms the daemon and the page cache
	b.ResetTimer()
	for b.Loop() {
		f, i, a := startup(b, id)
		first, iteration, agent = first+f, iteration+i, agent+a
	}
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64((d / n).Microseconds()) / 1000 }
	b.ReportMetric(ms(first), "ms/first-line")
	b.ReportMetric(ms(iteration), "ms/first-iteration")
	b.ReportMetric(ms(agent), "ms/agent-first-line")
	b.ReportMetric(float64(pull)/1e6, "MB-pull")
	b.ReportMetric(float64(disk)/1e6, "MB-disk")
}

// startup runs the action once in a fresh container on a fresh repository and returns the time
// from starting the container to its first line, to "Iteration 1/1" and to the agent's first
// line (the first after the runner's stop-commands marker, which opens the agent's text).
func startup(b *testing.B, image string) (first, iteration, agent time.Duration) {
	model := models.NewAnthropic(b, models.Text("Ready. <promise>COMPLETE</promise>"))
	dir, files, home := b.TempDir(), b.TempDir(), b.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "initial"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, f := range []string{"output", "summary"} {
		if err := os.WriteFile(filepath.Join(files, f), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// As the runner starts a container Action: the workspace, its file commands and HOME mounted.
	args := []string{"create", "--network", "host",
		"-v", dir + ":/github/workspace", "-v", files + ":/github/file_commands", "-v", home + ":/github/home",
		"-w", "/github/workspace",
		"-e", "GITHUB_ACTIONS=true", "-e", "GITHUB_WORKSPACE=/github/workspace",
		"-e", "GITHUB_OUTPUT=/github/file_commands/output", "-e", "GITHUB_STEP_SUMMARY=/github/file_commands/summary",
		"-e", "INPUT_SANDBOX=none", "-e", "INPUT_PROMPT=Say you are ready.",
		"-e", "INPUT_ENV=CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC\nCLAUDE_CODE_MAX_RETRIES\nIS_SANDBOX",
	}
	for k, v := range model.Env("/github/home") {
		args = append(args, "-e", k+"="+v)
	}
	out, err := exec.Command("docker", append(args, image)...).Output()
	if err != nil {
		b.Fatalf("docker create: %v", err)
	}
	container := strings.TrimSpace(string(out))
	defer exec.Command("docker", "rm", "-f", container).Run()

	cmd := exec.Command("docker", "start", "--attach", container)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var log []string
	inAgent := false
	for lines := bufio.NewScanner(stdout); lines.Scan(); {
		line := lines.Text()
		switch {
		case first == 0:
			first = time.Since(start)
		case iteration == 0 && strings.HasSuffix(line, "Iteration 1/1"):
			iteration = time.Since(start)
		case strings.HasPrefix(line, "::stop-commands::"):
			inAgent = true
		case inAgent && agent == 0:
			agent = time.Since(start)
		}
		log = append(log, line)
	}
	if err := cmd.Wait(); err != nil || agent == 0 || iteration == 0 {
		b.Fatalf("the action (%v) showed no iteration or no agent line:\n%s", err, strings.Join(log, "\n"))
	}
	return first, iteration, agent
}
