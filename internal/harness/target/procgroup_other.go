//go:build !unix

package target

import (
	"os"
	"os/exec"
)

var (
	sigTerm = os.Kill
	sigKill = os.Kill
)

func setGroup(*exec.Cmd) {}

// signalGroup kills the process itself: without process groups,
// grandchildren are not reached.
func signalGroup(cmd *exec.Cmd, _ os.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
