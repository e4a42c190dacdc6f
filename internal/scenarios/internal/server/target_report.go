package server

import (
	"errors"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/reports"
)

// targetReport is the report's description of tg. For a stdio target
// whose handshake failed on a process that ended, or that never answered
// and wrote to stderr (harness.ProcessEnd), it also says how the process
// ended and what its stderr ended with: the first such version's.
func (r *runner) targetReport(tg target.Target) reports.Target {
	rt := tg.Report()
	if rt.Kind != reports.TargetStdio {
		return rt
	}
	for _, vr := range append(append([]*versionRun(nil), r.versions...), r.side...) {
		var pe *harness.ProcessEnd
		if errors.As(vr.openErr, &pe) {
			rt.ExitStatus, rt.StderrTail = pe.Exit, pe.Stderr
			break
		}
	}
	return rt
}
