//go:build !unix

package conn

import "os"

// exitStatusOf describes how a process ended (st nil: unknown); killed
// says mcpcheck ended it.
func exitStatusOf(st *os.ProcessState, killed bool) *ExitStatus {
	es := &ExitStatus{Killed: killed}
	if st != nil {
		es.Code = st.ExitCode()
	}
	return es
}
