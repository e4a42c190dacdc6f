//go:build !unix

package fuzz

import (
	"errors"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exitStatus(cmd *exec.Cmd, err error, killed bool) *ExitStatus {
	st := &ExitStatus{Killed: killed}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		st.Code = ee.ExitCode()
	}
	return st
}
