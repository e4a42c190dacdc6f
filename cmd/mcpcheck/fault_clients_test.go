package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/scenarios/officialsuite"
	"github.com/mcpcheck/mcpcheck/reports"
)

// faultClientRow is one client-side defect (issue 30) broken on purpose
// by a third-party client and the check that must catch it on its own
// requirement.
type faultClientRow struct {
	client    string // "mcpgo" (mcp-go v1.2.1) or "ts" (the TS SDK 1.32.2)
	transport string // "stdio" or "http"
	version   string
	fault     string // the client's -fault / --fault switch
	check     string
	req       string          // the requirement the check must cite
	want      reports.Outcome // what the check must conclude with the fault
	filter    string          // a --label-filter that keeps the run to the check's scenarios, or ""
	clear     string          // a check the same defect must not fail as well (one defect, one verdict), or ""
}

// faultClientRows covers each defect of issue 30 on both clients, over
// stdio and streamable HTTP between them, in both eras where the client
// speaks them: the TS SDK 1.32.2 speaks no 2026-07-28, so the defects of
// that version (per-request capabilities, batched requests, server/discover)
// are mcp-go's alone. The defects about HTTP (messages before the
// initialize result) run over HTTP on both.
var faultClientRows = []faultClientRow{
	// 1. An answer that breaks the version's schema fails the JSON-RPC rule.
	{"mcpgo", "stdio", "2025-11-25", "elicit-content-object", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	{"mcpgo", "http", "2026-07-28", "elicit-content-object", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	{"mcpgo", "http", "2025-06-18", "ping-result-meta-string", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	{"ts", "http", "2025-11-25", "elicit-content-object", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	// 2. A capability not declared (in 2026-07-28: in the request's _meta).
	{"mcpgo", "stdio", "2026-07-28", "roots-undeclared", "client/roots/declared", "roots.capability.client-declares", reports.Fail, "area:roots", ""},
	{"mcpgo", "http", "2026-07-28", "sampling-undeclared", "client/sampling/declared", "sampling.capability.client-declares", reports.Fail, "area:sampling", ""},
	{"mcpgo", "stdio", "2026-07-28", "elicitation-undeclared", "client/elicitation/declared", "elicitation.capability.client-declares", reports.Fail, "area:elicitation", ""},
	{"mcpgo", "http", "2025-11-25", "roots-undeclared", "client/roots/declared", "roots.capability.client-declares", reports.Fail, "area:roots", ""},
	{"ts", "stdio", "2025-11-25", "roots-undeclared", "client/roots/declared", "roots.capability.client-declares", reports.Fail, "area:roots", ""},
	// 3. An older version offered, by a client that refuses 2099-01-01.
	{"mcpgo", "http", "2025-11-25", "offer-older-version", "client/versioning/offers-latest", "versioning.initialize.client-offers-latest", reports.Warn, "area:versioning", ""},
	{"ts", "stdio", "2025-11-25", "offer-older-version", "client/versioning/offers-latest", "versioning.initialize.client-offers-latest", reports.Warn, "area:versioning", ""},
	// 4. A 2026-07-28 request as a one-element array.
	{"mcpgo", "stdio", "2026-07-28", "stateless-batch-requests", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	{"mcpgo", "http", "2026-07-28", "stateless-batch-requests", "client/base/jsonrpc", "base.jsonrpc.messages-are-jsonrpc-2", reports.Fail, "", ""},
	// 5. Over HTTP, messages sent while initialize is unanswered.
	{"mcpgo", "http", "2025-11-25", "cancel-initialize", "client/cancellation/not-initialize", "cancellation.initialize.never-cancelled", reports.Fail, "area:cancellation", "client/cancellation/in-flight"},
	{"ts", "http", "2025-11-25", "cancel-initialize", "client/cancellation/not-initialize", "cancellation.initialize.never-cancelled", reports.Fail, "area:cancellation", "client/cancellation/in-flight"},
	{"mcpgo", "http", "2025-11-25", "request-before-initialize-result", "client/lifecycle/ping-only-before-result", "lifecycle.initialize.client-only-ping-before-result", reports.Warn, "", ""},
	{"ts", "http", "2025-11-25", "request-before-initialize-result", "client/lifecycle/ping-only-before-result", "lifecycle.initialize.client-only-ping-before-result", reports.Warn, "", ""},
	// 6. initialize without clientInfo, protocolVersion or capabilities.
	{"mcpgo", "stdio", "2025-11-25", "initialize-no-client-info", "client/lifecycle/initialize-params", "lifecycle.initialize.client-sends-initialize", reports.Fail, "", "client/base/jsonrpc"},
	{"mcpgo", "http", "2025-11-25", "initialize-no-protocol-version", "client/lifecycle/initialize-params", "lifecycle.initialize.client-sends-initialize", reports.Fail, "", "client/base/jsonrpc"},
	{"mcpgo", "stdio", "2024-11-05", "initialize-no-capabilities", "client/lifecycle/initialize-params", "lifecycle.initialize.client-sends-initialize", reports.Fail, "", "client/base/jsonrpc"},
	{"ts", "stdio", "2025-06-18", "initialize-no-client-info", "client/lifecycle/initialize-params", "lifecycle.initialize.client-sends-initialize", reports.Fail, "", "client/base/jsonrpc"},
	// 7. One redundant server/discover is no probe before every request;
	// a probe before every request is.
	{"mcpgo", "stdio", "2026-07-28", "discover-twice", "client/versioning/stateless-era-cached", "versioning.compat.client-caches-era", reports.Pass, "area:versioning", ""},
	{"mcpgo", "http", "2026-07-28", "reprobe-era", "client/versioning/stateless-era-cached", "versioning.compat.client-caches-era", reports.Warn, "area:versioning", ""},
}

// TestFaultClientsCaughtOnTheirRule runs each row's third-party client
// with its fault through 'mcpcheck client' and holds the row's check to
// its outcome, citing the row's requirement (and the row's clear check to
// no failure: one defect, one verdict). The check must not draw that
// outcome from the client without the fault, so it is the fault that is
// caught: for mcp-go's client a run without it in the same version,
// transport and selection; for the TS SDK client (whose runs take
// minutes) its committed interop verdicts (reports/interop/CLIENTS.json,
// which list every check it fails or warns on). A client that cannot be
// had here (mcp-go not buildable from the module cache or proxy, the
// lab's TS SDK or node missing) skips its rows, saying why. Run by make
// fault-clients (MCPCHECK_SLOW=1): about 35 client runs, mcp-go's 10-40 s
// each, the TS SDK's one to six minutes on a loaded 2-core machine.
func TestFaultClientsCaughtOnTheirRule(t *testing.T) {
	slowTier(t)
	bin := mcpcheckBin(t)
	clients := faultClients(t)
	clean := map[string]*reports.Run{}
	for _, row := range faultClientRows {
		name := strings.Join([]string{row.client, row.transport, row.version, row.fault}, "/")
		t.Run(name, func(t *testing.T) {
			cl := clients[row.client]
			if !cl.ok {
				t.Skip(cl.why)
			}
			run := runFaultClient(t, bin, cl, row, row.fault)
			got, found := checkOf(run, row.check, row.version)
			if !found {
				t.Fatalf("%s: no verdict of %s in %s", row.fault, row.check, row.version)
			}
			if got.Outcome != row.want || !slices.Contains(got.Requirements, row.req) {
				t.Fatalf("%s (%s, %s, %s) broke %s: want %s citing %s, got %s citing %v: %s %s",
					row.fault, row.client, row.transport, row.version, row.req, row.want, row.req, got.Outcome, got.Requirements, got.Reason, got.Actual)
			}
			if row.clear != "" {
				if c, ok := checkOf(run, row.clear, row.version); ok && c.Outcome == reports.Fail {
					t.Errorf("%s (%s, %s, %s) failed %s as well (one defect, one verdict): %s", row.fault, row.client, row.transport, row.version, row.clear, c.Actual)
				}
			}
			if row.want == reports.Pass {
				return // a no-breach row: the fault-free client proves nothing more
			}
			if row.client == "ts" {
				if v, ok := committedVerdict(t, "ts-sdk-client", row); ok && v == row.want {
					t.Fatalf("without a fault, the TS SDK client draws %s from %s in %s too (reports/interop/CLIENTS.json); the row proves nothing", v, row.check, row.version)
				}
				return
			}
			key := strings.Join([]string{row.client, row.transport, row.version, row.filter}, "|")
			base, seen := clean[key]
			if !seen {
				base = runFaultClient(t, bin, cl, row, "")
				clean[key] = base
			}
			if b, ok := checkOf(base, row.check, row.version); ok && b.Outcome == row.want {
				t.Fatalf("without a fault, %s (%s, %s, %s) draws %s too: %s %s; the row proves nothing", row.check, row.client, row.transport, row.version, b.Outcome, b.Reason, b.Actual)
			}
		})
	}
}

// committedVerdict is the fail or warn the committed client matrix
// records for the row's check on the named interop client (false: it
// records neither, or the client is not in it).
func committedVerdict(t *testing.T, name string, row faultClientRow) (reports.Outcome, bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "reports", "interop", "CLIENTS.json"))
	if err != nil {
		t.Fatalf("the committed client matrix: %v", err)
	}
	var m struct {
		Servers []struct {
			Name     string `json:"name"`
			Violated []struct {
				ID      string          `json:"id"`
				Version string          `json:"version"`
				Outcome reports.Outcome `json:"outcome"`
			} `json:"violated"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("reports/interop/CLIENTS.json: %v", err)
	}
	tr := row.transport
	if tr == "http" {
		tr = "streamable"
	}
	listed := false
	for _, s := range m.Servers {
		if s.Name != name+" ("+tr+")" {
			continue
		}
		listed = true
		for _, v := range s.Violated {
			if v.ID == row.check && v.Version == row.version {
				return v.Outcome, true
			}
		}
	}
	if !listed {
		t.Fatalf("%s (%s) is not in reports/interop/CLIENTS.json: no fault-free verdicts to compare with", name, tr)
	}
	return 0, false
}

// faultClient is how to launch one of the fault clients.
type faultClient struct {
	ok  bool
	why string
	// argv builds the client's command line for a transport and fault
	// ("" for none), with {server} or {url} for mcpcheck to fill in.
	argv func(transport, fault string) string
	env  []string
}

// faultClients builds mcp-go's fault client (its own module, from the Go
// module cache or proxy, never our go.mod) and finds the TS SDK of the lab.
func faultClients(t *testing.T) map[string]faultClient {
	t.Helper()
	out := map[string]faultClient{}
	dir := t.TempDir()
	mg := filepath.Join(dir, "mcpgo-client")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", mg, ".")
	build.Dir = filepath.Join("..", "interop", "clients", "mcpgo-client")
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if msg, err := build.CombinedOutput(); err != nil {
		out["mcpgo"] = faultClient{why: "mcp-go v1.2.1's fault client does not build (is the Go module proxy reachable, or mcp-go in the module cache?): " + err.Error() + ": " + firstLine(string(msg))}
	} else {
		out["mcpgo"] = faultClient{ok: true, argv: func(tr, fault string) string {
			f := ""
			if fault != "" {
				f = "-fault " + fault + " "
			}
			if tr == "stdio" {
				return mg + " " + f + "-stdio {server}"
			}
			return mg + " " + f + "{url}"
		}}
	}
	sdk := filepath.Join(officialsuite.LabDir(), "npm", "node_modules", "@modelcontextprotocol", "sdk")
	script, _ := filepath.Abs(filepath.Join("..", "interop", "clients", "ts-client.mjs"))
	node, nodeErr := exec.LookPath("node")
	switch _, err := os.Stat(filepath.Join(sdk, "package.json")); {
	case err != nil:
		out["ts"] = faultClient{why: "the lab's TS SDK is not installed (" + sdk + "); run ../shared/lab/setup.sh or set MCPCHECK_LAB"}
	case nodeErr != nil:
		out["ts"] = faultClient{why: "no node on PATH for the TS SDK client: " + nodeErr.Error()}
	default:
		out["ts"] = faultClient{ok: true, env: []string{"MCP_SDK_DIR=" + sdk}, argv: func(tr, fault string) string {
			f := ""
			if fault != "" {
				f = "--fault " + fault + " "
			}
			if tr == "stdio" {
				return node + " " + script + " " + f + "--stdio {server}"
			}
			return node + " " + script + " " + f + "{url}"
		}}
	}
	return out
}

// runFaultClient runs 'mcpcheck client' on cl with fault in row's version,
// transport and selection, and returns its JSON report. mcpcheck bounds
// its own run (--deadline); the test's bound on top kills its process
// group.
func runFaultClient(t *testing.T, bin string, cl faultClient, row faultClientRow, fault string) *reports.Run {
	t.Helper()
	out := t.TempDir()
	flag := "--command"
	if row.transport == "stdio" {
		flag = "--stdio"
	}
	args := []string{"client", flag, cl.argv(row.transport, fault), "--protocol", row.version,
		"--startup-timeout", "5m", "--deadline", "15m", "--format", "json", "--out", out}
	if row.filter != "" {
		args = append(args, "--label-filter", row.filter)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), cl.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("mcpcheck client did not run: %v", err)
	}
	// Without a fault a narrow selection may judge nothing (exit 3): its
	// report still says what the check concluded.
	if ee != nil && ee.ExitCode() != exitOK && ee.ExitCode() != exitFailed && (fault != "" || ee.ExitCode() != exitHarness) {
		t.Fatalf("mcpcheck client %s (fault %q) exited %d, want 0 or 1 (judged)\nstderr: %s", cl.argv(row.transport, fault), fault, ee.ExitCode(), tail(stderr.String(), 2000))
	}
	f, err := os.Open(filepath.Join(out, "mcpcheck-client.json"))
	if err != nil {
		t.Fatalf("no JSON report: %v\nstderr: %s", err, tail(stderr.String(), 2000))
	}
	defer f.Close()
	run, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatalf("the JSON report is unreadable: %v", err)
	}
	return run
}

// checkOf returns the verdict of check id in version v.
func checkOf(run *reports.Run, id, v string) (reports.Check, bool) {
	for _, c := range run.Checks {
		if c.ID == id && string(c.Version) == v {
			return c, true
		}
	}
	return reports.Check{}, false
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
