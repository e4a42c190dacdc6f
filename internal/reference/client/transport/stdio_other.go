//go:build !unix

package transport

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the child; platforms without process groups and
// SIGTERM get the hard stop at both steps.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
