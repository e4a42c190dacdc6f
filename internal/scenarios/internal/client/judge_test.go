package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// rec builds a recording: each event a message of one peer on stdio
// connection 1, numbered in order.
func rec(msgs ...stage.Event) []stage.Event {
	for i := range msgs {
		msgs[i].Seq = i + 1
		if msgs[i].Conn == 0 && msgs[i].HTTP == nil {
			msgs[i].Conn = 1
		}
	}
	return msgs
}

// fromClient and fromStage are one message of the client or the stage.
func fromClient(raw string) stage.Event {
	return stage.Event{From: stage.FromClient, Frame: wire.Classify([]byte(raw))}
}

func fromStage(raw string) stage.Event {
	return stage.Event{From: stage.FromStage, Frame: wire.Classify([]byte(raw))}
}

// judgeRecording judges check id in version v on cases made of the
// recordings (scenario name -> events), as a run over transport would.
func judgeRecording(t *testing.T, id string, v spec.Version, transport wire.Transport, recs map[string][]stage.Event) reports.Check {
	t.Helper()
	var cases []*Case
	for name, evs := range recs {
		s := scenarioNamed(name)
		if s == nil {
			t.Fatalf("no scenario %s", name)
		}
		cases = append(cases, &Case{Scenario: s, Version: v, Transport: transport, Events: evs, Launched: true, Exit: "exited with status 0"})
	}
	return judgeCases(t, id, v, transport, cases)
}

// judgeCases judges check id in version v on cases, as a run over
// transport would.
func judgeCases(t *testing.T, id string, v spec.Version, transport wire.Transport, cases []*Case) reports.Check {
	t.Helper()
	return judgeInRun(t, id, v, transport, cases, nil)
}

// judgeInRun is judgeCases in a run whose launches are run (nil: the
// cases).
func judgeInRun(t *testing.T, id string, v spec.Version, transport wire.Transport, cases, run []*Case) reports.Check {
	t.Helper()
	var d *Def
	for _, c := range Checks() {
		if c.ID == id {
			d = &c
			break
		}
	}
	if d == nil {
		t.Fatalf("no check %s", id)
	}
	hr, err := harness.NewRun(harness.RunOptions{Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	rc := hr.Scope(v, transport).Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
		tt := &T{Check: c, transport: transport, cases: cases}
		if run != nil {
			tt.launches = caseList(run)
		}
		d.Body(tt)
	})
	for _, p := range hr.Problems() {
		t.Errorf("harness problem: %v", p)
	}
	return rc
}

const metaReq = `"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`

// TestEraCachedOneRedundantDiscover: Claude Code probes, opens
// subscriptions/listen, sends server/discover once more and lists the
// tools. One redundant discover is no "discover before each request": the
// probe that settled the era precedes the first request as it must. A
// client that probes again before every request still warns.
func TestEraCachedOneRedundantDiscover(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete"}}`
	req := func(id int, method string) stage.Event {
		return fromClient(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `",` + metaReq + `}`)
	}
	res := func(id int) stage.Event { return fromStage(sprintf(ok, id)) }
	claude := rec(req(1, "server/discover"), res(1), req(2, "subscriptions/listen"), res(2), req(3, "server/discover"), res(3), req(4, "tools/list"), res(4))
	if c := judgeRecording(t, "client/versioning/stateless-era-cached", spec.V20260728, Stdio, map[string][]stage.Event{"initialize": claude}); c.Outcome != reports.Pass {
		t.Errorf("one redundant discover: %s, want pass", describe(c))
	}
	every := rec(req(1, "server/discover"), res(1), req(2, "server/discover"), res(2), req(3, "tools/list"), res(3), req(4, "server/discover"), res(4), req(5, "tools/call"), res(5))
	if c := judgeRecording(t, "client/versioning/stateless-era-cached", spec.V20260728, Stdio, map[string][]stage.Event{"initialize": every}); c.Outcome != reports.Warn {
		t.Errorf("a discover before every request: %s, want warn", describe(c))
	}
}

// TestEraCachedProbeNotTakenUnderLoad: Claude Code 2.1.332 under load
// (load average 70) sent its probe, then initialize before it took the
// probe's answer, and when initialize was refused probed again, opened
// subscriptions/listen, sent one more server/discover and listed the
// tools. The probe it did not take settled nothing: counted from the
// discover after initialize there is one redundant discover, as in its
// unloaded runs (pass), not "a discover before each request".
func TestEraCachedProbeNotTakenUnderLoad(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete"}}`
	req := func(id int, method string) stage.Event {
		return fromClient(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `",` + metaReq + `}`)
	}
	res := func(id int) stage.Event { return fromStage(sprintf(ok, id)) }
	initialize := fromClient(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}`)
	refused := fromStage(`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"requested":"2025-11-25","supported":["2026-07-28"]}}}`)
	loaded := rec(req(9, "server/discover"), res(9), initialize, refused, req(1, "server/discover"), res(1), req(2, "subscriptions/listen"), res(2), req(3, "server/discover"), res(3), req(4, "tools/list"), res(4))
	if c := judgeRecording(t, "client/versioning/stateless-era-cached", spec.V20260728, Stdio, map[string][]stage.Event{"initialize": loaded}); c.Outcome != reports.Pass {
		t.Errorf("a probe not taken, then initialize: %s, want pass", describe(c))
	}
}

func itoa(n int) string { return sprintf("%d", n) }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

// TestIdentityNeutralNeedsTwoLaunches: a launch that never connected (Claude
// Code under load, within the case's 20 s) is compared with nothing:
// client/base/identity-neutral is untestable, not a warning blamed on the
// server's name; so is a launch cut short at the time limit while the
// other ended by itself.
func TestIdentityNeutralNeedsTwoLaunches(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list",` + metaReq + `}`
	ran := rec(fromClient(list), fromStage(`{"jsonrpc":"2.0","id":2,"result":{"tools":[],"resultType":"complete"}}`))
	c := judgeRecording(t, "client/base/identity-neutral", spec.V20260728, Stdio, map[string][]stage.Event{StatelessScenFlow: ran, StatelessScenIdentity: nil})
	if c.Outcome != reports.Untestable || !strings.Contains(c.Reason, "sent nothing") {
		t.Errorf("a launch that never connected: %s, want untestable saying the client sent nothing", describe(c))
	}
}

// TestPingAfterBrokenBatchIsTheBatchsVerdict: go-sdk v1.8.0 cannot decode
// the batch a 2025-03-26 server may send ("cannot unmarshal \"[{...\" into
// jsonrpc2.wireDecode") and exits; the ping the stage sent next goes
// unanswered. One defect, one verdict: client/base/batch-answered fails,
// client/ping/answers does not fail too.
func TestPingAfterBrokenBatchIsTheBatchsVerdict(t *testing.T) {
	evs := rec(
		fromClient(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`),
		fromStage(pingBatch),
		fromStage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`),
	)
	recs := map[string][]stage.Event{ServerRequestsScenario: evs}
	if c := judgeRecording(t, "client/base/batch-answered", spec.V20250326, Stdio, recs); c.Outcome != reports.Fail {
		t.Errorf("%s, want fail", describe(c))
	}
	if c := judgeRecording(t, "client/ping/answers", spec.V20250326, Stdio, recs); c.Outcome == reports.Fail {
		t.Errorf("%s, want no second verdict for the batch", describe(c))
	}
}

// TestCaseSensitiveNamesNeedBothListed: go-sdk's conformance client, run
// as http-invalid-tool-headers, lists one page of mcpcheck-pagination's
// tools (Pg_case on it, pg_case on the next) and calls what it listed. It
// never saw pg_case, so calling Pg_case alone is no confusion of the two:
// client/tools/case-sensitive-names is untestable, not a warning. A client
// given both that calls one only still warns.
func TestCaseSensitiveNamesNeedBothListed(t *testing.T) {
	page1 := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"pg_alpha","inputSchema":{"type":"object"}},{"name":"Pg_case","inputSchema":{"type":"object"}}],"nextCursor":"c"}}`
	page2 := `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"pg_case","inputSchema":{"type":"object"}}]}}`
	onePage := rec(
		fromClient(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		fromStage(page1),
		fromClient(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"Pg_case","arguments":{}}}`),
	)
	c := judgeRecording(t, "client/tools/case-sensitive-names", spec.V20251125, Stdio, map[string][]stage.Event{pgScenario: onePage})
	if c.Outcome != reports.Untestable {
		t.Errorf("one page listed: %s, want untestable", describe(c))
	}
	bothPages := rec(
		fromClient(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		fromStage(page1),
		fromClient(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}}`),
		fromStage(page2),
		fromClient(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"Pg_case","arguments":{}}}`),
	)
	c = judgeRecording(t, "client/tools/case-sensitive-names", spec.V20251125, Stdio, map[string][]stage.Event{pgScenario: bothPages})
	if c.Outcome != reports.Warn {
		t.Errorf("both pages listed, one tool called: %s, want warn", describe(c))
	}
}

// TestCaseSensitivePairOnOnePage: mcpcheck-pagination lists Pg_page and
// pg_page on its first page, so a client that lists one page only (go-sdk's
// conformance client, run as http-invalid-tool-headers) is judged too:
// both called by their own names pass, one name called for both warns.
func TestCaseSensitivePairOnOnePage(t *testing.T) {
	page1 := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"Pg_case","inputSchema":{"type":"object"}},{"name":"Pg_page","inputSchema":{"type":"object"}},{"name":"pg_page","inputSchema":{"type":"object"}}],"nextCursor":"c"}}`
	call := func(id, name string) stage.Event {
		return fromClient(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`)
	}
	list := fromClient(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	both := rec(list, fromStage(page1), call("3", "Pg_case"), call("4", "Pg_page"), call("5", "pg_page"))
	if c := judgeRecording(t, "client/tools/case-sensitive-names", spec.V20251125, Stdio, map[string][]stage.Event{pgScenario: both}); c.Outcome != reports.Pass {
		t.Errorf("one page listed, Pg_page and pg_page called: %s, want pass", describe(c))
	}
	folded := rec(list, fromStage(page1), call("3", "pg_case"), call("4", "pg_page"), call("5", "pg_page"))
	if c := judgeRecording(t, "client/tools/case-sensitive-names", spec.V20251125, Stdio, map[string][]stage.Event{pgScenario: folded}); c.Outcome != reports.Warn {
		t.Errorf("one page listed, pg_page called twice and Pg_page never: %s, want warn", describe(c))
	}
}

// TestCompareWithFlowNeedsTheLaunchToRun: a launch of the header-case or
// resultType-absent scenario that never connected, or was stopped at the
// time limit while the baseline ended by itself, is compared with nothing:
// untestable, not a failure blamed on the header names or the missing
// resultType. One that connected, listed and stopped by itself without
// calling the tool the baseline called still fails.
func TestCompareWithFlowNeedsTheLaunchToRun(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list",` + metaReq + `}`
	listed := fromStage(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"resultType":"complete"}}`)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	flow := rec(fromClient(list), listed, fromClient(call))
	judge := func(id, scen string, other []stage.Event, timedOut bool) reports.Check {
		t.Helper()
		recs := map[string][]stage.Event{StatelessScenFlow: flow, scen: other}
		var d *Def
		for _, c := range Checks() {
			if c.ID == id {
				d = &c
			}
		}
		run, err := harness.NewRun(harness.RunOptions{Transport: Streamable})
		if err != nil {
			t.Fatal(err)
		}
		var cases []*Case
		for name, evs := range recs {
			c := &Case{Scenario: scenarioNamed(name), Version: spec.V20260728, Transport: Streamable, Events: evs, Launched: true, Exit: "exited with status 0"}
			if name == scen && timedOut {
				c.TimedOut, c.Exit = true, "killed by the harness"
			}
			cases = append(cases, c)
		}
		return run.Scope(spec.V20260728, Streamable).Do(d.ID, d.Title, d.Requirements, func(c *harness.Check) {
			d.Body(&T{Check: c, transport: Streamable, cases: cases})
		})
	}
	for _, tc := range []struct{ id, scen string }{
		{"client/transport-http/stateless-header-name-case", StatelessScenHeaderCase},
		{"client/base/result-type-absent", StatelessScenResultAbsent},
	} {
		if c := judge(tc.id, tc.scen, nil, false); c.Outcome != reports.Untestable || !strings.Contains(c.Reason+c.Actual, "sent nothing") {
			t.Errorf("%s never connected: %s, want untestable saying the client sent nothing", tc.scen, describe(c))
		}
		if c := judge(tc.id, tc.scen, rec(fromClient(list), listed), true); c.Outcome != reports.Untestable || !strings.Contains(c.Reason+c.Actual, "time limit") {
			t.Errorf("%s stopped at the time limit: %s, want untestable", tc.scen, describe(c))
		}
		if c := judge(tc.id, tc.scen, rec(fromClient(list), listed), false); c.Outcome != reports.Fail {
			t.Errorf("%s listed and exited without the call: %s, want fail", tc.scen, describe(c))
		}
	}
}
