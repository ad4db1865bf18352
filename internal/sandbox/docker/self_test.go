package docker

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
)

// capture is what testdata/self/<name> holds, captured from a Docker action that nektos/act
// v0.2.89 ran in a job (on host network, the repository at /workspace/widgets)
// with --container-options "--cgroupns <host|private>": the action's /proc/self/cgroup,
// /proc/self/mountinfo and hostname, and `docker inspect` of the action's container and of its
// job's, taken while it ran (trimmed to the fields Self reads; the capturing machine's names,
// its disk, mount options, hostname and the repository's path, replaced by neutral ones).
type capture struct {
	clues       Clues
	action, job container.InspectResponse
}

func readCapture(t *testing.T, name string) capture {
	t.Helper()
	dir := filepath.Join("testdata", "self", name)
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	inspect := func(f string) container.InspectResponse {
		var got []container.InspectResponse
		if err := json.Unmarshal([]byte(read(f)), &got); err != nil || len(got) != 1 {
			t.Fatalf("%s: %v (%d containers)", f, err, len(got))
		}
		return got[0]
	}
	return capture{
		clues:  Clues{Cgroup: read("cgroup"), MountInfo: read("mountinfo"), Hostname: strings.TrimSpace(read("hostname"))},
		action: inspect("action.json"),
		job:    inspect("job.json"),
	}
}

// Under act, each clue but the cgroup names the job's container, whose network the action
// joined; the root file system tells the action's own apart.
func TestSelfCluesUnderAct(t *testing.T) {
	for _, tt := range []struct {
		capture string
		cgroup  bool // the cgroup names the action's container
	}{
		{"act-host-cgroupns", true},
		{"act-private-cgroupns", false},
	} {
		t.Run(tt.capture, func(t *testing.T) {
			c := readCapture(t, tt.capture)
			if string(c.action.HostConfig.NetworkMode) != "container:"+c.job.ID {
				t.Fatalf("the capture is not of an action in its job's network: %s", c.action.HostConfig.NetworkMode)
			}
			var want []string
			if tt.cgroup {
				want = []string{c.action.ID}
			}
			if got := cgroupIDs(c.clues.Cgroup); !slices.Equal(got, want) {
				t.Errorf("cgroupIDs = %v, want %v", got, want)
			}
			mi := parseMountInfo(c.clues.MountInfo)
			if !slices.Equal(mi.shared, []string{c.job.ID}) {
				t.Errorf("the network files come from %v, want the job's container %s", mi.shared, c.job.ID)
			}
			if c.clues.Hostname == c.action.ID[:12] || isHex(c.clues.Hostname) {
				t.Errorf("hostname %q: act's action has the host's hostname, not an ID", c.clues.Hostname)
			}
			if mi.upper == "" {
				t.Fatal("no upper directory of the root overlay")
			}
			if got := mi.ours(c.action); got != match {
				t.Errorf("the action's own container: verdict %d, want match", got)
			}
			if got := mi.ours(c.job); got != mismatch {
				t.Errorf("the job's container: verdict %d, want mismatch", got)
			}
			// The workspace is on a volume, which the daemon can bind by its source.
			self := selfOf(c.action)
			if got, ok := self.HostPath("/workspace/widgets/.sandcastle"); !ok || !strings.HasPrefix(got, "/var/lib/docker/volumes/") {
				t.Errorf("HostPath of the workspace = %q, %v; want a path in the volume", got, ok)
			}
		})
	}
}

// Cgroup paths of the other layouts, in the formats the kernel, systemd and the runners write
// (these lines are written for the test, not captured).
func TestCgroupIDs(t *testing.T) {
	const id = "2481eb0e9423f44eb1327ed306f266ed9b9bacf5afd557316adb47f1a008ca9b"
	const other = "ff2f6e0fe54c5552001ea36e692e51331cda2db37ec2543707460e322cf69b42"
	for _, tt := range []struct {
		name, cgroup string
		want         []string
	}{
		{"v2 systemd driver", "0::/system.slice/docker-" + id + ".scope\n", []string{id}},
		{"v2 cgroupfs driver", "0::/docker/" + id + "\n", []string{id}},
		{"GitHub's runner", "0::/actions_job/" + id + "\n", []string{id}},
		{"podman", "0::/machine.slice/libpod-" + id + ".scope/container\n", []string{id}},
		{"kubernetes", "0::/kubepods.slice/kubepods-besteffort.slice/cri-containerd-" + id + ".scope\n", []string{id}},
		{"nested: the innermost", "0::/docker/" + other + "/docker/" + id + "\n", []string{id}},
		{"private namespace", "0::/\n", nil},
		{"a host's session", "0::/user.slice/user-1000.slice/session-2.scope\n", nil},
		{"too short", "0::/docker/" + id[:63] + "\n", nil},
		{"too long", "0::/docker/" + id + "0\n", nil},
		{"garbage", "not a cgroup line\n\n", nil},
	} {
		if got := cgroupIDs(tt.cgroup); !slices.Equal(got, tt.want) {
			t.Errorf("%s: cgroupIDs(%q) = %v, want %v", tt.name, tt.cgroup, got, tt.want)
		}
	}
}

func TestParseMountInfoEscapes(t *testing.T) {
	const id = "2481eb0e9423f44eb1327ed306f266ed9b9bacf5afd557316adb47f1a008ca9b"
	mi := parseMountInfo("118 67 0:49 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/var/lib/docker\\040x/diff,workdir=/w\n" +
		"137 118 254:0 /data\\040root/containers/" + id + "/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n" +
		"138 118 254:0 /data\\040root/containers/" + id + "/hosts /etc/hosts rw - ext4 /dev/sda1 rw\n" +
		"139 118 254:0 /containers/" + id + "/hostname-not /etc/x rw - ext4 /dev/sda1 rw\n" +
		"short line\n")
	if mi.upper != "/var/lib/docker x/diff" {
		t.Errorf("upper = %q", mi.upper)
	}
	if !slices.Equal(mi.shared, []string{id}) {
		t.Errorf("shared = %v, want [%s]", mi.shared, id)
	}
	if got := unescapeMount(`a\134b\011c\1`); got != "a\\b\tc\\1" {
		t.Errorf("unescapeMount = %q", got)
	}
}

// TestParseMountInfoOnTheDaemonsHost: the host the daemon runs on, whose /var/lib/docker is a
// shared mount, sees every running container's network files under that container's root; they
// name no container of ours (this process is in none).
func TestParseMountInfoOnTheDaemonsHost(t *testing.T) {
	const id = "6ad0d0d1672b44eb1327ed306f266ed9b9bacf5afd557316adb47f1a008ca9b"
	mi := parseMountInfo("27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n" +
		"42 27 254:0 /var/lib/docker /var/lib/docker rw,relatime shared:1 - ext4 /dev/sda1 rw\n" +
		"301 42 0:70 / /var/lib/docker/overlay2/abc/merged rw shared:90 - overlay overlay rw,upperdir=/var/lib/docker/overlay2/abc/diff\n" +
		"302 301 254:0 /var/lib/docker/containers/" + id + "/hostname /var/lib/docker/overlay2/abc/merged/etc/hostname rw shared:1 - ext4 /dev/sda1 rw\n" +
		"303 301 254:0 /var/lib/docker/containers/" + id + "/resolv.conf /var/lib/docker/overlay2/abc/merged/etc/resolv.conf rw shared:1 - ext4 /dev/sda1 rw\n")
	if len(mi.shared) != 0 || mi.upper != "" {
		t.Errorf("shared = %v, upper = %q; want nothing: the host is in no container", mi.shared, mi.upper)
	}
}

// TestSelfInContainers runs Self inside real containers, started the ways runners start an
// action's: GitHub's (its own network and hostname), on the host's network under another
// hostname, and act's (in the network of a job container on the host's network), each with
// the cgroup namespace private (as cgroup v2 hosts have it, so the cgroup names nothing) and
// shared. Each must find its own container, never the job's, and translate the workspace
// through its own mounts.
func TestSelfInContainers(t *testing.T) {
	requireDocker(t)
	probe := filepath.Join(t.TempDir(), "selfprobe")
	build := exec.Command("go", "build", "-o", probe, "./testdata/selfprobe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the probe: %v\n%s", err, out)
	}
	work := t.TempDir()
	job := dockerCLI(t, "run", "-d", "--rm", "--network", "host", testImage, "sleep", "600")
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", job).Run() })

	for _, tt := range []struct {
		name string
		args []string
	}{
		{"own network", []string{"--hostname", "runner-given"}},
		{"host network", []string{"--network", "host", "--hostname", "not-an-id"}},
		{"host network, host's hostname", []string{"--network", "host"}},
		{"in the job's network", []string{"--network", "container:" + job}},
	} {
		for _, cgroupns := range []string{"private", "host"} {
			t.Run(tt.name+", cgroupns "+cgroupns, func(t *testing.T) {
				args := append([]string{"run", "-d", "--cgroupns", cgroupns,
					"-v", "/var/run/docker.sock:/var/run/docker.sock",
					"-v", probe + ":/usr/local/bin/selfprobe:ro",
					"-v", work + ":/github/workspace"}, tt.args...)
				id := dockerCLI(t, append(args, testImage, "selfprobe")...)
				t.Cleanup(func() { exec.Command("docker", "rm", "-f", id).Run() })
				if code := dockerCLI(t, "wait", id); code != "0" {
					out, _ := exec.Command("docker", "logs", id).CombinedOutput()
					t.Fatalf("the probe exited with %s:\n%s", code, out)
				}
				var got struct {
					Found bool
					Self
				}
				if err := json.Unmarshal([]byte(dockerCLI(t, "logs", id)), &got); err != nil {
					t.Fatal(err)
				}
				if !got.Found || got.ID != id {
					t.Fatalf("Self = %v %.12s, want its own container %.12s (the job's is %.12s)", got.Found, got.ID, id, job)
				}
				if hp, ok := got.HostPath("/github/workspace/repo"); !ok || hp != filepath.Join(work, "repo") {
					t.Errorf("HostPath = %q, %v; want %q", hp, ok, filepath.Join(work, "repo"))
				}
			})
		}
	}
}

// dockerCLI runs the docker CLI and returns its trimmed standard output.
func dockerCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}
