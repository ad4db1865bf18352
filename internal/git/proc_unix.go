//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// killGroup makes git the leader of its own process group and, when the context ends, kills the
// whole group, so helpers git started (ssh, credential helpers, hooks) do not outlive it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func signalNumber(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
