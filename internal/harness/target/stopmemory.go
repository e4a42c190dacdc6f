package target

import (
	"strings"
	"sync"
	"time"
)

// stopMemory remembers, per command line, how the last process of that
// command ended when it was stopped: on stdin's end, on SIGTERM or only
// on SIGKILL. Stop uses it so that a target that ignores stdin's end and
// SIGTERM costs the full grace periods once, not at every one of the
// hundreds of processes a run starts (the exit-on-stdin-close check
// judges that behaviour with its own wait, not through Stop).
var stopMemory = struct {
	sync.Mutex
	last map[string]stopStep
}{last: map[string]stopStep{}}

// stopStep is the step of Stop a process ended at.
type stopStep int

const (
	stoppedByEOF stopStep = iota
	stoppedByTerm
	stoppedByKill
)

// maxStopMemory bounds the commands remembered.
const maxStopMemory = 256

// shortGrace is the wait before the next step of Stop for a command whose
// last process needed that step.
func shortGrace(grace time.Duration) time.Duration {
	if d := grace / 10; d > 0 {
		return d
	}
	return grace
}

// stopKey names a target's command line: directory, program, arguments
// and added environment.
func stopKey(t Target) string {
	return strings.Join(append(append([]string{t.Dir, t.Command}, t.Args...), t.Env...), "\x00")
}

func lastStop(key string) stopStep {
	stopMemory.Lock()
	defer stopMemory.Unlock()
	return stopMemory.last[key]
}

func rememberStop(key string, s stopStep) {
	stopMemory.Lock()
	defer stopMemory.Unlock()
	if len(stopMemory.last) >= maxStopMemory {
		clear(stopMemory.last)
	}
	stopMemory.last[key] = s
}
