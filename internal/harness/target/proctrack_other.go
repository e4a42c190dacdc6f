//go:build !linux

package target

import (
	"context"
	"time"

	"github.com/mcpcheck/mcpcheck/reports"
)

// watcher watches nothing where /proc is not Linux's: the sandbox still
// gives its processes their own directories, and its files are still
// walked at the end.
type watcher struct{}

func newWatcher(*Sandbox) (*watcher, string) {
	return nil, "not Linux: the processes, sockets and open files of the target are read from Linux's /proc"
}

func (*watcher) pending(int)                                                {}
func (*watcher) started(int, int)                                           {}
func (*watcher) exited(int, int)                                            {}
func (*watcher) endStrays(int, time.Duration) int                           { return 0 }
func (*watcher) close(context.Context, time.Duration, *reports.SideEffects) {}
func (*watcher) abort()                                                     {}
