//go:build !unix

package git

import "os/exec"

// killGroup relies on the default cancellation (kill git itself) where process groups do not
// exist.
func killGroup(*exec.Cmd) {}

func signalNumber(*exec.ExitError) int { return 0 }
