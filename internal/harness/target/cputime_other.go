//go:build !linux

package target

import "time"

// CPUTime is not known outside Linux.
func (p *Process) CPUTime() (time.Duration, bool) { return 0, false }

// Started is when the process was started.
func (p *Process) Started() time.Time { return p.started }
