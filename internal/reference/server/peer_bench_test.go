package server

// Peer benchmarks: the reference server against another MCP server
// implementation (go-sdk), both as separate processes, driven by the same
// raw client code in the same benchmark function, so the two numbers of one
// run are comparable. Each BenchmarkPeer* has the sub-benchmarks "ours" and
// "gosdk"; "make bench-compare" builds both servers, runs them -count 5 and
// prints the ratios.
//
//	MCPCHECK_BENCH_GOSDK  path of the go-sdk peer (built from
//	                      cmd/gosdk-peer); unset skips "gosdk".
//	MCPCHECK_BENCH_OURS   path of an mcpcheck binary for "ours"; unset
//	                      re-executes this test binary as the server
//	                      (TestPeerBenchServer), which runs the same code.
//
// Both peers take the command line of "mcpcheck reference server":
// --stdio, or --http 127.0.0.1:0 [--json-responses] with the URL printed to
// stderr. Because the servers live in other processes, B/op and allocs/op
// are the client's (the same code for both); the server's own cost is the
// server-cpu-ns/op metric (user+system CPU of the server process during the
// timed loop, from /proc; Linux only; 10ms resolution, so meaningful at the
// default -benchtime and not at a few iterations).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	envBenchGoSDK = "MCPCHECK_BENCH_GOSDK"
	envBenchOurs  = "MCPCHECK_BENCH_OURS"
	envPeerServe  = "MCPCHECK_PEER_BENCH_SERVE" // set only in the re-executed test binary
)

const (
	peerVersion = "2025-11-25"
	peerInit    = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + peerVersion + `","capabilities":{},"clientInfo":{"name":"mcpcheck-bench","version":"1"}}}`
	peerInited  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestPeerBenchServer is not a test: it is "ours" in the peer benchmarks
// when MCPCHECK_BENCH_OURS is unset. The benchmarks re-execute the test
// binary with MCPCHECK_PEER_BENCH_SERVE holding the arguments of
// "mcpcheck reference server", and this function then serves exactly as
// the CLI does until stdin closes (stdio) or a signal arrives (HTTP).
func TestPeerBenchServer(t *testing.T) {
	args := os.Getenv(envPeerServe)
	if args == "" {
		return // the normal test run: nothing to do
	}
	os.Exit(servePeerBench(strings.Fields(args)))
}

func servePeerBench(args []string) int {
	var stdio, jsonResp bool
	var addr string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--stdio":
			stdio = true
		case "--json-responses":
			jsonResp = true
		case "--http":
			if i+1 < len(args) {
				i++
				addr = args[i]
			}
		default:
			fmt.Fprintf(os.Stderr, "peer bench server: unknown argument %q\n", args[i])
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := New(Options{PageSize: 100, Logs: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer srv.Close()
	if stdio {
		if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout, os.Stderr); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := &http.Server{
		Handler:           srv.HTTPHandler(HTTPOptions{JSONResponses: jsonResp}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(os.Stderr, "peer bench server: http: ", 0),
	}
	fmt.Fprintf(os.Stderr, "mcpcheck reference server listening on http://%s/mcp\n", ln.Addr())
	go hs.Serve(ln)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Close()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	return 0
}

// peerImpl says how to start one server implementation with the flags of
// "mcpcheck reference server".
type peerImpl struct {
	name    string
	bin     string // executable; "" when not configured
	command func(flags ...string) *exec.Cmd
}

// peerImpls are the implementations every peer benchmark runs, ours first.
func peerImpls() []peerImpl {
	ours := peerImpl{name: "ours", bin: os.Getenv(envBenchOurs)}
	if ours.bin != "" {
		ours.command = func(flags ...string) *exec.Cmd {
			return exec.Command(ours.bin, append([]string{"reference", "server"}, flags...)...)
		}
	} else {
		ours.bin = os.Args[0]
		ours.command = func(flags ...string) *exec.Cmd {
			cmd := exec.Command(ours.bin, "-test.run=^TestPeerBenchServer$")
			cmd.Env = append(os.Environ(), envPeerServe+"="+strings.Join(flags, " "))
			return cmd
		}
	}
	gosdk := peerImpl{name: "gosdk", bin: os.Getenv(envBenchGoSDK)}
	gosdk.command = func(flags ...string) *exec.Cmd { return exec.Command(gosdk.bin, flags...) }
	return []peerImpl{ours, gosdk}
}

// eachPeer runs fn as one sub-benchmark per implementation.
func eachPeer(b *testing.B, fn func(b *testing.B, p peerImpl)) {
	for _, p := range peerImpls() {
		b.Run(p.name, func(b *testing.B) {
			if p.bin == "" {
				b.Skipf("%s is unset: set it to a go-sdk peer binary built from cmd/gosdk-peer ('make bench-compare' does)", envBenchGoSDK)
			}
			fn(b, p)
		})
	}
}

// tailBuffer keeps the last 8 KiB a process wrote to stderr, for failures,
// and sends the first server URL it sees on url.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	url   chan string
	found bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if !t.found {
		if u := peerURL.Find(t.buf); u != nil && bytes.IndexByte(t.buf[bytes.Index(t.buf, u):], '\n') >= 0 {
			t.found = true
			t.url <- string(u)
		}
	}
	if n := len(t.buf) - 8<<10; n > 0 {
		t.buf = append(t.buf[:0], t.buf[n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// peerProc is a running server process.
type peerProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser // stdio mode only
	stderr *tailBuffer
	url    string // HTTP mode only
	done   chan struct{}
}

var peerURL = regexp.MustCompile(`http://[^\s]+/mcp`)

// startPeer starts p with the server flags and stops it when tb ends. In
// HTTP mode it waits for the URL on stderr.
func startPeer(tb testing.TB, p peerImpl, flags ...string) *peerProc {
	tb.Helper()
	cmd := p.command(flags...)
	pp := &peerProc{cmd: cmd, stderr: &tailBuffer{url: make(chan string, 1)}, done: make(chan struct{})}
	cmd.Stderr = pp.stderr
	var err error
	if pp.stdin, err = cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	httpMode := len(flags) > 0 && flags[0] == "--http"
	if !httpMode {
		if pp.stdout, err = cmd.StdoutPipe(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", p.name, err)
	}
	go func() { cmd.Wait(); close(pp.done) }()
	tb.Cleanup(func() { pp.stop(tb) })
	if !httpMode {
		return pp
	}
	select {
	case pp.url = <-pp.stderr.url:
	case <-pp.done:
		tb.Fatalf("%s exited before printing its URL: %s", p.name, pp.stderr)
	case <-time.After(30 * time.Second):
		tb.Fatalf("%s printed no URL within 30s: %s", p.name, pp.stderr)
	}
	return pp
}

// stop ends the process: stdin EOF and SIGINT, then SIGKILL after 5s.
func (pp *peerProc) stop(tb testing.TB) {
	pp.stdin.Close()
	if pp.url != "" {
		pp.cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-pp.done:
	case <-time.After(5 * time.Second):
		pp.cmd.Process.Kill()
		<-pp.done
		tb.Logf("%s did not stop within 5s; killed", pp.cmd.Path)
	}
}

// cpuTime is the process's user+system CPU time so far, from /proc.
func (pp *peerProc) cpuTime() (time.Duration, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pp.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const userHZ = 100 // sysconf(_SC_CLK_TCK) on every Linux Go supports
	return time.Duration(ut+st) * time.Second / userHZ, true
}

// measureServerCPU returns a function that reports the server's CPU time
// per op since it was called.
func measureServerCPU(b *testing.B, pp *peerProc) func() {
	start, ok := pp.cpuTime()
	return func() {
		end, ok2 := pp.cpuTime()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "server-cpu-ns/op")
		}
	}
}

// peerLines are n requests with ids 1..n, newline-terminated for stdio.
func peerLines(method, params string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		p := ""
		if params != "" {
			p = `,"params":` + params
		}
		out[i] = []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"` + method + `"` + p + "}\n")
	}
	return out
}

// The benchmark surface both servers offer under the same names.
type peerOp struct {
	method, params string
	check          func(result json.RawMessage) error // applied once, before timing
}

var (
	opPing = peerOp{"ping", "", func(r json.RawMessage) error {
		if string(r) != "{}" {
			return fmt.Errorf("ping result %s, want {}", r)
		}
		return nil
	}}
	opToolsCall = peerOp{"tools/call", `{"name":"test_simple_text","arguments":{}}`, func(r json.RawMessage) error {
		var res struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
		if err := json.Unmarshal(r, &res); err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "This is a simple text response for testing." {
			return fmt.Errorf("test_simple_text result %s", r)
		}
		return nil
	}}
	opToolsCallArgs = peerOp{"tools/call", `{"name":"ref_structured","arguments":{"a":1.5,"b":2}}`, func(r json.RawMessage) error {
		var res struct {
			StructuredContent struct{ Sum float64 }
			IsError           bool
		}
		if err := json.Unmarshal(r, &res); err != nil || res.IsError || res.StructuredContent.Sum != 3.5 {
			return fmt.Errorf("ref_structured result %s", r)
		}
		return nil
	}}
)

// checkResponse verifies one full response before timing starts.
func checkResponse(resp []byte, op peerOp) error {
	var m struct {
		ID     json.RawMessage
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(resp, &m); err != nil {
		return fmt.Errorf("response %q: %v", resp, err)
	}
	if m.Error != nil || m.Result == nil {
		return fmt.Errorf("%s answered %s", op.method, resp)
	}
	return op.check(m.Result)
}

var resultKey = []byte(`"result"`)

// --- stdio ------------------------------------------------------------------

// stdioPeer is the raw stdio client: one line out, read lines until the
// response (a line with an id; notifications have none).
type stdioPeer struct {
	w io.Writer
	r *bufio.Reader
}

var idKey = []byte(`"id"`)

func (c *stdioPeer) roundTrip(line []byte) ([]byte, error) {
	if _, err := c.w.Write(line); err != nil {
		return nil, err
	}
	for {
		resp, err := c.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if bytes.Contains(resp, idKey) {
			return resp, nil
		}
	}
}

func newStdioPeer(b *testing.B, p peerImpl) (*stdioPeer, *peerProc) {
	pp := startPeer(b, p, "--stdio")
	c := &stdioPeer{w: pp.stdin, r: bufio.NewReaderSize(pp.stdout, 1<<20)}
	resp, err := c.roundTrip([]byte(peerInit + "\n"))
	if err != nil || !bytes.Contains(resp, resultKey) {
		b.Fatalf("%s initialize: %v %s; stderr: %s", p.name, err, resp, pp.stderr)
	}
	if _, err := c.w.Write([]byte(peerInited + "\n")); err != nil {
		b.Fatal(err)
	}
	return c, pp
}

func benchPeerStdio(b *testing.B, op peerOp) {
	eachPeer(b, func(b *testing.B, p peerImpl) {
		c, pp := newStdioPeer(b, p)
		lines := peerLines(op.method, op.params, 1024)
		resp, err := c.roundTrip(lines[len(lines)-1])
		if err != nil {
			b.Fatal(err)
		}
		if err := checkResponse(resp, op); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		report := measureServerCPU(b, pp)
		for i := 0; i < b.N; i++ {
			resp, err := c.roundTrip(lines[i%len(lines)])
			if err != nil {
				b.Fatalf("%s: %v; stderr: %s", p.name, err, pp.stderr)
			}
			if !bytes.Contains(resp, resultKey) {
				b.Fatalf("%s: %s", p.name, resp)
			}
		}
		b.StopTimer()
		report()
	})
}

func BenchmarkPeerStdioPing(b *testing.B)          { benchPeerStdio(b, opPing) }
func BenchmarkPeerStdioToolsCall(b *testing.B)     { benchPeerStdio(b, opToolsCall) }
func BenchmarkPeerStdioToolsCallArgs(b *testing.B) { benchPeerStdio(b, opToolsCallArgs) }

// --- Streamable HTTP ----------------------------------------------------------

// httpPeer is the raw HTTP client of one session: POST a JSON-RPC message,
// read the whole response (a JSON body or an SSE stream).
type httpPeer struct {
	client *http.Client
	url    string
	sid    string
	body   bytes.Buffer
}

func (c *httpPeer) post(msg []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(msg))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", peerVersion)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	if c.sid == "" {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	c.body.Reset()
	_, err = c.body.ReadFrom(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, c.body.Bytes(), err
}

// call posts a request and wants a 200 with a result in it.
func (c *httpPeer) call(msg []byte) ([]byte, error) {
	status, body, err := c.post(msg)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK || !bytes.Contains(body, resultKey) {
		return nil, fmt.Errorf("status %d: %.300s", status, body)
	}
	return body, nil
}

func peerHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}, Timeout: 30 * time.Second}
}

func newHTTPSession(client *http.Client, url string) (*httpPeer, error) {
	c := &httpPeer{client: client, url: url}
	if _, err := c.call([]byte(peerInit)); err != nil {
		return nil, fmt.Errorf("initialize: %v", err)
	}
	if c.sid == "" {
		return nil, errors.New("initialize: no Mcp-Session-Id")
	}
	status, body, err := c.post([]byte(peerInited))
	if err != nil || status != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: status %d %v %.300s", status, err, body)
	}
	return c, nil
}

// sseData returns the JSON-RPC response of a body, JSON or SSE.
func sseData(body []byte) []byte {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		return t
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok && bytes.Contains(d, idKey) {
			return bytes.TrimSpace(d)
		}
	}
	return body
}

func httpFlags(jsonResp bool) []string {
	if jsonResp {
		return []string{"--http", "127.0.0.1:0", "--json-responses"}
	}
	return []string{"--http", "127.0.0.1:0"}
}

func benchPeerHTTP(b *testing.B, op peerOp, jsonResp bool) {
	eachPeer(b, func(b *testing.B, p peerImpl) {
		pp := startPeer(b, p, httpFlags(jsonResp)...)
		client := peerHTTPClient(4)
		b.Cleanup(client.CloseIdleConnections)
		c, err := newHTTPSession(client, pp.url)
		if err != nil {
			b.Fatalf("%s: %v; stderr: %s", p.name, err, pp.stderr)
		}
		bodies := peerLines(op.method, op.params, 1024)
		body, err := c.call(bodies[len(bodies)-1])
		if err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		if err := checkResponse(sseData(body), op); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		report := measureServerCPU(b, pp)
		for i := 0; i < b.N; i++ {
			if _, err := c.call(bodies[i%len(bodies)]); err != nil {
				b.Fatalf("%s: %v; stderr: %s", p.name, err, pp.stderr)
			}
		}
		b.StopTimer()
		report()
	})
}

func BenchmarkPeerHTTPPing(b *testing.B)              { benchPeerHTTP(b, opPing, false) }
func BenchmarkPeerHTTPPingJSON(b *testing.B)          { benchPeerHTTP(b, opPing, true) }
func BenchmarkPeerHTTPToolsCall(b *testing.B)         { benchPeerHTTP(b, opToolsCall, false) }
func BenchmarkPeerHTTPToolsCallJSON(b *testing.B)     { benchPeerHTTP(b, opToolsCall, true) }
func BenchmarkPeerHTTPToolsCallArgs(b *testing.B)     { benchPeerHTTP(b, opToolsCallArgs, false) }
func BenchmarkPeerHTTPToolsCallArgsJSON(b *testing.B) { benchPeerHTTP(b, opToolsCallArgs, true) }

// benchPeerHTTPParallel measures throughput: 4×GOMAXPROCS clients, each
// with its own session (opened before timing), on one server.
func benchPeerHTTPParallel(b *testing.B, op peerOp, jsonResp bool) {
	eachPeer(b, func(b *testing.B, p peerImpl) {
		const parallelism = 4
		pp := startPeer(b, p, httpFlags(jsonResp)...)
		n := parallelism * runtime.GOMAXPROCS(0)
		client := peerHTTPClient(2 * n)
		b.Cleanup(client.CloseIdleConnections)
		sessions := make(chan *httpPeer, n)
		for range n {
			c, err := newHTTPSession(client, pp.url)
			if err != nil {
				b.Fatalf("%s: %v; stderr: %s", p.name, err, pp.stderr)
			}
			sessions <- c
		}
		bodies := peerLines(op.method, op.params, 1024)
		c := <-sessions
		body, err := c.call(bodies[0])
		if err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		if err := checkResponse(sseData(body), op); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		sessions <- c
		b.ReportAllocs()
		b.SetParallelism(parallelism)
		b.ResetTimer()
		report := measureServerCPU(b, pp)
		b.RunParallel(func(pb *testing.PB) {
			var c *httpPeer
			select {
			case c = <-sessions:
			default:
				b.Error("more goroutines than sessions")
				return
			}
			for i := 0; pb.Next(); i++ {
				if _, err := c.call(bodies[i%len(bodies)]); err != nil {
					b.Errorf("%s: %v", p.name, err)
					return
				}
			}
		})
		b.StopTimer()
		report()
	})
}

func BenchmarkPeerHTTPPingParallel(b *testing.B)     { benchPeerHTTPParallel(b, opPing, false) }
func BenchmarkPeerHTTPPingParallelJSON(b *testing.B) { benchPeerHTTPParallel(b, opPing, true) }
func BenchmarkPeerHTTPToolsCallParallelJSON(b *testing.B) {
	benchPeerHTTPParallel(b, opToolsCall, true)
}

// TestPeerBenchClientAgainstOurs runs the peer benchmarks' client once
// against our server process over every transport, so the benchmark code
// is checked (under -race too) by the normal test run.
func TestPeerBenchClientAgainstOurs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	ours := peerImpls()[0]
	ops := map[string]peerOp{"ping": opPing, "test_simple_text": opToolsCall, "ref_structured": opToolsCallArgs}
	t.Run("stdio", func(t *testing.T) {
		pp := startPeer(t, ours, "--stdio")
		c := &stdioPeer{w: pp.stdin, r: bufio.NewReader(pp.stdout)}
		if resp, err := c.roundTrip([]byte(peerInit + "\n")); err != nil || !bytes.Contains(resp, resultKey) {
			t.Fatalf("initialize: %v %s; stderr: %s", err, resp, pp.stderr)
		}
		c.w.Write([]byte(peerInited + "\n"))
		id := 2 // after initialize's; a session never reuses a request id
		for name, op := range ops {
			id++
			resp, err := c.roundTrip(peerLines(op.method, op.params, id)[id-1])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := checkResponse(resp, op); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	for _, jsonResp := range []bool{false, true} {
		t.Run(fmt.Sprintf("http/json=%v", jsonResp), func(t *testing.T) {
			pp := startPeer(t, ours, httpFlags(jsonResp)...)
			client := peerHTTPClient(2)
			defer client.CloseIdleConnections()
			c, err := newHTTPSession(client, pp.url)
			if err != nil {
				t.Fatalf("%v; stderr: %s", err, pp.stderr)
			}
			id := 2 // a session never reuses a request id
			for name, op := range ops {
				id++
				body, err := c.call(peerLines(op.method, op.params, id)[id-1])
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := checkResponse(sseData(body), op); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}
