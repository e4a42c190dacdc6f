//go:build unix

package browsertest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the browser in its own process group and kills
// the whole group (renderer, GPU and zygote processes too) on timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
