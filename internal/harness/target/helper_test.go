package target

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const helperEnv = "MCPCHECK_TARGET_HELPER"

// TestMain turns the test binary into a misbehaving stdio target when
// helperEnv is set (the TestHelperProcess pattern).
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		helper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(mode string) {
	out := bufio.NewWriter(os.Stdout)
	switch mode {
	case "echo": // a well-behaved line echo with stderr chatter; exits on stdin EOF
		fmt.Fprintln(os.Stderr, "echo: starting")
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Fprintf(out, "%s\n", sc.Text())
			out.Flush()
		}
	case "garbage": // prints a banner on stdout, then exits on stdin EOF
		fmt.Fprintln(out, "Server listening on stdio")
		out.Flush()
		bufio.NewScanner(os.Stdin).Scan()
	case "ignore-term": // ignores stdin EOF and SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"ready"}`)
		out.Flush()
		select {}
	case "grandchild": // spawns a grandchild that ignores SIGTERM, then hangs
		self, _ := os.Executable()
		gc := exec.Command(self)
		gc.Env = append(os.Environ(), helperEnv+"=orphan")
		gc.Stdout = os.Stdout
		gc.Stderr = os.Stderr
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintf(out, "{\"jsonrpc\":\"2.0\",\"method\":\"grandchild\",\"params\":{\"pid\":%d}}\n", gc.Process.Pid)
		out.Flush()
		select {}
	case "orphan":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "huge": // one 3 MiB line, then a normal one, then waits for stdin EOF
		out.WriteString(`{"jsonrpc":"2.0","method":"x","params":{"p":"`)
		out.WriteString(strings.Repeat("a", 3<<20))
		out.WriteString("\"}}\n")
		out.WriteString(`{"jsonrpc":"2.0","method":"after"}` + "\n")
		out.Flush()
		bufio.NewScanner(os.Stdin).Scan()
	case "crash": // writes half a line and dies
		out.WriteString(`{"jsonrpc":"2.0","id":1,"res`)
		out.Flush()
		os.Exit(3)
	case "stderr-flood":
		chunk := strings.Repeat("e", 1024) + "\n"
		for i := 0; i < 1024; i++ {
			os.Stderr.WriteString(chunk)
		}
		os.Stderr.WriteString("LAST LINE\n")
		fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"flooded"}`)
		out.Flush()
		bufio.NewScanner(os.Stdin).Scan()
	default:
		sandboxHelper(mode)
	}
}

func helperTarget(t *testing.T, mode string) Target {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tg := Command(self)
	tg.Env = []string{helperEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}
	tg.Timeouts.Grace = 500 * time.Millisecond
	return tg
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS != "linux"
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// waitDead polls for a process outside our control to disappear; there is
// no way to wait for a process that is not our child.
func waitDead(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return !alive(pid)
}

// checkGoroutines fails the test when goroutines started during it are
// still running shortly after it ends (polled: some wind down
// asynchronously after Close returns, such as HTTP keep-alives).
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			t.Errorf("goroutine leak: %d after, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	})
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
