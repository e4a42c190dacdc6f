package client

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/harness"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// trFallbackCase is the recording of a client that initializes over
// streamable HTTP, gets a result naming version, and then GETs the
// endpoint for an SSE stream without an Mcp-Session-Id (the TypeScript
// SDK's fallback to the HTTP+SSE transport after it refused the revision).
func trFallbackCase(version string) *Case {
	const url = "http://127.0.0.1:1/c/case/mcp"
	init := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	res := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"` + version + `","capabilities":{},"serverInfo":{"name":"stage","version":"1"}}}`))
	return &Case{
		Scenario: &Scenario{Name: lcUnknownVersionScenario}, Version: spec.V20251125, Transport: Streamable, Launched: true,
		Events: []stage.Event{
			{Seq: 1, From: stage.FromClient, Frame: wire.Frame{Kind: wire.KindMessage, Raw: init.Raw, Msg: init, Stream: "post-1",
				HTTP: &wire.HTTPInfo{Method: http.MethodPost, URL: url, Header: http.Header{"Accept": {"application/json, text/event-stream"}}}}},
			{Seq: 2, From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindMessage, Raw: res.Raw, Msg: res, Stream: "post-1",
				HTTP: &wire.HTTPInfo{Status: http.StatusOK, Header: http.Header{"Mcp-Session-Id": {"s-1"}, "Content-Type": {"application/json"}}}}},
			{Seq: 3, From: stage.FromClient, Frame: wire.Frame{Kind: wire.KindHTTPRequest, Stream: "get-1",
				HTTP: &wire.HTTPInfo{Method: http.MethodGet, URL: url, Header: http.Header{"Accept": {"text/event-stream"}}}}},
			{Seq: 4, From: stage.FromStage, Frame: wire.Frame{Kind: wire.KindHTTPRequest, Stream: "get-1",
				HTTP: &wire.HTTPInfo{Status: http.StatusBadRequest, Header: http.Header{}}}},
		},
	}
}

// judgeCase runs check id's body over one case.
func judgeCase(t *testing.T, id string, cs *Case) reports.Check {
	t.Helper()
	def, ok := Lookup(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	run, err := harness.NewRun(harness.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return run.Scope(cs.Version, Streamable).Do(def.ID, def.Title, def.Requirements, func(c *harness.Check) {
		def.Body(&T{Check: c, Ctx: context.Background(), transport: Streamable, cases: []*Case{cs}})
	})
}

// TestSessionIDNewConnectionIsNew: a client that refused the revision
// 2099-01-01 and falls back to a new HTTP+SSE connection (a GET without a
// session id) is not failed for leaving the abandoned session's id off
// that new connection; the same GET inside a session the client went on
// with still fails client/transport-http/session-id.
func TestSessionIDNewConnectionIsNew(t *testing.T) {
	const id = "client/transport-http/session-id"
	if rc := judgeCase(t, id, trFallbackCase("2099-01-01")); rc.Outcome == reports.Fail || rc.Outcome == reports.Error {
		t.Errorf("the fallback connection after the refused revision was judged a request of the abandoned session: %s\n  expected: %s\n  actual: %s\n  reason: %s", rc.Outcome, rc.Expected, rc.Actual, rc.Reason)
	}
	if rc := judgeCase(t, id, trFallbackCase("2025-11-25")); rc.Outcome != reports.Fail {
		t.Errorf("a GET without the session id of a live session ended %s, want fail (%s %s)", rc.Outcome, rc.Actual, rc.Reason)
	}
}
