package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processOwner names this process for the containers it starts: where it runs (its container's
// ID, else the host's name: containers on the host's network share the host's, and each has pids
// of its own), its pid and the pid's start time (so a reused pid is not mistaken for us).
func processOwner(where string) string {
	pid := os.Getpid()
	return fmt.Sprintf("%s/%d/%s", where, pid, startTime(pid))
}

// ownerGone reports whether the process named by owner (see processOwner) has ended. Only
// processes of where we run can be checked; any other owner is presumed alive, so that a sweep
// never removes a container another machine or container is still using.
func ownerGone(where, owner string) bool {
	host, rest, ok := strings.Cut(owner, "/")
	if !ok || host != where {
		return false
	}
	pidText, started, ok := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil {
		return false
	}
	now := startTime(pid)
	return now == "" || now != started
}

// startTime is field 22 of /proc/PID/stat (clock ticks since boot), "" when the process does
// not exist.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may contain spaces; fields after it follow the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
