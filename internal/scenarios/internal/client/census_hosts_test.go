package client

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestHeaderCaseBaselineWithoutEchoSaysSoOnce: a host that lists the tools
// and never calls one (Claude Code 2.1.332's 'claude mcp list' over
// streamable HTTP, census of 2026-12-02) leaves
// client/transport-http/stateless-header-name-case
// (transport-http.headers.case-insensitive-names) nothing to compare
// with. The check is untestable and says why in one sentence: it used to
// wrap the baseline's full sentence in a second "in scenario ... the
// client did not ...", once per case ("the client did not in scenario
// mcpcheck-stateless-flow the client did not call the tool echo ...").
func TestHeaderCaseBaselineWithoutEchoSaysSoOnce(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	listed := fromStage(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"resultType":"complete"}}`)
	c := judgeRecording(t, "client/transport-http/stateless-header-name-case", spec.V20260728, Streamable, map[string][]stage.Event{
		StatelessScenFlow:       rec(fromClient(list), listed),
		StatelessScenHeaderCase: rec(fromClient(list), listed),
	})
	why := c.Reason + c.Actual
	if c.Outcome != reports.Untestable {
		t.Fatalf("the baseline never called %s: %s, want untestable (requirement transport-http.headers.case-insensitive-names: nothing to compare with)", StatelessEchoTool, describe(c))
	}
	if strings.Contains(why, "did not in scenario") || strings.Count(why, "in scenario "+StatelessScenFlow) != 1 || !strings.Contains(why, "nothing to compare with") {
		t.Errorf("untestable reason %q: want one sentence naming %s once and saying there is nothing to compare with", why, StatelessScenFlow)
	}
}

// codexSessionCase is the recording of Codex 0.171.0's 'codex exec' over
// streamable HTTP in scenario initialize (census of 2026-12-02): it
// initializes, lists the tools and, when its turn ends (the census's fake
// model answers 400), DELETEs its session and exits with status 1; with
// deleted false the DELETE is left out.
func codexSessionCase(deleted bool) *Case {
	const url = "http://127.0.0.1:1/c/case/mcp"
	ev := func(from stage.Peer, kind wire.Kind, stream, raw string, h *wire.HTTPInfo) stage.Event {
		f := wire.Frame{Kind: kind, Stream: stream, HTTP: h}
		if raw != "" {
			m := jsonrpc.Decode([]byte(raw))
			f.Raw, f.Msg = m.Raw, m
		}
		return stage.Event{From: from, Frame: f}
	}
	req := func(method string, hdr http.Header) *wire.HTTPInfo {
		return &wire.HTTPInfo{Method: method, URL: url, Header: hdr}
	}
	ok := &wire.HTTPInfo{Status: http.StatusOK, Header: http.Header{"Mcp-Session-Id": {"s-1"}, "Content-Type": {"application/json"}}}
	inSession := http.Header{"Mcp-Session-Id": {"s-1"}, "Mcp-Protocol-Version": {"2025-06-18"}}
	evs := []stage.Event{
		ev(stage.FromClient, wire.KindMessage, "post-1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-mcp-client","version":"0.171.0"}}}`, req(http.MethodPost, http.Header{})),
		ev(stage.FromStage, wire.KindMessage, "post-1", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stage","version":"1"}}}`, ok),
		ev(stage.FromClient, wire.KindMessage, "post-2", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, req(http.MethodPost, inSession)),
		ev(stage.FromStage, wire.KindStatus, "post-2", "", &wire.HTTPInfo{Status: http.StatusAccepted, Header: http.Header{}}),
		ev(stage.FromClient, wire.KindMessage, "post-3", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":0}}}`, req(http.MethodPost, inSession)),
		ev(stage.FromStage, wire.KindMessage, "post-3", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, ok),
	}
	if deleted {
		evs = append(evs,
			ev(stage.FromClient, wire.KindHTTPRequest, "delete-1", "", req(http.MethodDelete, inSession)),
			ev(stage.FromStage, wire.KindHTTPRequest, "delete-1", "", &wire.HTTPInfo{Status: http.StatusOK, Header: http.Header{}}))
	}
	for i := range evs {
		evs[i].Seq = i + 1
	}
	return &Case{Scenario: scenarioNamed("initialize"), Version: spec.V20250618, Transport: Streamable, Launched: true,
		Events: evs, ExitCode: 1, Exit: "exited with status 1"}
}

// TestSessionDeleteCountsWhateverTheExit: client/transport-http/session-delete
// (transport-http.session.client-deletes-when-done) passes a client that
// DELETEd its session and then exited with a failure status, as Codex
// 0.171.0 does in the census (its turn fails on the fake model's 400);
// it used to be untestable there ("did not exit by itself (status 0)"),
// though the duty was seen done. Without the DELETE, such a launch stays
// untestable: a client that failed may not have been done with the
// session.
func TestSessionDeleteCountsWhateverTheExit(t *testing.T) {
	const id = "client/transport-http/session-delete"
	if c := judgeCase(t, id, codexSessionCase(true)); c.Outcome != reports.Pass {
		t.Errorf("the client sent DELETE for its session, then exited with status 1: %s, want pass", describe(c))
	}
	if c := judgeCase(t, id, codexSessionCase(false)); c.Outcome != reports.Untestable {
		t.Errorf("the client exited with status 1 without DELETE: %s, want untestable (a failing client may not be done with its session)", describe(c))
	}
}

// TestProbeFirstIsPerLaunch: Mastra's stdio client (@mastra/mcp 2.0.0,
// census of 2026-12-03) probes the server with server/discover on its
// first stdio connection, ends that process and starts the server again,
// opening the second connection with tools/list (or with initialize,
// after a legacy outcome). The probe is of the server: both
// client/discovery/probe-first-on-stdio and
// client/transport-stdio/stateless-probe-first pass such a launch, and
// still fail one whose first connection opens without the probe.
func TestProbeFirstIsPerLaunch(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	discover := fromClient(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	discovered := fromStage(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"resultType":"complete"}}`)
	list := fromClient(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	listed := fromStage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete"}}`)
	onConn := func(n int, evs ...stage.Event) []stage.Event {
		for i := range evs {
			evs[i].Conn = n
		}
		return evs
	}
	probedThenAgain := rec(append(onConn(1, discover, discovered), onConn(2, list, listed)...)...)
	unprobed := rec(append(onConn(1, list, listed), onConn(2, discover, discovered)...)...)
	for _, id := range []string{"client/discovery/probe-first-on-stdio", "client/transport-stdio/stateless-probe-first"} {
		if c := judgeRecording(t, id, spec.V20260728, Stdio, map[string][]stage.Event{StatelessScenFlow: probedThenAgain}); c.Outcome != reports.Pass {
			t.Errorf("%s on a launch that probed on its first connection and opened its second with tools/list: %s, want pass", id, describe(c))
		}
		if c := judgeRecording(t, id, spec.V20260728, Stdio, map[string][]stage.Event{StatelessScenFlow: unprobed}); c.Outcome != reports.Warn {
			t.Errorf("%s on a launch whose first connection opened with tools/list: %s, want warn", id, describe(c))
		}
	}
}
