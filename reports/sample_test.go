package reports

import (
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var (
	testCatOnce sync.Once
	testCat     *catalog.Catalog
	testCatErr  error
)

// testCatalog is a small fixed catalog, so golden files do not change when
// the real catalog grows.
func testCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	testCatOnce.Do(func() { testCat, testCatErr = catalog.Load(os.DirFS("testdata/catalog")) })
	if testCatErr != nil {
		t.Fatalf("load the test catalog testdata/catalog: %v", testCatErr)
	}
	return testCat
}

func testOptions(t testing.TB) Options {
	return Options{Catalog: testCatalog(t), Redaction: Redaction{Secrets: []string{"hunter2hunter2"}}}
}

// Hostile strings a malicious target might send back.
const (
	hostileScript = `<script>alert(1)</script>`
	hostileImg    = `"><img src=x onerror=alert(2)>`
	hostileArea   = `</textarea>`
	hostileJS     = `javascript:alert(3)`
	hostileMD     = "| pipe ` tick ``` fence </pre> ]]> [link](javascript:alert(4)) **bold**"
	ansiEscape    = "\x1b[31mRED\x1b[0m\x07\x00\r"
)

var started = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func at(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// sampleRun is a fixed, rich run: every outcome, three versions, several
// areas and levels, a transcript with HTTP info, bytes that are not UTF-8,
// control characters, hostile strings and secrets, fuzz findings and a
// baseline with stale entries (absent, passing, a requirement fixed), a
// legacy entry and a broken check with a requirement no entry names.
func sampleRun(t testing.TB) *Run {
	t.Helper()
	nonUTF8, b64 := RawBytes([]byte("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"\xff\xfe bad bytes \x1b[2J\"}\n"))
	if !b64 {
		t.Fatal("RawBytes did not flag invalid UTF-8 as base64")
	}
	run := &Run{
		Tool: Tool{Name: "mcpcheck", Version: "0.9.0-test"},
		Target: Target{
			Kind:        TargetStdio,
			Role:        "server",
			Command:     `./bin/server --api-key sk-live-0123456789 --header "X-Custom-Auth: hunter2hunter2" ` + hostileScript,
			HeaderNames: []string{"X-Custom-Auth"},
		},
		Started:     started,
		Duration:    2500 * time.Millisecond,
		Versions:    []spec.Version{"2025-11-25", "2026-07-28"},
		Transport:   "stdio",
		LabelFilter: "level:must || level:should",
		Checks: []Check{
			{
				ID: "lifecycle/initialize/echoes-supported-version", Title: "Server echoes a supported protocol version",
				Requirements: []string{"lifecycle.initialize.version-echo"}, Level: catalog.Must, Area: "lifecycle",
				Version: "2025-11-25", Transport: "stdio", Outcome: Pass, Duration: at(4),
				Transcript: []WireEvent{
					{Offset: at(1), Direction: Sent, Raw: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`},
					{Offset: at(5), Direction: Received, Raw: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`},
				},
			},
			{
				ID: "lifecycle/initialize/result-shape", Title: "Initialize result has the required fields (tool " + hostileScript + ")",
				Requirements: []string{"lifecycle.initialize.result-shape"}, Level: catalog.Must, Area: "lifecycle",
				Version: "2025-11-25", Transport: "stdio", Outcome: Fail, Duration: at(6),
				Expected: "a result with protocolVersion, capabilities and serverInfo",
				Actual:   "serverInfo missing; server said: " + hostileImg + " " + hostileArea + " " + hostileJS,
				Transcript: []WireEvent{
					{Offset: at(7), Direction: Sent, Conn: 1, Raw: `{"jsonrpc":"2.0","id":2,"method":"initialize"}`},
					{Offset: at(8), Direction: Received, Conn: 1, Raw: `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"note":"` + hostileMD + `"}}`},
					{Offset: at(9), Direction: Received, Conn: 2, Raw: nonUTF8, Base64: true},
					{Offset: at(10), Direction: Received, Conn: 2, Raw: "stderr: " + ansiEscape + " \u202etxt.exe"},
					{Offset: at(11), Direction: Note, Conn: 2, Note: "server wrote a line that is not JSON"},
				},
			},
			{
				ID: "base/meta/server-info", Title: "Results carry server info in _meta",
				Requirements: []string{"base.meta.server-info-on-results"}, Level: catalog.Should, Area: "base",
				Version: "2025-11-25", Transport: "stdio", Outcome: Warn, Duration: at(3),
				Expected: "_meta with serverInfo on results", Actual: "no _meta",
			},
			{
				ID: "tools/call/unknown-tool-error", Title: "Unknown tool is a JSON-RPC error",
				Requirements: []string{"tools.call.unknown-tool-error"}, Level: catalog.Must, Area: "tools",
				Version: "2025-11-25", Transport: "stdio", Outcome: Untestable, Duration: at(1),
				Reason: "the server declares no tools capability fixture to call against",
			},
			{
				ID: "logging/set-level/accepted", Title: "logging/setLevel is accepted",
				Requirements: []string{"logging.set-level.accepted"}, Level: catalog.Should, Area: "logging",
				Version: "2025-11-25", Transport: "stdio", Outcome: NA,
				Reason: "the server did not declare the logging capability",
			},
			{
				ID: "transport-stdio/framing/newline", Title: "Messages are newline-delimited",
				Requirements: []string{"transport-stdio.framing.newline-delimited"}, Level: catalog.Must, Area: "transport-stdio",
				Version: "2025-11-25", Transport: "stdio", Outcome: Error, Duration: at(30000),
				Reason: "harness: write to the server's stdin failed: broken pipe",
			},
			{
				ID: "base/jsonrpc/no-null-id", Title: "Request ids are never null",
				Requirements: []string{"base.jsonrpc.no-null-id", "not.in.catalog"}, Level: catalog.MustNot, Area: "base",
				Version: "2025-11-25", Transport: "stdio", Outcome: Fail, Duration: at(2),
				Expected: "id is a string or integer", Actual: `"id": null`,
			},
			{
				ID: "ping/response/empty-result", Title: "Ping is answered with an empty result",
				Requirements: []string{"ping.response.empty-result"}, Level: catalog.Must, Area: "ping",
				Version: "2026-07-28", Transport: "streamable", Outcome: Pass, Duration: at(2),
			},
			{
				ID: "transport-http/session/reject-unknown", Title: "Unknown session is HTTP 404",
				Requirements: []string{"transport-http.session.reject-unknown"}, Level: catalog.Must, Area: "transport-http",
				Version: "2026-07-28", Transport: "streamable", Outcome: Fail, Duration: at(12),
				Expected: "HTTP 404", Actual: "HTTP 200 with a result; Authorization was Bearer SECRET-BEARER-IN-ACTUAL",
				Transcript: []WireEvent{
					{
						Offset: at(100), Direction: Sent,
						Raw: `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`,
						HTTP: &HTTPInfo{Method: "POST", URL: "https://mcp.example/mcp?access_token=SECRET-QUERY-TOKEN&x=1", Headers: map[string][]string{
							"Authorization":  {"Bearer SECRET-AUTH-HEADER"},
							"Cookie":         {"sid=SECRET-COOKIE"},
							"X-Custom-Auth":  {"SECRET-CUSTOM-HEADER"},
							"Mcp-Session-Id": {"made-up-session"},
						}},
					},
					{
						Offset: at(112), Direction: Received,
						Raw:  `{"jsonrpc":"2.0","id":9,"result":{"tools":[],"access_token":"SECRET-JSON-ACCESS","refresh_token":"SECRET-JSON-REFRESH","nested":"{\"client_secret\":\"SECRET-NESTED\"}","progressToken":"visible-progress"}}`,
						HTTP: &HTTPInfo{Status: 200, Headers: map[string][]string{"Content-Type": {"application/json"}, "Set-Cookie": {"sid=SECRET-SET-COOKIE"}}},
					},
					{Offset: at(113), Direction: Note, Note: "server echoed Authorization: Bearer SECRET-BEARER-IN-NOTE"},
				},
			},
			{
				ID: "tools/list/cursor-advances", Title: "Pagination cursors advance",
				Requirements: []string{"tools.list.pagination-cursor"}, Level: catalog.ShouldNot, Area: "tools",
				Version: "2026-07-28", Transport: "streamable", Outcome: Untestable,
				Reason: "needs at least two pages of tools",
			},
			{
				ID: "lifecycle/unset-outcome", Title: "A check the harness forgot to judge",
				Requirements: []string{"lifecycle.initialize.result-shape"}, Level: catalog.Must, Area: "lifecycle",
				Version: "2026-07-28", Transport: "streamable",
			},
			{
				ID: "lifecycle/initialize/echoes-supported-version", Title: "Server echoes a supported protocol version",
				Requirements: []string{"lifecycle.initialize.version-echo"}, Level: catalog.Must, Area: "lifecycle",
				Version: "2024-11-05", Transport: "stdio", Outcome: Pass, Duration: at(3),
			},
		},
		Fuzz: &FuzzSummary{
			Duration: 60 * time.Second, Seed: 42, Execs: 123456,
			Samples: []ThroughputSample{
				{Offset: 10 * time.Second, ExecsPerSec: 1800}, {Offset: 20 * time.Second, ExecsPerSec: 2100},
				{Offset: 30 * time.Second, ExecsPerSec: 2050}, {Offset: 40 * time.Second, ExecsPerSec: 1950},
				{Offset: 50 * time.Second, ExecsPerSec: 2200}, {Offset: 60 * time.Second, ExecsPerSec: 2080},
			},
			Findings: []Finding{
				{
					ID: "crash-7f3a", Kind: FindingCrash, Message: "server exited with status 2: panic: " + hostileScript,
					Reproducer: "mcpcheck replay findings/crash-7f3a.jsonl --stdio './bin/server --token SECRET-REPRO-TOKEN'",
					Input:      "findings/crash-7f3a.jsonl",
				},
				{
					ID: "violation-0c1d", Kind: FindingViolation, Requirements: []string{"base.jsonrpc.no-null-id"}, Level: catalog.MustNot,
					Message:    "a fuzzed request got a reply with a null id",
					Reproducer: "mcpcheck replay findings/violation-0c1d.jsonl --stdio ./bin/server",
				},
			},
		},
	}
	b := &Baseline{Source: "mcpcheck-baseline.json", Entries: []BaselineEntry{
		{Check: "transport-http/session/reject-unknown", Version: "2026-07-28", Requirements: []string{"transport-http.session.reject-unknown"}, Reason: "upstream issue #17: sessions are not validated yet"},
		{Check: "lifecycle/initialize/echoes-supported-version", Reason: "was broken in 0.8"}, // legacy: no requirements
		{Check: "resources/subscribe/removed-check", Requirements: []string{}, Reason: "check was renamed"},
		// Covers one of the two requirements the check breaks (the other is
		// new), and names one it no longer breaks (stale).
		{Check: "base/jsonrpc/no-null-id", Version: "2025-11-25", Requirements: []string{"base.jsonrpc.id-type", "not.in.catalog"}, Reason: "ids: upstream #21"},
	}}
	Apply(run, b)
	return run
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("update golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file %s: %v (run go test ./reports -update to create it)", path, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got); if the change is intended, run go test ./reports -update:\n%s", name, diff)
	}
}
