//go:build unix

package conn

import (
	"os"
	"syscall"
)

// exitStatusOf describes how a process ended (st nil: unknown); killed
// says mcpcheck ended it.
func exitStatusOf(st *os.ProcessState, killed bool) *ExitStatus {
	es := &ExitStatus{Killed: killed}
	if st == nil {
		return es
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		es.Code, es.Signal = -1, ws.Signal().String()
		return es
	}
	es.Code = st.ExitCode()
	return es
}
