//go:build !unix

package browsertest

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the
// browser itself is killed on timeout.
func setProcessGroup(cmd *exec.Cmd) {}
