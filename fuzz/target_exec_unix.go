//go:build unix

package fuzz

import (
	"errors"
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process and everything in its process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

func exitStatus(cmd *exec.Cmd, err error, killed bool) *ExitStatus {
	st := &ExitStatus{Killed: killed}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st.Code, st.Signal = -1, ws.Signal().String()
			return st
		}
		st.Code = ee.ExitCode()
		return st
	}
	if cmd.ProcessState != nil {
		st.Code = cmd.ProcessState.ExitCode()
	}
	return st
}
