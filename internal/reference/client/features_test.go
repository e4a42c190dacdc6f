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

func TestPagination(t *testing.T) {
	pages := map[string]string{
		"":   `{"resources":[{"uri":"a:1","name":"1"}],"nextCursor":"c2"}`,
		"c2": `{"resources":[{"uri":"a:2","name":"2"}],"nextCursor":"c3"}`,
		"c3": `{"resources":[{"uri":"a:3","name":"3"}]}`,
	}
	loop := map[string]string{
		"":  `{"prompts":[{"name":"p1"}],"nextCursor":"x"}`,
		"x": `{"prompts":[{"name":"p2"}],"nextCursor":"y"}`,
		"y": `{"prompts":[{"name":"p3"}],"nextCursor":"x"}`,
	}
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		var cur string
		json.Unmarshal(params(m)["cursor"], &cur)
		if m.Method == "prompts/list" {
			return []string{result(m.ID, loop[cur])}
		}
		return []string{result(m.ID, pages[cur])}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	res, err := c.ListResources(tctx(t))
	if err != nil || len(res) != 3 || res[2].URI != "a:3" {
		t.Fatalf("ListResources = %v, %v", res, err)
	}
	ps, err := c.ListPrompts(tctx(t))
	var le *CursorLoopError
	if !errors.As(err, &le) || len(ps) != 3 {
		t.Fatalf("ListPrompts = %d items, %v; want a CursorLoopError after 3", len(ps), err)
	}
}

func TestOutputSchemaValidation(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "tools/list" {
			return []string{result(m.ID, `{"tools":[{"name":"w","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}}]}`)}
		}
		var p mcp.CallToolParams
		json.Unmarshal(m.Params, &p)
		switch string(p.Arguments) {
		case `{"k":"good"}`:
			return []string{result(m.ID, `{"content":[],"structuredContent":{"temp":21.5}}`)}
		case `{"k":"bad"}`:
			return []string{result(m.ID, `{"content":[],"structuredContent":{"temp":"warm"}}`)}
		case `{"k":"error"}`:
			return []string{result(m.ID, `{"content":[{"type":"text","text":"boom"}],"isError":true}`)}
		}
		return []string{result(m.ID, `{"content":[]}`)}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	ctx := tctx(t)
	if _, err := c.CallTool(ctx, "w", map[string]string{"k": "good"}, nil); err != nil {
		t.Errorf("valid structuredContent: %v", err)
	}
	var oe *OutputSchemaError
	if res, err := c.CallTool(ctx, "w", map[string]string{"k": "bad"}, nil); !errors.As(err, &oe) || res == nil || !strings.Contains(err.Error(), "temp") {
		t.Errorf("invalid structuredContent: %v (result %v)", err, res)
	}
	if _, err := c.CallTool(ctx, "w", map[string]string{"k": "missing"}, nil); !errors.As(err, &oe) {
		t.Errorf("missing structuredContent: %v", err)
	}
	if _, err := c.CallTool(ctx, "w", map[string]string{"k": "error"}, nil); err != nil {
		t.Errorf("an isError result is not validated: %v", err)
	}
}

func TestRoots(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	c := connect(t, f, Options{Version: spec.V20251125, Roots: []mcp.Root{{URI: "file:///home/user/project", Name: "project"}}})
	f.push(`{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`)
	resp := f.waitResponse(t, `"r1"`)
	if !strings.Contains(string(resp.Result), `"uri":"file:///home/user/project"`) {
		t.Fatalf("roots/list answer = %s", resp.Raw)
	}
	for _, bad := range []string{"https://example.com/x", "file://host/x", "file:///a/../b", "file:relative", "file:///a?q=1"} {
		if err := c.SetRoots([]mcp.Root{{URI: bad}}); err == nil {
			t.Errorf("SetRoots accepted %q", bad)
		}
	}
	if err := c.SetRoots([]mcp.Root{{URI: "file:///tmp"}}); err != nil {
		t.Fatal(err)
	}
	if len(f.sent("notifications/roots/list_changed")) != 1 {
		t.Error("no notifications/roots/list_changed after SetRoots")
	}
	if r, err := RootFromPath("/srv/data/../x", "x"); err != nil || r.URI != "file:///srv/x" {
		t.Errorf("RootFromPath = %v, %v", r, err)
	}
}

func TestRootsUndeclared(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	connect(t, f, Options{Version: spec.V20251125})
	f.push(`{"jsonrpc":"2.0","id":5,"method":"roots/list"}`)
	if resp := f.waitResponse(t, "5"); resp.Error == nil || resp.Error.Code != jsonrpc.MethodNotFound {
		t.Fatalf("answer = %s; want -32601", resp.Raw)
	}
}

type echoModel struct{ calls int }

func (m *echoModel) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	m.calls++
	return &mcp.CreateMessageResult{Content: mcp.Single(&mcp.TextContent{Text: "hi"}), Model: "echo"}, nil
}

func TestSampling(t *testing.T) {
	model := &echoModel{}
	approve := true
	f := newFake(t, statefulServer(nil))
	connect(t, f, Options{Version: spec.V20251125, Sampling: &Sampling{Model: model, Approve: func(context.Context, *mcp.CreateMessageParams) (bool, error) { return approve, nil }}})
	ask := func(id, params string) jsonrpc.Message {
		f.push(`{"jsonrpc":"2.0","id":"` + id + `","method":"sampling/createMessage","params":` + params + `}`)
		return f.waitResponse(t, `"`+id+`"`)
	}
	plain := `{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":10}`
	if r := ask("s1", plain); r.Error != nil || !strings.Contains(string(r.Result), `"model":"echo"`) || !strings.Contains(string(r.Result), `"role":"assistant"`) {
		t.Errorf("plain sampling = %s", r.Raw)
	}
	withTools := `{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":10,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
	if r := ask("s2", withTools); r.Error == nil || r.Error.Code != jsonrpc.InvalidParams {
		t.Errorf("tools without sampling.tools = %s; want -32602", r.Raw)
	}
	approve = false
	if r := ask("s3", plain); r.Error == nil || r.Error.Code != codeUserRejected {
		t.Errorf("declined = %s; want an error", r.Raw)
	}
	if model.calls != 1 {
		t.Errorf("the model ran %d times; want 1", model.calls)
	}
}

func TestSamplingToolResults(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	connect(t, f, Options{Version: spec.V20251125, Sampling: &Sampling{Model: &echoModel{}, Tools: true}})
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"t","input":{}},{"type":"tool_use","id":"u2","name":"t","input":{}}]}`
	cases := map[string]struct {
		second string
		ok     bool
	}{
		"complete": {`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]},{"type":"tool_result","toolUseId":"u2","content":[]}]}`, true},
		"missing":  {`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]}]}`, false},
		"mixed":    {`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]},{"type":"tool_result","toolUseId":"u2","content":[]},{"type":"text","text":"and"}]}`, false},
		"none":     {`{"role":"user","content":{"type":"text","text":"ignored"}}`, false},
		"foreign":  {`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]},{"type":"tool_result","toolUseId":"u2","content":[]},{"type":"tool_result","toolUseId":"zz","content":[]}]}`, false},
	}
	i := 0
	for name, tc := range cases {
		i++
		id := "t" + itoa(i)
		f.push(`{"jsonrpc":"2.0","id":"` + id + `","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"go"}},` + use + `,` + tc.second + `],"maxTokens":5,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`)
		r := f.waitResponse(t, `"`+id+`"`)
		if tc.ok != (r.Error == nil) || (!tc.ok && r.Error.Code != jsonrpc.InvalidParams) {
			t.Errorf("%s: answer %s", name, r.Raw)
		}
	}
}

func TestElicitationForm(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	connect(t, f, Options{Version: spec.V20251125, Elicitation: &Elicitation{Form: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		c := map[string]json.RawMessage{}
		if strings.Contains(p.Message, "wrong") {
			c["age"] = json.RawMessage(`"old"`)
		}
		return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: c}, nil
	}}})
	schema := `{"type":"object","properties":{"name":{"type":"string","default":"Ann"},"age":{"type":"integer","default":30},"score":{"type":"number","default":9.5},"status":{"type":"string","enum":["a","b"],"default":"b"},"verified":{"type":"boolean","default":true}}}`
	f.push(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"fill","requestedSchema":` + schema + `}}`)
	r := f.waitResponse(t, "1")
	var res mcp.ElicitResult
	json.Unmarshal(r.Result, &res)
	want := map[string]string{"name": `"Ann"`, "age": "30", "score": "9.5", "status": `"b"`, "verified": "true"}
	for k, v := range want {
		if string(res.Content[k]) != v {
			t.Errorf("content[%s] = %s; want the default %s (answer %s)", k, res.Content[k], v, r.Raw)
		}
	}
	f.push(`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"wrong","requestedSchema":` + schema + `}}`)
	if r := f.waitResponse(t, "2"); r.Error == nil {
		t.Errorf("content that breaks the schema was sent: %s", r.Raw)
	}
	f.push(`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"mode":"url","message":"go","url":"https://example.com/x","elicitationId":"e1"}}`)
	if r := f.waitResponse(t, "3"); r.Error == nil || r.Error.Code != jsonrpc.InvalidParams {
		t.Errorf("URL mode without a URL handler = %s; want -32602", r.Raw)
	}
}

func TestElicitationURLConsentAndRequired(t *testing.T) {
	var shown []string
	var opened []string
	calls := 0
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "tools/list" {
			return []string{result(m.ID, `{"tools":[]}`)}
		}
		calls++
		if calls == 1 {
			return []string{
				errorResp(m.ID, -32042, "needs auth", `{"elicitations":[{"mode":"url","message":"log in","url":"https://auth.example/x?state=abc#frag","elicitationId":"e9"}]}`),
				`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e9"}}`,
			}
		}
		return []string{result(m.ID, `{"content":[{"type":"text","text":"ok"}]}`)}
	}))
	c := connect(t, f, Options{Version: spec.V20251125, Elicitation: &Elicitation{
		URL: func(ctx context.Context, p *mcp.ElicitParams) (mcp.ElicitAction, error) {
			shown = append(shown, p.URL)
			return mcp.ActionAccept, nil
		},
		Open: func(ctx context.Context, u string) error { opened = append(opened, u); return nil },
	}})
	if _, err := c.CallTool(tctx(t), "private", nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(shown) != 1 || shown[0] != "https://auth.example/x?state=abc#frag" || len(opened) != 1 {
		t.Errorf("consent saw %v, opened %v; want the full URL once", shown, opened)
	}
	if calls != 2 {
		t.Errorf("tools/call sent %d times; want a retry after the elicitation", calls)
	}
}

func TestURLElicitationRequiredWithoutHandler(t *testing.T) {
	f := newFake(t, statefulServer(func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method == "tools/list" {
			return []string{result(m.ID, `{"tools":[]}`)}
		}
		return []string{errorResp(m.ID, -32042, "needs auth", `{"elicitations":[{"mode":"url","message":"m","url":"https://a.example","elicitationId":"e"}]}`)}
	}))
	c := connect(t, f, Options{Version: spec.V20251125})
	_, err := c.CallTool(tctx(t), "x", nil, nil)
	var ue *URLElicitationRequiredError
	if !errors.As(err, &ue) || len(ue.Elicitations) != 1 {
		t.Fatalf("err = %v", err)
	}
}

func TestTaskRequestor(t *testing.T) {
	polls := 0
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		switch m.Method {
		case "initialize":
			return []string{result(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"t","version":"1"}}`)}
		case "tools/list":
			return []string{result(m.ID, `{"tools":[{"name":"long","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)}
		case "tools/call":
			if _, ok := params(m)["task"]; !ok {
				return []string{errorResp(m.ID, -32602, "task required", "")}
			}
			return []string{result(m.ID, `{"task":{"taskId":"T1","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null,"pollInterval":60}}`)}
		case "tasks/get":
			polls++
			st := "working"
			if polls >= 2 {
				st = "completed"
			}
			return []string{result(m.ID, `{"taskId":"T1","status":"`+st+`","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null,"pollInterval":60}`)}
		case "tasks/result":
			return []string{result(m.ID, `{"content":[{"type":"text","text":"finished"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}`)}
		}
		return nil
	})
	c := connect(t, f, Options{Version: spec.V20251125})
	start := time.Now()
	res, err := c.CallTool(tctx(t), "long", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc := res.Content[0].Content.(*mcp.TextContent); tc.Text != "finished" || polls != 2 {
		t.Fatalf("result %q after %d polls", tc.Text, polls)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("polled twice in %v; the server asked for pollInterval 60ms", d)
	}
}

func TestTaskReceiver(t *testing.T) {
	f := newFake(t, statefulServer(nil))
	connect(t, f, Options{Version: spec.V20251125, Tasks: true, Sampling: &Sampling{Model: &echoModel{}}})
	init := f.sent("initialize")[0]
	if !strings.Contains(string(init.Params), `"tasks":{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}}}}`) {
		t.Errorf("initialize capabilities = %s", init.Params)
	}
	f.push(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":5,"task":{"ttl":60000}}}`)
	r := f.waitResponse(t, "1")
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(r.Result, &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("task creation answer = %s", r.Raw)
	}
	id := created.Task.TaskID
	f.push(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	r = f.waitResponse(t, "2")
	if !strings.Contains(string(r.Result), `"model":"echo"`) || !strings.Contains(string(r.Result), id) {
		t.Fatalf("tasks/result = %s", r.Raw)
	}
	f.push(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"` + id + `"}}`)
	if r = f.waitResponse(t, "3"); !strings.Contains(string(r.Result), `"status":"completed"`) {
		t.Fatalf("tasks/get = %s", r.Raw)
	}
	f.push(`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"` + id + `"}}`)
	if r = f.waitResponse(t, "4"); r.Error == nil || r.Error.Code != jsonrpc.InvalidParams {
		t.Fatalf("cancelling a completed task = %s; want -32602", r.Raw)
	}
	f.push(`{"jsonrpc":"2.0","id":5,"method":"tasks/list"}`)
	if r = f.waitResponse(t, "5"); !strings.Contains(string(r.Result), id) {
		t.Fatalf("tasks/list = %s", r.Raw)
	}
}

func TestListenSubscription(t *testing.T) {
	f := newFake(t, statelessServer(func(f *fakeConn, m jsonrpc.Message) []string {
		if m.Method != "subscriptions/listen" {
			return nil
		}
		sub := `"_meta":{"io.modelcontextprotocol/subscriptionId":` + m.ID.String() + `}`
		return []string{
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},` + sub + `}}`,
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{` + sub + `}}`,
		}
	}))
	c := connect(t, f, Options{})
	s, err := c.Listen(tctx(t), mcp.SubscriptionFilter{ToolsListChanged: mcp.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Acknowledged.ToolsListChanged == nil {
		t.Error("acknowledged filter lost")
	}
	select {
	case n := <-s.Notifications():
		if n.Method != "notifications/tools/list_changed" {
			t.Errorf("got %s", n.Method)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification on the subscription")
	}
	s.Close()
	<-s.Done()
}

// TestTasksOnlyInVersionsWithTasks: tasks exist in 2025-11-25 only. A
// client with tasks turned on that offers 2025-06-18 declares no tasks
// capability, and against a 2025-06-18 server that (wrongly) declares
// tasks for tools/call it never sends a task-augmented tools/call: a tool
// that requires a task is refused with an error that says why.
func TestTasksOnlyInVersionsWithTasks(t *testing.T) {
	f := newFake(t, func(f *fakeConn, m jsonrpc.Message) []string {
		switch m.Method {
		case "initialize":
			return []string{result(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"t","version":"1"}}`)}
		case "tools/list":
			return []string{result(m.ID, `{"tools":[{"name":"long","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)}
		case "tools/call":
			return []string{result(m.ID, `{"content":[]}`)}
		}
		return nil
	})
	c := connect(t, f, Options{Version: spec.V20250618, Tasks: true, Sampling: &Sampling{Model: &echoModel{}}})
	if init := f.sent("initialize")[0]; strings.Contains(string(init.Params), `"tasks"`) {
		t.Errorf("offering 2025-06-18, the client declared tasks: %s", init.Params)
	}
	_, err := c.CallTool(tctx(t), "long", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no core tasks") {
		t.Errorf("CallTool of a task-required tool on 2025-06-18: err = %v; want a refusal naming the missing core tasks", err)
	}
	for _, m := range f.sent("tools/call") {
		if _, ok := params(m)["task"]; ok {
			t.Errorf("the client sent a task-augmented tools/call on 2025-06-18: %s", m.Params)
		}
	}
}
