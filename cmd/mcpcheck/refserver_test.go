package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/server"
)

const (
	refInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}`
	refInited = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	refPing   = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
)

// lockedBuffer is an io.Writer the server may write from any goroutine
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRefServer runs "mcpcheck reference server ARGS" through runEnv in a
// goroutine and returns its exit-code channel.
func startRefServer(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args ...string) <-chan int {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}
	code := make(chan int, 1)
	go func() { code <- runEnv(e, append([]string{"reference", "server"}, args...)) }()
	return code
}

func waitExit(t *testing.T, code <-chan int, what string) int {
	t.Helper()
	select {
	case c := <-code:
		return c
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the server did not stop within 10s", what)
		return -1
	}
}

func TestReferenceServerListFaults(t *testing.T) {
	code, out, stderr := runCLI("reference", "server", "--list-faults")
	if code != exitOK {
		t.Fatalf("--list-faults: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if f := strings.Fields(lines[0]); len(f) != 3 || f[0] != "NAME" || f[1] != "REQUIREMENT" || f[2] != "BREAKS" {
		t.Errorf("--list-faults: want the header NAME REQUIREMENT BREAKS, got %q", lines[0])
	}
	faults := server.Faults()
	if len(faults) == 0 {
		t.Fatal("the reference server has no fault switches")
	}
	if len(lines) != len(faults)+1 {
		t.Errorf("--list-faults: want %d faults and a header, got %d lines:\n%s", len(faults), len(lines), out)
	}
	for i, f := range faults {
		if i+1 >= len(lines) {
			break
		}
		got := strings.Fields(lines[i+1])
		if len(got) < 3 || got[0] != f.Name || got[1] != f.Requirement || !strings.Contains(lines[i+1], f.Description) {
			t.Errorf("--list-faults line %d: want %s %s %q, got %q", i+1, f.Name, f.Requirement, f.Description, lines[i+1])
		}
	}
}

func TestReferenceServerUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "exactly one of --stdio or --http"},
		{[]string{"--stdio", "--http", "127.0.0.1:0"}, "exactly one of --stdio or --http"},
		{[]string{"--stdio", "--json-responses"}, "--http only"},
		{[]string{"--stdio", "--legacy-sse"}, "--http only"},
		{[]string{"--stdio", "--page-size", "0"}, "--page-size"},
		{[]string{"--stdio", "--page-size", "many"}, "page-size"},
		{[]string{"--stdio", "--fault", "no-such-fault"}, "--list-faults"},
		{[]string{"--stdio", "extra"}, `unexpected argument "extra"`},
		{[]string{"--frobnicate"}, "frobnicate"},
		{[]string{"--http"}, "http"},
	}
	for _, c := range cases {
		args := append([]string{"reference", "server"}, c.args...)
		code, out, stderr := runCLI(args...)
		if code != exitUsage {
			t.Errorf("mcpcheck %s: want exit %d, got %d; stderr %q", strings.Join(args, " "), exitUsage, code, stderr)
		}
		if !strings.Contains(stderr, "mcpcheck: reference server") || !strings.Contains(stderr, c.want) {
			t.Errorf("mcpcheck %s: want an explanation mentioning %q on stderr, got %q", strings.Join(args, " "), c.want, stderr)
		}
		if out != "" {
			t.Errorf("mcpcheck %s: a usage error must print nothing on stdout, got %q", strings.Join(args, " "), out)
		}
	}
}

// TestReferenceServerStdioOverPipes drives --stdio through the env's stdin
// and stdout: initialize and ping are answered, stdout carries nothing but
// JSON-RPC, and the server exits 0 when stdin closes.
func TestReferenceServerStdioOverPipes(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := startRefServer(ctx, inR, outW, &stderr, "--stdio")
	defer inW.Close()

	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) map[string]json.RawMessage {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: stdout closed; stderr %q", what, stderr.String())
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("%s: stdout must carry only JSON-RPC messages, got %q", what, l)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10s; stderr %q", what, stderr.String())
			return nil
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write %s: %v", s, err)
		}
	}

	send(refInit)
	m := next("initialize")
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if string(m["id"]) != "1" || json.Unmarshal(m["result"], &init) != nil || init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name == "" {
		t.Fatalf("initialize: want id 1 and a 2025-11-25 result with serverInfo, got %v", m)
	}
	send(refInited)
	send(refPing)
	m = next("ping")
	if string(m["id"]) != "2" || string(m["result"]) != "{}" {
		t.Fatalf("ping: want id 2 and an empty result, got %v", m)
	}

	inW.Close() // stdin EOF ends the server
	if c := waitExit(t, code, "--stdio after stdin EOF"); c != exitOK {
		t.Errorf("--stdio: exit %d after stdin EOF, want 0; stderr %q", c, stderr.String())
	}
	outW.Close()
	for l := range lines {
		t.Errorf("unexpected output after ping: %q", l)
	}
}

// TestReferenceServerStdioProcess runs the real process (this test binary
// standing in for mcpcheck, see TestMain): answers on stdout, and exits 0
// on stdin EOF.
func TestReferenceServerStdioProcess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "reference", "server", "--stdio")
	cmd.Stdin = strings.NewReader(refInit + "\n" + refInited + "\n" + refPing + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference server --stdio: %v; stderr %q", err, stderr.String())
	}
	ids := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout must carry only JSON-RPC messages, got %q", l)
		}
		if m["result"] != nil {
			ids[string(m["id"])] = true
		}
	}
	if !ids["1"] || !ids["2"] {
		t.Errorf("want results for initialize (1) and ping (2), got stdout %q", stdout.String())
	}
}

var listenURL = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/\S*)`)

// TestReferenceServerHTTP starts --http on a free loopback port: the URL
// goes to stderr, the server answers initialize and ping there, and it
// stops (exit 0, port closed) when the env's ctx is cancelled.
func TestReferenceServerHTTP(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		ct   string
	}{
		{"sse", []string{"--http", "127.0.0.1:0"}, "text/event-stream"},
		{"json", []string{"--http", ":0", "--json-responses"}, "application/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr lockedBuffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code := startRefServer(ctx, strings.NewReader(""), &stdout, &stderr, c.args...)
			var url string
			deadline := time.Now().Add(10 * time.Second)
			for url == "" {
				if m := listenURL.FindStringSubmatch(stderr.String()); m != nil {
					url = m[1]
					break
				}
				select {
				case ec := <-code:
					t.Fatalf("the server exited (%d) before printing its URL; stderr %q", ec, stderr.String())
				case <-time.After(10 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("no URL on stderr within 10s: %q", stderr.String())
				}
			}

			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			var sid string
			post := func(body string) (*http.Response, string) {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if sid != "" {
					req.Header.Set("Mcp-Session-Id", sid)
					req.Header.Set("MCP-Protocol-Version", "2025-11-25")
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("POST %s: %v", url, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp, string(b)
			}
			resp, body := post(refInit)
			sid = resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || sid == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ct) || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
				t.Fatalf("initialize: status %d, session %q, type %q, body %q", resp.StatusCode, sid, resp.Header.Get("Content-Type"), body)
			}
			if resp, body = post(refInited); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("notifications/initialized: status %d %q, want 202", resp.StatusCode, body)
			}
			if resp, body = post(refPing); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":2`) || !strings.Contains(body, `"result":{}`) {
				t.Fatalf("ping: status %d %q", resp.StatusCode, body)
			}
			if stdout.String() != "" {
				t.Errorf("--http must leave stdout alone, got %q", stdout.String())
			}

			cancel()
			if ec := waitExit(t, code, "--http after cancel"); ec != exitOK {
				t.Errorf("--http: exit %d after cancel, want 0; stderr %q", ec, stderr.String())
			}
			client.CloseIdleConnections()
			if conn, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"), time.Second); err == nil {
				conn.Close()
				t.Errorf("%s still accepts connections after the server stopped", url)
			}
		})
	}
}

// TestReferenceServerHTTPPortInUse: a port that cannot be bound is a
// harness error (exit 3) that says which address and what to do.
func TestReferenceServerHTTPPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := startRefServer(ctx, strings.NewReader(""), &stdout, &stderr, "--http", ln.Addr().String())
	if c := waitExit(t, code, "--http on a busy port"); c != exitHarness {
		t.Errorf("--http %s (in use): exit %d, want %d; stderr %q", ln.Addr(), c, exitHarness, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "cannot listen on "+ln.Addr().String()) || !strings.Contains(s, "127.0.0.1:0") {
		t.Errorf("want the address and the 127.0.0.1:0 hint on stderr, got %q", s)
	}
}
