package target

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/record"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

func TestStdioEchoAndGracefulExit(t *testing.T) {
	checkGoroutines(t)
	tg := helperTarget(t, "echo")
	tg.Timeouts.Grace = 20 * time.Second // the exit path under test; generous for loaded machines
	c, err := Connect(ctxT(t, 30*time.Second), tg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, 30*time.Second)
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctx)
	if err != nil || f.Kind != wire.KindMessage {
		t.Fatalf("%v %s", err, f.Describe())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	log := strings.Join(c.Process.ShutdownLog(), "; ")
	if !strings.Contains(log, "closed stdin; the process exited with status 0") {
		t.Errorf("shutdown log = %q", log)
	}
	if !strings.Contains(string(c.Process.Stderr().Tail()), "echo: starting") {
		t.Errorf("stderr tail = %q", c.Process.Stderr().Tail())
	}
}

func TestStdioGarbageOnStdout(t *testing.T) {
	c, err := Connect(ctxT(t, 30*time.Second), helperTarget(t, "garbage"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := c.Recv(ctxT(t, 30*time.Second))
	if err != nil || f.Kind != wire.KindGarbage || string(f.Raw) != "Server listening on stdio" {
		t.Fatalf("%v %s", err, f.Describe())
	}
}

func TestStdioChildIgnoringSIGTERMIsKilled(t *testing.T) {
	checkGoroutines(t)
	c, err := Connect(ctxT(t, 30*time.Second), helperTarget(t, "ignore-term"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := c.Recv(ctxT(t, 30*time.Second)); err != nil || f.Msg.Method != "ready" {
		t.Fatalf("%v %s", err, f.Describe())
	}
	// Close's own grace then kill ends the child; the minute only bounds
	// the test.
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Close of a child ignoring SIGTERM had not returned after a minute")
	}
	log := strings.Join(c.Process.ShutdownLog(), "; ")
	if !strings.Contains(log, "ignored SIGTERM") {
		t.Errorf("shutdown log = %q", log)
	}
	if st := c.Process.ExitState(); st == nil || st.Exited() {
		t.Errorf("the process must have been killed by a signal: %v", c.Process.ExitDescription())
	}
}

// TestStopRemembersAStubbornCommand: once a command's process has ignored
// stdin's end and SIGTERM, the next process of the same command gets
// short waits at those steps (a run starts hundreds), still ending with
// SIGKILL to the group.
func TestStopRemembersAStubbornCommand(t *testing.T) {
	tg := helperTarget(t, "ignore-term")
	tg.Args = []string{"stubborn-" + t.Name()} // a command line of its own
	var logs []string
	for i := 0; i < 2; i++ {
		c, err := Connect(ctxT(t, 30*time.Second), tg)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := c.Recv(ctxT(t, 30*time.Second)); err != nil || f.Msg.Method != "ready" {
			t.Fatalf("%v %s", err, f.Describe())
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, strings.Join(c.Process.ShutdownLog(), "; "))
	}
	short := shortGrace(tg.Timeouts.Grace).String()
	if strings.Contains(logs[0], short) || !strings.Contains(logs[0], "ignored SIGTERM for 500ms") {
		t.Errorf("the first process did not get the full grace periods: %s", logs[0])
	}
	if !strings.Contains(logs[1], "still running after "+short) || !strings.Contains(logs[1], "ignored SIGTERM for "+short) {
		t.Errorf("the second process of a command known to ignore stdin's end and SIGTERM was waited for as long (want %s): %s", short, logs[1])
	}
}

func TestStdioGrandchildIsKilledWithTheGroup(t *testing.T) {
	checkGoroutines(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("process groups are POSIX")
	}
	c, err := Connect(ctxT(t, 30*time.Second), helperTarget(t, "grandchild"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Recv(ctxT(t, 30*time.Second))
	if err != nil || f.Msg.Method != "grandchild" {
		t.Fatalf("%v %s", err, f.Describe())
	}
	var p struct{ Pid int }
	json.Unmarshal(f.Msg.Params, &p)
	if p.Pid == 0 || !alive(p.Pid) {
		t.Fatalf("grandchild pid %d not alive", p.Pid)
	}
	done := make(chan error)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Close hung while the grandchild holds stdout open")
	}
	if !waitDead(p.Pid, 30*time.Second) {
		t.Errorf("grandchild %d survived the process group kill", p.Pid)
	}
}

func TestStderrFloodKeepsTheTail(t *testing.T) {
	tg := helperTarget(t, "stderr-flood")
	tg.StderrTail = 4096
	c, err := Connect(ctxT(t, 30*time.Second), tg)
	if err != nil {
		t.Fatal(err)
	}
	// The process says on stdout when its stderr flood is written; Close
	// then waits for the stderr reader to drain the pipe.
	if f, err := c.Recv(ctxT(t, 30*time.Second)); err != nil || f.Msg.Method != "flooded" {
		t.Fatalf("%v %s", err, f.Describe())
	}
	c.Close()
	tail := c.Process.Stderr().Tail()
	if len(tail) != 4096 || !strings.HasSuffix(string(tail), "LAST LINE\n") {
		t.Errorf("tail is %d bytes ending %q", len(tail), tail[max(0, len(tail)-20):])
	}
}

func TestRing(t *testing.T) {
	r := NewRing(8)
	r.Write([]byte("abc"))
	r.Write([]byte("defgh"))
	r.Write([]byte("ij"))
	if got := string(r.Tail()); got != "cdefghij" {
		t.Errorf("tail = %q", got)
	}
	r.Write([]byte("0123456789"))
	if got := string(r.Tail()); got != "23456789" || r.Total() != 20 {
		t.Errorf("tail = %q total %d", got, r.Total())
	}
}

func TestHugeLineIsAnEvent(t *testing.T) {
	tg := helperTarget(t, "huge")
	tg.Limits.MaxMessage = 1 << 20
	c, err := Connect(ctxT(t, 30*time.Second), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	f, err := c.Recv(ctx)
	if err != nil || f.Kind != wire.KindTooLong || f.Size < 3<<20 {
		t.Fatalf("%v %s", err, f.Describe())
	}
	f, err = c.Recv(ctx)
	if err != nil || f.Msg.Method != "after" {
		t.Fatalf("the reader must resume after a too-long line: %v %s", err, f.Describe())
	}
}

func TestCrashMidLine(t *testing.T) {
	rec := record.New(time.Now(), record.Options{})
	c, err := Connect(ctxT(t, 30*time.Second), helperTarget(t, "crash"))
	if err != nil {
		t.Fatal(err)
	}
	c.Observe(rec)
	defer c.Close()
	ctx := ctxT(t, 30*time.Second)
	f, err := c.Recv(ctx)
	if err != nil || !f.Unterminated || f.Kind != wire.KindGarbage {
		t.Fatalf("%v %s", err, f.Describe())
	}
	if f, err = c.Recv(ctx); err != nil || f.Kind != wire.KindEnd {
		t.Fatalf("%v %s", err, f.Describe())
	}
	<-c.Process.Exited()
	if got := c.Process.ExitDescription(); got != "exited with status 3" {
		t.Errorf("exit = %q", got)
	}
	c.Close()
	found := false
	for _, e := range rec.Events() {
		found = found || e.Note == "the target process exited with status 3"
	}
	if !found {
		t.Errorf("the transcript does not note the exit: %+v", rec.Events())
	}
}

// TestKillEndsTheGroupAtOnce: Kill ends a process that ignores the end of
// stdin and SIGTERM (its child holding stdout) without the graceful
// steps, says it was still running, and makes a later Stop a no-op.
func TestKillEndsTheGroupAtOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	p, err := StartProcess(Target{Transport: Stdio, Command: "sh", Args: []string{"-c", `trap "" TERM; sleep 300 & echo started; wait`}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := p.Stdout().Read(buf); err != nil || !strings.Contains(string(buf[:n]), "started") {
		t.Fatalf("the process did not start: %q, %v", buf[:n], err)
	}
	killed, err := p.Kill(0)
	if err != nil || !killed {
		t.Fatalf("Kill = %v, %v; want killed, no error", killed, err)
	}
	if st := p.ExitState(); st == nil || st.Success() {
		t.Errorf("after Kill the exit state is %v, want a killed process", st)
	}
	if log := p.ShutdownLog(); len(log) != 0 {
		t.Errorf("Kill went through the graceful steps: %v", log)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Errorf("Stop after Kill: %v", err)
	}
	if killed, _ := p.Kill(0); killed {
		t.Error("a second Kill reports a kill")
	}
}
