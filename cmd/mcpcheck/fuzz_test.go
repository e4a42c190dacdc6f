package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/spec"
)

// runFuzzCLI runs mcpcheck with ctx, returning the exit code and outputs.
// stderr may be observed while the command runs through watch.
func runFuzzCLI(ctx context.Context, watch func(string), args ...string) (code int, stdout, stderr string) {
	var out bytes.Buffer
	errw := &watchWriter{watch: watch}
	code = runEnv(&env{ctx: ctx, stdin: strings.NewReader(""), stdout: &out, stderr: errw, getenv: func(string) string { return "" }}, args)
	return code, out.String(), errw.String()
}

// watchWriter is a stderr that calls watch with every write.
type watchWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	watch func(string)
}

func (w *watchWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watch != nil {
		w.watch(string(b))
	}
	return w.buf.Write(b)
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// referenceCommand is the embedded reference server over stdio, the
// target of the tests that run mcpcheck in this process: the mcpcheck
// binary (mcpcheckBin, without the race detector, which made each run's
// server take three times the CPU); under -short, which builds nothing,
// this test binary re-executed as mcpcheck (see TestMain).
func referenceCommand(t *testing.T) string {
	t.Helper()
	if !testing.Short() {
		return shellQuote(mcpcheckBin(t)) + " reference server --stdio"
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return shellQuote(self) + " reference server --stdio"
}

// brokenServer is a stdio "server" that answers initialize and exits with
// status 3 on any other line but notifications/initialized.
const brokenServer = `while IFS= read -r l; do
  case "$l" in
    *'"method":"initialize"'*) printf '%s\n' '{"jsonrpc":"2.0","id":"mcpcheck-init","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"broken","version":"0"}}}';;
    *'notifications/initialized'*) ;;
    *) exit 3;;
  esac
done
`

func brokenCommand(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the broken target is a POSIX shell script")
	}
	path := filepath.Join(t.TempDir(), "broken.sh")
	if err := os.WriteFile(path, []byte(brokenServer), 0o644); err != nil {
		t.Fatal(err)
	}
	return "sh " + shellQuote(path)
}

func readCampaign(t *testing.T, path string) fuzz.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the campaign summary: %v", err)
	}
	var res fuzz.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%s is not a campaign summary: %v\n%s", path, err, b)
	}
	return res
}

func TestFuzzReferenceServerCampaignIsClean(t *testing.T) {
	cmd := referenceCommand(t)
	for _, proto := range []string{"latest", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--stdio", cmd, "--protocol", proto,
				"--max-execs", "200", "--seed", "1", "--out", out, "--format", "text,json,html", "--findings", filepath.Join(dir, "findings"))
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
			if res.Execs != 200 || res.Seed != 1 || len(res.Findings) != 0 || res.Verdict.Failed {
				t.Errorf("campaign: %d execs, seed %d, %d findings, verdict %+v; want 200 execs, seed 1, none", res.Execs, res.Seed, len(res.Findings), res.Verdict)
			}
			if len(res.MethodsCovered) == 0 {
				t.Errorf("no method covered: %+v", res)
			}
			if !strings.Contains(stdout, "200 execs") || !strings.Contains(stdout, "0 finding(s)") || !strings.Contains(stdout, "OK: no findings") {
				t.Errorf("summary on stdout:\n%s", stdout)
			}
			if !strings.Contains(stderr, "execs/s") || !strings.Contains(stderr, "methods covered") {
				t.Errorf("no progress on stderr:\n%s", stderr)
			}
			for _, name := range []string{"mcpcheck-fuzz.txt", "mcpcheck-fuzz.html"} {
				b, err := os.ReadFile(filepath.Join(out, name))
				if err != nil || len(b) == 0 {
					t.Errorf("%s: %v (%d bytes)", name, err, len(b))
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "findings")); !os.IsNotExist(err) {
				t.Errorf("a clean campaign created the findings directory (%v)", err)
			}
		})
	}
}

// TestFuzzStatelessCampaignSurvivesInitialize: in a 2026-07-28 campaign
// over stdio, protocol/double-initialize sends initialize, which on the
// reference server's dual-era stream opens a legacy session; inputs whose
// _meta protocol version a mutator broke are then served by the legacy
// session's rules. Judged by 2026-07-28 rules they gave false findings
// (missing cacheScope, the retired -32002); the campaign must be clean.
// This seed showed six of them before the fix.
func TestFuzzStatelessCampaignSurvivesInitialize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--stdio", referenceCommand(t), "--protocol", "2026-07-28",
		"--mutators", "protocol/double-initialize,bytes/flip,json/missing-member,protocol/valid", "--max-execs", "300", "--seed", "1",
		"--out", out, "--format", "json", "--findings", filepath.Join(dir, "findings"))
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
	if res.Execs != 300 || len(res.Findings) != 0 {
		t.Errorf("%d execs, %d findings; want 300, none", res.Execs, len(res.Findings))
	}
	if res.Mutators["protocol/double-initialize"] == 0 {
		t.Errorf("protocol/double-initialize never ran: %v", res.Mutators)
	}
}

func TestFuzzBrokenTargetFailsAndReplayReproduces(t *testing.T) {
	broken := brokenCommand(t)
	dir := t.TempDir()
	out, findings := filepath.Join(dir, "out"), filepath.Join(dir, "findings")
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--stdio", broken, "--protocol", "2025-11-25",
		"--max-execs", "20", "--seed", "1", "--wait", "2s", "--findings", findings, "--out", out, "--format", "json,html")
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
	if !res.Verdict.Failed {
		t.Errorf("verdict %+v, want failed", res.Verdict)
	}
	var crash *fuzz.Finding
	for _, f := range res.Findings {
		if f.Kind == "crash" && crash == nil {
			crash = f
		}
	}
	if crash == nil {
		t.Fatalf("no crash finding among %d:\n%s", len(res.Findings), stdout)
	}
	if _, err := os.Stat(filepath.Join(crash.Dir, fuzz.FileReplay)); err != nil {
		t.Fatalf("the finding directory has no replay file: %v", err)
	}
	if !strings.Contains(crash.Reproducer, "mcpcheck replay "+shellQuote(crash.Dir)+" --stdio "+shellQuote(broken)) {
		t.Errorf("reproducer %q does not replay %s against %s", crash.Reproducer, crash.Dir, broken)
	}
	for _, want := range []string{"crash", "crash/exited-with-status-3", "reproduce: " + crash.Reproducer, "FAIL:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "new finding: crash") {
		t.Errorf("stderr does not announce the finding:\n%s", stderr)
	}
	html, err := os.ReadFile(filepath.Join(out, "mcpcheck-fuzz.html"))
	if err != nil || !bytes.Contains(html, []byte("mcpcheck replay")) {
		t.Errorf("the HTML report lacks the reproducer (%v)", err)
	}

	// The reproducer, run as printed, reproduces: exit 1.
	for _, extra := range [][]string{nil, {"--original"}} {
		args := append([]string{"replay", crash.Dir, "--stdio", broken}, extra...)
		code, stdout, stderr = runFuzzCLI(context.Background(), nil, args...)
		if code != exitFailed || !strings.Contains(stdout, "REPRODUCED") || !strings.Contains(stdout, "Transcript") || !strings.Contains(stdout, "exited with status 3") {
			t.Errorf("mcpcheck %v: exit %d, want 1 and the transcript\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
	}
	// The replay file itself works too, and flags may come first.
	code, _, stderr = runFuzzCLI(context.Background(), nil, "replay", "--stdio", broken, filepath.Join(crash.Dir, fuzz.FileReplay))
	if code != exitFailed {
		t.Errorf("replay of replay.json: exit %d, want 1; stderr %q", code, stderr)
	}
	// Against the healthy reference server it does not reproduce: exit 0.
	code, stdout, stderr = runFuzzCLI(context.Background(), nil, "replay", crash.Dir, "--stdio", referenceCommand(t))
	if code != exitOK || !strings.Contains(stdout, "NOT REPRODUCED") {
		t.Errorf("replay against the reference server: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// A target that cannot start is a harness error: exit 3.
	missing := filepath.Join(dir, "no-such-server")
	if code, _, stderr = runFuzzCLI(context.Background(), nil, "replay", crash.Dir, "--stdio", missing); code != exitHarness {
		t.Errorf("replay against a missing binary: exit %d, want 3; stderr %q", code, stderr)
	}
}

func TestFuzzUnreachableTargetExitsThree(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-server")
	code, _, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--stdio", missing, "--max-execs", "5")
	if code != exitHarness || !strings.Contains(stderr, "no-such-server") {
		t.Errorf("exit %d, want 3 and the command named; stderr %q", code, stderr)
	}
}

// TestFuzzStopsOnCancelAndStillWritesTheSummary: a campaign cancelled as
// Ctrl-C does stops (exit 5, its summary's duration short of its 10 m
// bound) and still prints and writes its summary, which
// says it was interrupted after how many execs; it is no pass (issue 33):
// no OK, and exit 5.
func TestFuzzStopsOnCancelAndStillWritesTheSummary(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(t.TempDir(), "out")
	// Cancel (as Ctrl-C does) once the first progress line shows the
	// campaign is under way.
	watch := func(s string) {
		if strings.Contains(s, "execs/s") {
			cancel()
		}
	}
	code, stdout, stderr := runFuzzCLI(ctx, watch, "fuzz", "--stdio", referenceCommand(t), "--duration", "10m", "--seed", "7", "--out", out, "--format", "json,md,html")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d (interrupted)\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, stdout, stderr)
	}
	res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
	if res.Seed != 7 || res.Duration >= 10*time.Minute || res.Execs == 0 {
		t.Errorf("summary: seed %d, duration %s, %d execs", res.Seed, res.Duration, res.Execs)
	}
	after := fmt.Sprintf("interrupted after %d execs", res.Execs)
	if res.Interrupted == "" || !res.Verdict.Unjudged || !strings.Contains(res.Verdict.Reason, after) {
		t.Errorf("the summary does not say the campaign was interrupted: interrupted %q, verdict %+v", res.Interrupted, res.Verdict)
	}
	if !strings.Contains(stderr, after) || !strings.Contains(stdout, "Fuzz campaign against") || !strings.Contains(stdout, after) {
		t.Errorf("want the interruption after %d execs noted and the summary printed\nstdout:\n%s\nstderr:\n%s", res.Execs, stdout, stderr)
	}
	if okLine.MatchString(stdout) || okLine.MatchString(stderr) {
		t.Errorf("an interrupted campaign printed OK\nstdout:\n%s", stdout)
	}
	for _, f := range []string{"mcpcheck-fuzz.md", "mcpcheck-fuzz.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); passedVerdict.MatchString(s) || !strings.Contains(s, "interrupted") {
			t.Errorf("%s calls the interrupted campaign passed or does not say it was interrupted:\n%s", f, tail(s, 3000))
		}
	}
}

func TestFuzzAndReplayUsageErrorsExitTwo(t *testing.T) {
	finding := t.TempDir() // not a finding
	cases := [][]string{
		{"fuzz"},
		{"fuzz", "--stdio", "x", "--url", "http://127.0.0.1:1/mcp"},
		{"fuzz", "--stdio", "x", "--protocol", "1999-01-01"},
		{"fuzz", "--stdio", "x", "--protocol", "2025-06-18,2025-11-25"},
		{"fuzz", "--stdio", "x", "--format", "html"},
		{"fuzz", "--stdio", "x", "--format", "pdf", "--out", finding},
		{"fuzz", "--stdio", "x", "--mutators", "no-such-family"},
		{"fuzz", "--stdio", "x", "--mutators", "http"},
		{"fuzz", "--stdio", "x", "--workers", "0"},
		{"fuzz", "--stdio", "x", "--wait", "0s"},
		{"fuzz", "--stdio", "x", "--duration", "-1s"},
		{"fuzz", "--stdio", "x", "--header", "A:b"},
		{"fuzz", "--stdio", "x", "surplus"},
		{"fuzz", "--stdio", `unterminated "quote`},
		{"fuzz", "--url", "ftp://example.com/"},
		{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--header", "novalue"},
		{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--header-env", "X-Token:MCPCHECK_TEST_SURELY_UNSET_VARIABLE"},
		{"fuzz", "--stdio", "x", "--transport", "sse"},
		{"fuzz", "--stdio", "x", "--transport", "streamable"},
		{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--transport", "stdio"},
		{"fuzz", "--url", "http://127.0.0.1:1/mcp", "--transport", "carrier-pigeon"},
		{"fuzz", "--no-such-flag"},
		{"replay"},
		{"replay", "--stdio", "x"},
		{"replay", finding, "--stdio", "x"},
		{"replay", filepath.Join(finding, "missing"), "--stdio", "x"},
		{"replay", "a", "b", "--stdio", "x"},
		{"replay", finding, "--stdio", "x", "--protocol", "nope"},
		{"replay", finding},
		{"replay", finding, "--stdio", "x", "--transport", "sse"},
		{"replay", finding, "--url", "http://127.0.0.1:1/mcp", "--transport", "websocket"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "mcpcheck:") {
			t.Errorf("mcpcheck %s: exit %d, want 2 with an explanation; stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
}

func TestFuzzHelpAndMutatorList(t *testing.T) {
	for _, cmd := range []string{"fuzz", "replay"} {
		code, out, _ := runCLI(cmd, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: mcpcheck "+cmd) {
			t.Errorf("%s --help: exit %d %q", cmd, code, out)
		}
	}
	code, out, _ := runCLI("fuzz", "--list-mutators")
	if code != exitOK || !strings.Contains(out, "bytes/") || !strings.Contains(out, "http/") {
		t.Errorf("fuzz --list-mutators: exit %d\n%s", code, out)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"findings/crash-1":   "findings/crash-1",
		"sh broken.sh":       "'sh broken.sh'",
		`sh -c "echo 'a'"`:   `'sh -c "echo '\''a'\''"'`,
		"":                   "''",
		"http://h:1/mcp?x=1": "'http://h:1/mcp?x=1'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// legacySSEServer serves the reference server's HTTP transports, the
// legacy HTTP+SSE one included (GET /sse), on 127.0.0.1.
func legacySSEServer(t *testing.T) *httptest.Server {
	t.Helper()
	ref, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ref.HTTPHandler(server.HTTPOptions{LegacySSE: true}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = ref.Close() }) // first: it ends the SSE streams
	return srv
}

// brokenSSEServer is an HTTP+SSE server (GET /sse, POST /message) that
// answers initialize, ping and tools/list on the stream, and anything else
// with an event that is not JSON.
func brokenSSEServer(t *testing.T) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	streams := map[string]chan string{}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			mu.Lock()
			n++
			id := fmt.Sprint(n)
			ch := make(chan string, 64)
			streams[id] = ch
			mu.Unlock()
			defer func() { mu.Lock(); delete(streams, id); mu.Unlock() }()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: /message?session=%s\n\n", id)
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-ch:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == "/message":
			mu.Lock()
			ch := streams[r.URL.Query().Get("session")]
			mu.Unlock()
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if ch == nil {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || m.Method == "" {
				return
			}
			var answer string
			switch m.Method {
			case spec.MethodInitialize:
				answer = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"broken-sse","version":"0"}}}`
			case spec.MethodPing:
				answer = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`
			case spec.MethodToolsList: // asked once before the campaign
				answer = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`
			default:
				answer = "this is not JSON"
			}
			select {
			case ch <- answer:
			default:
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFuzzLegacySSETransport: --transport sse fuzzes an HTTP+SSE server
// (at 2024-11-05 unless told otherwise); the reference server is clean, a
// broken one yields findings whose reproducers say --transport sse and
// reproduce; --transport auto finds the transport itself.
func TestFuzzLegacySSETransport(t *testing.T) {
	t.Parallel()
	t.Run("reference", func(t *testing.T) {
		t.Parallel()
		srv := legacySSEServer(t)
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--url", srv.URL+"/sse", "--transport", "sse",
			"--max-execs", "150", "--seed", "1", "--out", out, "--format", "json", "--findings", filepath.Join(dir, "findings"))
		if code != exitOK {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
		if res.Execs != 150 || len(res.Findings) != 0 || res.Version != spec.V20241105 {
			t.Errorf("campaign: %d execs, %d findings, protocol %s; want 150, none, 2024-11-05", res.Execs, len(res.Findings), res.Version)
		}
		if !strings.Contains(stderr, "(HTTP+SSE)") {
			t.Errorf("stderr does not say HTTP+SSE:\n%s", stderr)
		}
	})
	t.Run("broken", func(t *testing.T) {
		t.Parallel()
		srv := brokenSSEServer(t)
		for _, transport := range []string{"sse", "auto"} {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--url", srv.URL+"/sse", "--transport", transport,
				"--mutators", "protocol/valid", "--max-execs", "10", "--seed", "1", "--out", out, "--format", "json", "--findings", filepath.Join(dir, "findings"))
			if code != exitFailed {
				t.Fatalf("--transport %s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", transport, code, stdout, stderr)
			}
			if transport == "auto" && !strings.Contains(stderr, "--transport auto: "+srv.URL+"/sse speaks sse") {
				t.Errorf("auto: the detection is not reported:\n%s", stderr)
			}
			res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
			if len(res.Findings) == 0 {
				t.Fatalf("--transport %s: no finding\n%s", transport, stdout)
			}
			f := res.Findings[0]
			want := "mcpcheck replay " + shellQuote(f.Dir) + " --url " + shellQuote(srv.URL+"/sse") + " --transport sse --protocol 2024-11-05"
			if f.Reproducer != want || !strings.Contains(stdout, "reproduce: "+want) {
				t.Errorf("--transport %s: reproducer %q, want %q", transport, f.Reproducer, want)
			}
			// The reproducer, run as printed, reproduces: exit 1.
			argv, err := splitCommand(f.Reproducer)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr = runFuzzCLI(context.Background(), nil, argv[1:]...)
			if code != exitFailed || !strings.Contains(stdout, "REPRODUCED") {
				t.Errorf("%s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", f.Reproducer, code, stdout, stderr)
			}
		}
		// Without --transport the URL is taken for streamable HTTP, which
		// it is not: the handshake fails (exit 3).
		code, _, stderr := runFuzzCLI(context.Background(), nil, "fuzz", "--url", srv.URL+"/sse", "--protocol", "2025-11-25", "--max-execs", "1")
		if code != exitHarness {
			t.Errorf("streamable against an HTTP+SSE server: exit %d, want 3; stderr %q", code, stderr)
		}
	})
}

// TestFuzzSlowStartingTargetIsNotBlamed (issue 33): every process of a
// target that takes 2 to 4 s to say anything after it starts (the
// reference server with --start-delay) is no hang and no unreachable
// target to a campaign with --wait 1s: the first wait on each fresh
// instance — the campaign's handshake, a stateless instance's first
// exchange, a fresh input's, an input's that closes stdin, instances
// started ahead and restarts — has the start-up allowance, so the campaign
// runs its inputs and finds nothing. With --startup-timeout 500ms (so the
// allowance is the 1 s --wait) the same campaign says the target never
// answered and exits 3.
func TestFuzzSlowStartingTargetIsNotBlamed(t *testing.T) {
	t.Parallel()
	late := referenceCommand(t) + " --start-delay 2s-4s"
	for _, tc := range []struct{ proto, mutators string }{
		// Every input wants an instance of its own.
		{"2025-11-25", "protocol/before-initialize,protocol/cancel-initialize,framing/missing-final-newline"},
		// Every instance's first exchange is a start-up wait.
		{"2026-07-28", "protocol/valid,protocol/double-initialize,framing/missing-final-newline"},
	} {
		t.Run(tc.proto, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := []string{"fuzz", "--stdio", late, "--protocol", tc.proto, "--mutators", tc.mutators, "--max-execs", "10", "--seed", "3",
				"--wait", "1s", "--out", out, "--format", "json", "--findings", filepath.Join(dir, "findings")}
			code, stdout, stderr := runFuzzCLI(context.Background(), nil, args...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
			if res.Execs != 10 || len(res.Findings) != 0 || res.Unjudged != "" || len(res.Errors) > 0 || res.Restarts == 0 {
				t.Errorf("%d execs, %d findings %+v, unjudged %q, problems %q, %d restarts; want 10 execs on fresh instances, nothing found", res.Execs, len(res.Findings), res.Findings, res.Unjudged, res.Errors, res.Restarts)
			}
			if !strings.Contains(stdout, "OK: no findings") {
				t.Errorf("stdout:\n%s", stdout)
			}

			out = filepath.Join(dir, "short")
			args = append(args[:len(args)-6:len(args)-6], "--startup-timeout", "500ms", "--out", out, "--format", "json")
			code, stdout, stderr = runFuzzCLI(context.Background(), nil, args...)
			if code != exitHarness || !strings.Contains(stdout+stderr, "never completed a handshake") || !strings.Contains(stdout+stderr, "never said anything") {
				t.Errorf("with --startup-timeout 500ms: exit %d, want 3 and the target said never to have answered\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

// TestReplaySlowStartingTargetIsNoHang: replaying a hang found on a fresh
// instance against a target that takes 2 to 4 s to start does not
// reproduce it (the start-up allowance covers the start), unless the
// allowance is shorter than the start (--startup-timeout 500ms): then the
// silence is the hang.
func TestReplaySlowStartingTargetIsNoHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	expect := fuzz.Observation{Kind: "hang", Check: "hang/ping", Message: "the target did not answer a valid ping sent after the input within 1s"}
	rf := fuzz.ReplayFile{Format: 1, Version: spec.V20251125, Expect: expect, Signature: expect.Signature(), Wait: time.Second,
		Input: fuzz.Input{Chunks: [][]byte{[]byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\n")}, Fresh: true}}
	rf.Original = rf.Input
	b, err := json.Marshal(rf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fuzz.FileReplay), b, 0o644); err != nil {
		t.Fatal(err)
	}
	late := referenceCommand(t) + " --start-delay 2s-4s"
	code, stdout, stderr := runFuzzCLI(context.Background(), nil, "replay", dir, "--stdio", late)
	if code != exitOK || !strings.Contains(stdout, "NOT REPRODUCED") {
		t.Errorf("replay against a slow-starting target: exit %d, want 0 (not reproduced)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runFuzzCLI(context.Background(), nil, "replay", dir, "--stdio", late, "--startup-timeout", "500ms")
	if code != exitFailed || !strings.Contains(stdout, "REPRODUCED") {
		t.Errorf("replay with --startup-timeout 500ms: exit %d, want 1 (the start is longer than the allowance)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
