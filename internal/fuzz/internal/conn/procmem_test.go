package conn

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestGroupStatTellsComputingFromBlocked: GroupStat finds a process group
// that spins (or waits for a CPU) running in most samples, and one blocked
// in a sleep running in none, which is what lets a client campaign tell a
// client starved by a busy machine from a hung one (computing).
func TestGroupStatTellsComputingFromBlocked(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: groupStat reports nothing running here")
	}
	start := func(script string) *exec.Cmd {
		cmd := exec.Command("sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
		return cmd
	}
	spin := start("while :; do :; done")
	block := start("exec sleep 60")
	// The sleeper is blocked once it has exec'd sleep and sleeps: wait
	// (bounded) until a sample finds it so, then count.
	settle := time.Now().Add(10 * time.Second)
	for {
		if _, r := GroupStat(block.Process.Pid); !r {
			break
		}
		if time.Now().After(settle) {
			t.Fatal("a process group blocked in sleep still ran after 10 s")
		}
		time.Sleep(10 * time.Millisecond) // polling /proc, not synchronising
	}
	samples, busySpin, busyBlock := 12, 0, 0
	for i := 0; i < samples; i++ {
		if rss, r := GroupStat(spin.Process.Pid); r {
			busySpin++
		} else if rss == 0 {
			t.Fatalf("sample %d: the spinning group has no resident memory: not found", i)
		}
		if _, r := GroupStat(block.Process.Pid); r {
			busyBlock++
		}
		time.Sleep(20 * time.Millisecond) // sampling, as the campaign's watch does
	}
	if !Computing(samples, busySpin) {
		t.Errorf("the spinning group ran in %d of %d samples: want it judged computing", busySpin, samples)
	}
	if Computing(samples, busyBlock) {
		t.Errorf("the blocked group ran in %d of %d samples: want it judged blocked", busyBlock, samples)
	}
	if !Computing(2, 0) {
		t.Error("two samples of a blocked group decide nothing (mcpcheck could not look): want it left to run")
	}
}
