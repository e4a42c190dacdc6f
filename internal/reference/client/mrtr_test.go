package client

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// mrtrServer asks for one elicitation with state "s1", then answers.
func mrtrServer(state string, rounds int) func(f *fakeConn, m jsonrpc.Message) []string {
	var mu sync.Mutex
	seen := map[string]int{}
	return statelessServer(func(f *fakeConn, m jsonrpc.Message) []string {
		p := params(m)
		if m.Method != "tools/call" {
			return []string{result(m.ID, `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}`)}
		}
		var name string
		json.Unmarshal(p["name"], &name)
		mu.Lock()
		seen[name]++
		n := seen[name]
		mu.Unlock()
		if n <= rounds {
			ir := `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","default":true}}}}}}}`
			if state != "" {
				ir = strings.TrimSuffix(ir, "}") + `,"requestState":"` + state + `"}`
			}
			return []string{result(m.ID, ir)}
		}
		return []string{result(m.ID, `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`)}
	})
}

func formAccept() *Elicitation {
	return &Elicitation{Form: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: mcp.ActionAccept}, nil
	}}
}

func TestMRTRLoop(t *testing.T) {
	f := newFake(t, mrtrServer("opaque-state==", 1))
	c := connect(t, f, Options{Elicitation: formAccept()})
	res, err := c.CallTool(tctx(t), "echo_state", map[string]any{"x": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].Content.(*mcp.TextContent); !ok || tc.Text != "done" {
		t.Fatalf("result = %+v", res)
	}
	calls := f.sent("tools/call")
	if len(calls) != 2 {
		t.Fatalf("tools/call sent %d times; want 2", len(calls))
	}
	if calls[0].ID == calls[1].ID {
		t.Error("the retry reused the JSON-RPC id")
	}
	first, retry := params(calls[0]), params(calls[1])
	if _, ok := first["inputResponses"]; ok {
		t.Error("the first call carried inputResponses")
	}
	if string(retry["requestState"]) != `"opaque-state=="` {
		t.Errorf("requestState = %s; want the server's, byte for byte", retry["requestState"])
	}
	if string(retry["arguments"]) != `{"x":1}` {
		t.Errorf("arguments changed on retry: %s", retry["arguments"])
	}
	var ir map[string]mcp.ElicitResult
	if err := json.Unmarshal(retry["inputResponses"], &ir); err != nil || ir["confirm"].Action != mcp.ActionAccept || string(ir["confirm"].Content["ok"]) != "true" {
		t.Errorf("inputResponses = %s (%v); want confirm accepted with the default applied", retry["inputResponses"], err)
	}
}

func TestMRTRWithoutStateOmitsIt(t *testing.T) {
	f := newFake(t, mrtrServer("", 1))
	c := connect(t, f, Options{Elicitation: formAccept()})
	if _, err := c.CallTool(tctx(t), "no_state", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := params(f.sent("tools/call")[1])["requestState"]; ok {
		t.Error("the retry carried a requestState the server never sent")
	}
}

func TestMRTRBoundedRounds(t *testing.T) {
	f := newFake(t, mrtrServer("s", 1000))
	c := connect(t, f, Options{Elicitation: formAccept(), MaxRounds: 3})
	_, err := c.CallTool(tctx(t), "loop", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "3 rounds") {
		t.Fatalf("err = %v; want the loop stopped after 3 rounds", err)
	}
	if n := len(f.sent("tools/call")); n != 4 {
		t.Errorf("tools/call sent %d times; want 4 (first + 3 retries)", n)
	}
}

func TestMRTRMissingResultTypeIsComplete(t *testing.T) {
	f := newFake(t, statelessServer(func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "tools/list" {
			return []string{result(m.ID, `{"tools":[]}`)}
		}
		return []string{result(m.ID, `{"content":[{"type":"text","text":"legacy"}]}`)}
	}))
	c := connect(t, f, Options{})
	if _, err := c.CallTool(tctx(t), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sent("tools/call")); n != 1 {
		t.Errorf("tools/call sent %d times; a result without resultType is complete", n)
	}
}

func TestMRTRUnansweredInputFails(t *testing.T) {
	f := newFake(t, mrtrServer("s", 1))
	c := connect(t, f, Options{}) // no elicitation handler
	_, err := c.CallTool(tctx(t), "x", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "elicitation") {
		t.Fatalf("err = %v; want an error naming the unanswerable elicitation", err)
	}
}

func TestMRTRParallelIsolation(t *testing.T) {
	f := newFake(t, mrtrServer("state", 1))
	c := connect(t, f, Options{Elicitation: formAccept()})
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.CallTool(tctx(t), name, nil, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, m := range f.sent("tools/call") {
		p := params(m)
		_, hasIR := p["inputResponses"]
		_, hasRS := p["requestState"]
		if hasIR != hasRS {
			t.Errorf("a call mixed MRTR fields: %s", m.Params)
		}
	}
}
