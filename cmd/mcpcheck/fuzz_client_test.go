package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFuzzClientReferenceIsClean: short client campaigns against the
// reference client, over stdio and HTTP, in 2025-11-25 and 2026-07-28,
// end with no finding and write the summary JSON and the HTML report. The
// campaigns run the non-race mcpcheck binary (mcpcheckBin): it is the
// reference client and the relay its stdio servers run, and the race-built
// test binary takes a second to start. The reference client gets a short
// request timeout, so that inputs that leave a request unanswered cost
// little. 10 executions each (each launches the client; 20 took 38 s of
// CPU for the four): every HTTP client mutator is also played against
// the reference client, unjudged, by fuzz's TestClientPlayerOverHTTP.
func TestFuzzClientReferenceIsClean(t *testing.T) {
	t.Parallel()
	bin := mcpcheckBin(t)
	ref := shellQuote(bin) + " reference client conformance --timeout 2s"
	const execs = 10
	for _, tc := range []struct{ name, flag, cmd, proto string }{
		{"stdio-2025-11-25", "--client-stdio", ref + " --stdio {server-line}", "2025-11-25"},
		{"http-2025-11-25", "--client", ref, "2025-11-25"},
		{"stdio-2026-07-28", "--client-stdio", ref + " --stdio {server-line}", "2026-07-28"},
		{"http-2026-07-28", "--client", ref, "2026-07-28"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runBin(t, "fuzz", tc.flag, tc.cmd, "--protocol", tc.proto, "--max-execs", strconv.Itoa(execs), "--seed", "7", "--workers", "2",
				"--client-timeout", "5s", "--out", out, "--format", "text,json,html", "--findings", filepath.Join(dir, "findings"))
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			res := readCampaign(t, filepath.Join(out, "mcpcheck-fuzz.json"))
			if res.Role != "client" || res.Execs != execs || len(res.Findings) != 0 || res.Verdict.Failed || res.Client == nil || len(res.Client.Requests) < 2 {
				t.Errorf("campaign: role %q, %d execs, %d findings, verdict %+v, clean run %+v", res.Role, res.Execs, len(res.Findings), res.Verdict, res.Client)
			}
			if !strings.Contains(stdout, "clean run:") || !strings.Contains(stdout, "OK: no findings") {
				t.Errorf("summary on stdout:\n%s", stdout)
			}
			if b, err := os.ReadFile(filepath.Join(out, "mcpcheck-fuzz.html")); err != nil || len(b) == 0 {
				t.Errorf("the HTML report: %v", err)
			}
		})
	}
}

// TestFuzzClientUsage: the client flags are checked against the server
// ones, and a client finding is replayed against a client only.
func TestFuzzClientUsage(t *testing.T) {
	dir := t.TempDir()
	finding := filepath.Join(dir, "finding")
	if err := os.MkdirAll(finding, 0o755); err != nil {
		t.Fatal(err)
	}
	replay := `{"format":1,"version":"2025-11-25","input":{"seed":1,"chunks":null,"client":{"trigger":"tools/list","nth":1,"drop":true}},"original":{"seed":1,"chunks":null},"expect":{"kind":"crash","check":"crash/x","message":"x"},"signature":"x"}`
	if err := os.WriteFile(filepath.Join(finding, "replay.json"), []byte(replay), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"fuzz", "--client", "x", "--client-stdio", "y"},
		{"fuzz", "--client", "x", "--stdio", "y"},
		{"fuzz", "--client", "x", "--header", "A:b"},
		{"fuzz", "--client", "x", "--shard", "3/2"},
		{"fuzz", "--client", "x", "--max-rss", "lots"},
		{"fuzz", "--client", "x", "--client-timeout", "0s"},
		{"fuzz", "--client", "x", "--mutators", "http"},
		{"fuzz", "--client-stdio", "x", "--mutators", "no-such-family"},
		{"fuzz", "--stdio", "x", "--max-rss", "1GiB"},
		{"fuzz", "--stdio", "x", "--scenario", "tools_call"},
		{"replay", finding, "--stdio", "x"},
		{"replay", finding, "--client", "x", "--url", "http://127.0.0.1:1/mcp"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "mcpcheck:") {
			t.Errorf("mcpcheck %s: exit %d, want 2 with an explanation; stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	code, out, _ := runCLI("fuzz", "--help")
	if code != exitOK || !strings.Contains(out, "--client-stdio") || !strings.Contains(out, "--max-rss") {
		t.Errorf("fuzz --help does not describe client campaigns:\n%s", out)
	}
	code, out, _ = runCLI("fuzz", "--list-mutators")
	if code != exitOK || !strings.Contains(out, "server/storm") || !strings.Contains(out, "sse/keep-alive") {
		t.Errorf("fuzz --list-mutators lists no client mutators:\n%s", out)
	}
	for in, want := range map[string]uint64{"512MiB": 512 << 20, "2GiB": 2 << 30, "1G": 1 << 30, "4096": 4096} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
