package launch

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestOwnerGone(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	host, _ := os.Hostname()
	if me := processOwner(host); ownerGone(host, me) {
		t.Errorf("ownerGone(%q) = true for this very process", me)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := host + "/" + strconv.Itoa(cmd.Process.Pid) + "/1"
	if !ownerGone(host, dead) {
		t.Errorf("ownerGone(%q) = false for a process that exited", dead)
	}
	reused := strings.Replace(processOwner(host), "/"+startTime(os.Getpid()), "/1", 1)
	if !ownerGone(host, reused) {
		t.Errorf("ownerGone(%q) = false although the pid now belongs to a later process", reused)
	}
	for _, other := range []string{"another-host/1/1", "", "garbage"} {
		if ownerGone(host, other) {
			t.Errorf("ownerGone(%q) = true; owners that cannot be checked must be presumed alive", other)
		}
	}
	// Containers on the host's network have the host's name and pids of their own: one names
	// itself by its ID, and its pid means nothing to a process on the host, nor the host's to it.
	const container = "0119303d952542a659f48e9b4cbf7c9cf3c3c969fa9ba0ce36ec5a5f14f9d8f6"
	if ownerGone(container, dead) || ownerGone(host, container+"/1/1") {
		t.Error("an owner in another container, or on the host seen from a container, was taken for gone")
	}
}
