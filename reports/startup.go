package reports

import (
	"fmt"
	"time"
)

// Startup describes how the target started: the first wait on each fresh
// connection (a process start over stdio) is a start-up wait, with an
// allowance of its own, and its answer time is the target's start-up time.
type Startup struct {
	// Allowance is how long a fresh connection could take to say
	// anything (mcpcheck server --startup-timeout).
	Allowance time.Duration `json:"allowanceNs"`
	// Measured counts the start-ups measured; Fastest, Median and
	// Slowest are their times.
	Measured int           `json:"measured"`
	Fastest  time.Duration `json:"fastestNs,omitempty"`
	Median   time.Duration `json:"medianNs,omitempty"`
	Slowest  time.Duration `json:"slowestNs,omitempty"`
}

// String says it in one line: "12 measured, 0.41s median, 2.3s slowest
// (allowance 1m0s)".
func (s *Startup) String() string {
	if s == nil {
		return ""
	}
	if s.Measured == 0 {
		return fmt.Sprintf("none measured (allowance %s)", humanDuration(s.Allowance))
	}
	r := humanDuration
	return fmt.Sprintf("first answer after %s to %s, median %s, on %d fresh connections (allowance %s)", r(s.Fastest), r(s.Slowest), r(s.Median), s.Measured, r(s.Allowance))
}
