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
	if me := processOwner(); ownerGone(me) {
		t.Errorf("ownerGone(%q) = true for this very process", me)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	dead := host + "/" + strconv.Itoa(cmd.Process.Pid) + "/1"
	if !ownerGone(dead) {
		t.Errorf("ownerGone(%q) = false for a process that exited", dead)
	}
	reused := strings.Replace(processOwner(), "/"+startTime(os.Getpid()), "/1", 1)
	if !ownerGone(reused) {
		t.Errorf("ownerGone(%q) = false although the pid now belongs to a later process", reused)
	}
	for _, other := range []string{"another-host/1/1", "", "garbage"} {
		if ownerGone(other) {
			t.Errorf("ownerGone(%q) = true; owners that cannot be checked must be presumed alive", other)
		}
	}
}
