package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gone reports whether pid names no process at all: not running, and not
// a zombie either (someone reaped it).
func gone(pid int) bool {
	_, err := os.Stat(procPath(pid, "stat"))
	return errors.Is(err, os.ErrNotExist)
}

// waitState polls the kernel's process table (there is no way to wait for
// a state change of a process that is not our child) until pid is in the
// state, for at most d.
func waitState(t *testing.T, pid int, state byte, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st, err := readStat(pid)
		if err == nil && st.state == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not reach state %c within %v (%+v, %v)", pid, state, d, st, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSandboxEndsADaemonItsTargetLeftBehind: a daemon (a child in a
// session of its own, out of reach of the group kill) outlives its
// target process; stopping the process ends it, and mcpcheck, its
// subreaper, reaps it: nothing of it is left, not even a zombie.
func TestSandboxEndsADaemonItsTargetLeftBehind(t *testing.T) {
	checkGoroutines(t)
	s := newTestSandbox(t, SandboxOptions{})
	c := connect(t, sandboxed(t, s, "sbx-daemon"))
	var said map[string]int
	readJSONLine(t, c, &said)
	d := said["daemon"]
	st, err := readStat(d)
	if err != nil || st.dead() || st.sid != d {
		t.Fatalf("the daemon %d is not running in a session of its own: %+v %v", d, st, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(d) {
		st, _ := readStat(d)
		t.Fatalf("the daemon %d is still there after its target process was stopped (%+v)", d, st)
	}
	if log := strings.Join(c.Process.ShutdownLog(), "; "); !strings.Contains(log, "ended 1 process it spawned outside its process group") {
		t.Errorf("the shutdown log does not say the daemon was ended: %q", log)
	}
	fx, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Processes) != 1 {
		t.Fatalf("side effects list %d command lines, want the daemon: %+v", len(fx.Processes), fx.Processes)
	}
	p := fx.Processes[0]
	if p.Count != 1 || p.LeftSession != 1 || p.LeftGroup != 1 || p.OutlivedTarget != 1 || p.EndedByUs != 1 || p.OutlivedParent != 1 {
		t.Errorf("the daemon's record = %+v; want it to have left group and session, outlived its parent and target, and been ended", p)
	}
	if fx.TargetProcesses != 1 || !fx.Observed {
		t.Errorf("side effects: %d target processes, observed %v; want 1, true", fx.TargetProcesses, fx.Observed)
	}
}

// TestSandboxAdoptsOrphans: once the sandbox started, mcpcheck is a child
// subreaper: a process whose parent ended is reparented to mcpcheck, not
// to init, so that mcpcheck can end and reap it.
func TestSandboxAdoptsOrphans(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	c := connect(t, sandboxed(t, s, "sbx-double-fork"))
	var said map[string]int
	readJSONLine(t, c, &said)
	if said["ppid"] != os.Getpid() {
		t.Errorf("the orphan %d was adopted by %d, want mcpcheck (%d)", said["orphan"], said["ppid"], os.Getpid())
	}
	c.Close()
	if !gone(said["orphan"]) {
		t.Errorf("the orphan %d is still there after its target process was stopped", said["orphan"])
	}
}

// TestSandboxCloseEndsWhatOutlivedTheRun: what a process left running
// when nothing stopped it (it exited by itself) is ended and reaped when
// the sandbox closes.
func TestSandboxCloseEndsWhatOutlivedTheRun(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = []string{helperEnv + "=sbx-daemon-exit"}
	sp, err := s.Apply(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sp.Started(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	sp.Exited(false, false, "exited with status 0")
	var said map[string]int
	if err := json.Unmarshal(out.Bytes(), &said); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	d := said["daemon"]
	if st, err := readStat(d); err != nil || st.dead() || st.ppid != os.Getpid() {
		t.Fatalf("the daemon %d should run, adopted by mcpcheck: %+v %v", d, st, err)
	}
	fx, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !gone(d) {
		t.Fatalf("the daemon %d is still there after the sandbox closed", d)
	}
	if len(fx.Processes) != 1 || fx.Processes[0].OutlivedRun != 1 || fx.Processes[0].EndedByUs != 1 {
		t.Errorf("side effects = %+v; want the daemon, outlived the run, ended by mcpcheck", fx.Processes)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sandbox %s was not removed: %v", s.Dir(), err)
	}
}

// TestSandboxReapsOnlyWhatItAdopted: mcpcheck's other children keep their
// exit statuses (wait4 is never called on a pid the sandbox did not
// adopt): an unrelated child, and a target process whose exec.Cmd has not
// waited for it yet, both ended and unreaped while the sandbox walks and
// reaps.
func TestSandboxReapsOnlyWhatItAdopted(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	other := exec.Command("sh", "-c", "exit 7")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	root := exec.Command(self)
	root.Env = []string{helperEnv + "=sbx-die"}
	sp, err := s.Apply(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	sp.Started(root.Process.Pid)
	waitState(t, other.Process.Pid, 'Z', 30*time.Second)
	waitState(t, root.Process.Pid, 'Z', 30*time.Second)
	w := s.watch
	w.mu.Lock()
	w.sample()
	w.sample()
	nodes := w.walk(walkOpts{self: true, roots: true, all: true})
	w.reap(nodes)
	w.mu.Unlock()
	sp.EndStrays(10 * time.Millisecond)
	var ee *exec.ExitError
	if err := other.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("the unrelated child's exit status was lost: %v", err)
	}
	if err := root.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("the target process's exit status was lost: %v", err)
	}
	sp.Exited(true, true, "exited with status 3")
	if _, err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxSeesSocketsAndFilesWrittenOutside: a listening socket and a
// file outside the sandbox held open for writing are side effects.
func TestSandboxSeesSocketsAndFilesWrittenOutside(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	outside := filepath.Join(t.TempDir(), "outside.log")
	tg := sandboxed(t, s, "sbx-net")
	tg.Env = append(tg.Env, "SBX_OUT="+outside)
	c := connect(t, tg)
	var said map[string]string
	readJSONLine(t, c, &said)
	w := s.watch
	w.mu.Lock()
	w.scanFDs(w.walk(walkOpts{roots: true, all: true}), true)
	w.mu.Unlock()
	c.Close()
	fx, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range fx.Network {
		if u.Proto == "tcp" && u.Listening && u.Local == said["listen"] && u.Loopback && u.Count == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("side effects network = %+v, want tcp listening on %s (loopback)", fx.Network, said["listen"])
	}
	if len(fx.FilesWritten) != 1 || fx.FilesWritten[0].Path != outside {
		t.Errorf("files written outside = %+v, want %s", fx.FilesWritten, outside)
	}
}

func TestParseNetLine(t *testing.T) {
	for _, tc := range []struct {
		proto, line string
		want        sockEntry
		ino         uint64
	}{
		{"tcp", "   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 24538 1 0000000000000000 100 0 0 10 0",
			sockEntry{proto: "tcp", local: "127.0.0.1:3306", listening: true, loopback: true, settled: true}, 24538},
		{"tcp", "   1: 0A00020F:A0B2 22D8B85D:01BB 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 20 4 30 10 -1",
			sockEntry{proto: "tcp", local: "15.2.0.10:41138", remote: "93.184.216.34:443", settled: true}, 777},
		{"udp6", "  5: 00000000000000000000000000000000:D431 0000000000000000FFFF00000100007F:0035 01 00000000:00000000 00:00000000 00000000  1000        0 888 2 0000000000000000 0",
			sockEntry{proto: "udp6", local: "[::]:54321", remote: "[::ffff:127.0.0.1]:53", loopback: true, dns: true, settled: true}, 888},
		{"tcp", "   2: 0100007F:A0B2 00000000:0000 07 00000000:00000000 00:00000000 00000000  1000        0 999 1",
			sockEntry{proto: "tcp", local: "127.0.0.1:41138"}, 999},
		{"unix", "0000000000000000: 00000002 00000000 00010000 0001 01 4242 /run/app.sock",
			sockEntry{proto: "unix", local: "/run/app.sock", listening: true, loopback: true, settled: true}, 4242},
		{"unix", "0000000000000000: 00000003 00000000 00000000 0001 03 4343",
			sockEntry{proto: "unix", loopback: true, settled: true}, 4343},
	} {
		ino, e, ok := parseNetLine(tc.proto, tc.line)
		if !ok || ino != tc.ino || e != tc.want {
			t.Errorf("%s %q:\n got %d %+v %v\nwant %d %+v", tc.proto, tc.line, ino, e, ok, tc.ino, tc.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	st, err := parseStat([]byte("4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10"))
	if err != nil || st != (procStat{state: 'S', ppid: 1, pgid: 4242, sid: 4242, start: 987654}) {
		t.Errorf("parseStat = %+v, %v", st, err)
	}
	if _, err := parseStat([]byte("garbage")); err == nil {
		t.Error("parseStat accepted garbage")
	}
}

// BenchmarkSandboxSample measures one sample of the side-effect sampler
// with eight target processes running (the main job runs about as many at
// a time): its cost is paid every 100 ms while a run lasts.
func BenchmarkSandboxSample(b *testing.B) {
	s, err := NewSandbox(SandboxOptions{Parent: b.TempDir(), Interval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(context.Background())
	for i := 0; i < 8; i++ {
		tg := helperTarget(&testing.T{}, "echo")
		tg.Sandbox = s
		c, err := Connect(context.Background(), tg)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
	}
	w := s.watch
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.mu.Lock()
		w.sample()
		w.mu.Unlock()
	}
}

// TestAbortSandboxesKillsEverythingAtOnce: on a second interrupt mcpcheck
// exits at once; AbortSandboxes first kills the target processes and what
// they spawned, and removes the sandbox.
func TestAbortSandboxesKillsEverythingAtOnce(t *testing.T) {
	s := newTestSandbox(t, SandboxOptions{})
	c := connect(t, sandboxed(t, s, "sbx-daemon"))
	var said map[string]int
	readJSONLine(t, c, &said)
	AbortSandboxes()
	for _, pid := range []int{said["daemon"], c.Process.Pid()} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, err := readStat(pid)
			if err != nil || st.dead() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs after AbortSandboxes: %+v", pid, st)
			}
			time.Sleep(5 * time.Millisecond) // polling the kernel's process table, bounded above
		}
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sandbox %s is still there after AbortSandboxes: %v", s.Dir(), err)
	}
	c.Close()
	if _, err := s.Close(context.Background()); err != nil {
		t.Errorf("Close after AbortSandboxes: %v", err)
	}
}
