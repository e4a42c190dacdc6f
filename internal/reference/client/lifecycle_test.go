package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestInitializeNegotiatesDown(t *testing.T) {
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "initialize" {
			return []string{result(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"old","version":"1"},"instructions":"be nice"}`)}
		}
		return nil
	})
	c := connect(t, f, Options{Version: spec.V20251125, Roots: []mcp.Root{}, Sampling: &Sampling{Model: ModelFunc(nil)}})
	if c.ProtocolVersion() != spec.V20250618 || c.ServerInfo().Name != "old" || c.Instructions() != "be nice" {
		t.Fatalf("negotiated %s with %+v", c.ProtocolVersion(), c.ServerInfo())
	}
	init := f.sent("initialize")[0]
	var p mcp.InitializeParams
	json.Unmarshal(init.Params, &p)
	if p.ProtocolVersion != "2025-11-25" || p.ClientInfo.Name == "" || p.Capabilities.Roots == nil || p.Capabilities.Sampling == nil || p.Capabilities.Elicitation != nil {
		t.Errorf("initialize params = %s", init.Params)
	}
	if len(f.sent("notifications/initialized")) != 1 {
		t.Error("notifications/initialized was not sent")
	}
}

func TestInitializeUnusableVersionDisconnects(t *testing.T) {
	for _, v := range []string{"1999-01-01", "2026-07-28", ""} {
		f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
			return []string{result(m.ID, `{"protocolVersion":"`+v+`","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)}
		})
		_, err := Connect(tctx(t), f, Options{Version: spec.V20251125, Timeout: time.Second})
		var ve *VersionError
		if !errors.As(err, &ve) {
			t.Errorf("server version %q: err = %v; want a VersionError", v, err)
		}
		select {
		case <-f.stop:
		default:
			t.Errorf("server version %q: the connection was not closed", v)
		}
		if len(f.sent("notifications/initialized")) != 0 {
			t.Errorf("server version %q: initialized was sent anyway", v)
		}
	}
}

func TestInitializeNeverCancelled(t *testing.T) {
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string { return nil }) // silent
	_, err := Connect(tctx(t), f, Options{Version: spec.V20251125, Timeout: 100 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v; want a TimeoutError", err)
	}
	if n := len(f.sent("notifications/cancelled")); n != 0 {
		t.Errorf("the client sent %d cancellations for initialize", n)
	}
}

func TestStatelessDiscoverAndMeta(t *testing.T) {
	f := newFake(t, statelessServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{result(m.ID, `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}`)}
	}))
	c := connect(t, f, Options{Elicitation: &Elicitation{Form: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) { return nil, nil }}})
	if !c.Stateless() || c.ProtocolVersion() != spec.V20260728 || c.ServerInfo().Name != "modern" {
		t.Fatalf("stateless=%v version=%s info=%+v", c.Stateless(), c.ProtocolVersion(), c.ServerInfo())
	}
	if _, err := c.ListTools(tctx(t)); err != nil {
		t.Fatal(err)
	}
	if len(f.sent("initialize")) != 0 {
		t.Error("a 2026-07-28 client sent initialize to a modern server")
	}
	for _, m := range append(f.sent("server/discover"), f.sent("tools/list")...) {
		var p struct {
			Meta mcp.Meta `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		v, _, _ := p.Meta.ProtocolVersion()
		caps, ok, _ := p.Meta.ClientCapabilities()
		_, infoOK, _ := p.Meta.ClientInfo()
		if v != "2026-07-28" || !ok || caps.Elicitation == nil || !infoOK {
			t.Errorf("%s _meta = %s", m.Method, m.Params)
		}
	}
}

func TestStatelessRetriesSupportedVersion(t *testing.T) {
	first := true
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "server/discover" && first {
			first = false
			return []string{errorResp(m.ID, -32022, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)}
		}
		return statelessServer(nil)(f, m)
	})
	c := connect(t, f, Options{})
	if !c.Stateless() || len(f.sent("server/discover")) != 2 {
		t.Fatalf("stateless=%v discovers=%d", c.Stateless(), len(f.sent("server/discover")))
	}
	a, b := f.sent("server/discover")[0], f.sent("server/discover")[1]
	if a.ID == b.ID {
		t.Error("the retry reused the JSON-RPC id")
	}
}

func TestStatelessFallsBackToInitialize(t *testing.T) {
	for name, answer := range map[string]func(id jsonrpc.ID) string{
		"method not found": func(id jsonrpc.ID) string { return errorResp(id, -32601, "no such method", "") },
		"only legacy":      func(id jsonrpc.ID) string { return errorResp(id, -32022, "nope", `{"supported":["2025-06-18"]}`) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
				if m.Method == "server/discover" {
					return []string{answer(m.ID)}
				}
				return statefulServer(nil)(f, m)
			})
			c := connect(t, f, Options{})
			if c.Stateless() || len(f.sent("initialize")) != 1 {
				t.Fatalf("stateless=%v initialize sent %d times", c.Stateless(), len(f.sent("initialize")))
			}
			var p mcp.InitializeParams
			json.Unmarshal(f.sent("initialize")[0].Params, &p)
			if name == "only legacy" && p.ProtocolVersion != "2025-06-18" {
				t.Errorf("offered %s; want the server's 2025-06-18", p.ProtocolVersion)
			}
		})
	}
}

func TestStatelessModernErrorDoesNotFallBack(t *testing.T) {
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{errorResp(m.ID, -32020, "header mismatch", "")}
	})
	_, err := Connect(tctx(t), f, Options{Timeout: time.Second})
	if err == nil || !IsCode(err, -32020) {
		t.Fatalf("err = %v; want the -32020 error surfaced", err)
	}
	if len(f.sent("initialize")) != 0 {
		t.Error("the client fell back to initialize on a modern error")
	}
}

func TestRequestTimeoutSendsCancel(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string { return nil }))
	c := connect(t, f, Options{Version: spec.V20251125})
	c.SetTimeout(100 * time.Millisecond)
	// tctx only bounds the test: a TimeoutError naming the 100ms is the
	// client's own timeout (the context's end would be a context error).
	_, err := c.ListTools(tctx(t))
	var te *TimeoutError
	if !errors.As(err, &te) || te.After != (100*time.Millisecond).String() {
		t.Fatalf("err = %v; want a TimeoutError after 100ms", err)
	}
	f.waitMethod(t, "notifications/cancelled")
	cs := f.sent("notifications/cancelled")
	if len(cs) != 1 || !strings.Contains(string(cs[0].Params), `"requestId":`+f.sent("tools/list")[0].ID.String()) {
		t.Fatalf("cancellations = %v", cs)
	}
}

func TestCallerCancellation(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string { return nil }))
	c := connect(t, f, Options{Version: spec.V20251125})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := c.ListPrompts(ctx); errc <- err }()
	f.waitMethod(t, "prompts/list")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestProgress(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		var p struct {
			Meta mcp.Meta `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		tok, _, _ := p.Meta.ProgressToken()
		return []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok.String() + `,"progress":1,"total":2}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}`,
			result(m.ID, `{"content":[]}`),
		}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	var got []float64
	_, err := c.CallTool(tctx(t), "slow", nil, &CallOptions{OnProgress: func(p mcp.ProgressNotificationParams) { got = append(got, p.Progress) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 1 {
		t.Fatalf("progress seen: %v", got)
	}
}

func TestSilentLegacyServerProbe(t *testing.T) {
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "server/discover" {
			return nil // a legacy server that ignores what it does not know
		}
		return statefulServer(nil)(f, m)
	})
	c := connect(t, f, Options{Timeout: time.Second})
	if c.Stateless() || c.ProtocolVersion() != spec.V20251125 {
		t.Fatalf("stateless=%v version=%s; want the fallback to initialize", c.Stateless(), c.ProtocolVersion())
	}
}
