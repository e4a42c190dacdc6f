package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Each test here plays a server that misbehaves on purpose; the client
// must end every call with a clear error in bounded time.

func TestHostileGarbageThenSilence(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{"this is not json", `{"jsonrpc":"1.0","id":` + m.ID.String() + `,"result":{}}`, `[]`, `{"id":null}`}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	c.SetTimeout(200 * time.Millisecond)
	_, err := c.ListResources(tctx(t))
	if err == nil {
		t.Fatal("no error from a server that answers garbage")
	}
	if !strings.Contains(err.Error(), "not valid JSON-RPC") {
		t.Fatalf("err = %v; want it to say the response is not valid JSON-RPC", err)
	}
}

func TestHostileOnlyGarbageNamesIt(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{"<html>502 Bad Gateway</html>"}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	c.SetTimeout(150 * time.Millisecond)
	_, err := c.ListPrompts(tctx(t))
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "502 Bad Gateway") {
		t.Fatalf("err = %v; want a timeout that quotes the garbage", err)
	}
}

func TestHostileLiesAboutIDs(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		n, _ := m.ID.Int()
		return []string{
			result(jsonrpc.IntID(n+1000), `{"tools":[]}`), // an id nobody used
			result(jsonrpc.StringID(m.ID.String()), `{}`), // right number, wrong type
		}
	}))
	var warnings atomic.Int32
	c := connect(t, f, Options{Version: spec.V20251125, Logf: func(string, ...any) { warnings.Add(1) }})
	c.SetTimeout(150 * time.Millisecond)
	_, err := c.ListTools(tctx(t))
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "no pending request") {
		t.Fatalf("err = %v; want a timeout naming the unknown ids", err)
	}
	if warnings.Load() == 0 {
		t.Error("unknown response ids were not logged")
	}
}

func TestHostileDuplicateResponse(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{result(m.ID, `{"tools":[]}`), result(m.ID, `{"tools":[{"name":"late"}]}`)}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	tools, err := c.ListTools(tctx(t))
	if err != nil || len(tools) != 0 {
		t.Fatalf("ListTools = %v, %v; want the first answer", tools, err)
	}
}

func TestHostileNotificationFlood(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		out := make([]string, 0, 2001)
		for i := range 2000 {
			out = append(out, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}`, i))
		}
		return append(out, result(m.ID, `{"prompts":[]}`))
	}))
	f.toClient = make(chan []byte, 4096)
	var seen atomic.Int32
	c := connect(t, f, Options{Version: spec.V20251125, OnNotification: func(string, json.RawMessage) { seen.Add(1) }})
	if _, err := c.ListPrompts(tctx(t)); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != 2000 {
		t.Errorf("saw %d notifications", seen.Load())
	}
}

func TestHostileRequestFlood(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	connect(t, f, Options{Version: spec.V20251125, MaxInFlight: 2, Elicitation: &Elicitation{Form: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		started <- struct{}{}
		<-release
		return &mcp.ElicitResult{Action: mcp.ActionDecline}, nil
	}}})
	for i := range 2 {
		f.push(fmt.Sprintf(`{"jsonrpc":"2.0","id":"e%d","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, i))
	}
	<-started
	<-started
	for i := range 20 {
		f.push(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
	}
	for i := range 20 {
		r := f.waitResponse(t, fmt.Sprint(i))
		if r.Error == nil || !strings.Contains(r.Error.Message, "already handling") {
			t.Fatalf("ping %d while the client is saturated: %s", i, r.Raw)
		}
	}
	close(release)
	for i := range 2 {
		if r := f.waitResponse(t, fmt.Sprintf(`"e%d"`, i)); r.Error != nil {
			t.Fatalf("elicitation %d: %s", i, r.Raw)
		}
	}
}

func TestHostileServerDisappears(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		go f.Close()
		return nil
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	_, err := c.ListTools(tctx(t))
	if err == nil || !strings.Contains(err.Error(), "connection") {
		t.Fatalf("err = %v; want the connection's end named", err)
	}
	if _, err := c.ListTools(tctx(t)); err == nil {
		t.Fatal("a call after the connection ended succeeded")
	}
}

func TestHostileWrongResultShape(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{result(m.ID, `{"tools":"all of them"}`)}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	_, err := c.ListTools(tctx(t))
	if err == nil || !strings.Contains(err.Error(), "tools/list") {
		t.Fatalf("err = %v", err)
	}
}

func TestHostileUnknownResultType(t *testing.T) {
	f := newFake(t, statelessServer(func(f *fakeConn, m jsonrpc.Message) []string {
		return []string{result(m.ID, `{"resultType":"maybe","prompts":[]}`)}
	}))
	c := connect(t, f, Options{})
	if _, err := c.ListPrompts(tctx(t)); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Fatalf("err = %v", err)
	}
}
