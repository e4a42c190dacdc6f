//go:build linux

package transport

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStdioKillsProcessGroup: Close takes down what the server spawned.
func TestStdioKillsProcessGroup(t *testing.T) {
	s := startFake(t, "spawn")
	line, err := s.Recv(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(line))
	if err != nil {
		t.Fatalf("the fake could not spawn its child: %s", line)
	}
	if alive(pid) == false {
		t.Fatal("the grandchild is not running before Close")
	}
	s.Close()
	// SIGKILL takes effect when the kernel next schedules the process.
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("grandchild %d survived Close", pid)
	}
}

// alive reports whether pid runs (a zombie counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
