package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestStatefulHandshakeAndBuiltInClient(t *testing.T) {
	conn, fake := startFake(t, "")
	s := NewStateful(conn, Config{})
	ctx := ctxT(t)
	res, err := s.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "fake" || s.Version() != spec.V20251125 || s.ServerCapabilities().Tools == nil {
		t.Fatalf("init = %+v", res)
	}
	var lt mcp.ListToolsResult
	if _, err := s.CallInto(ctx, "tools/list", nil, &lt); err != nil || len(lt.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, lt)
	}
	r := s.Call(ctx, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}})
	if !r.OK() {
		t.Fatalf("tools/call: %s", r.Describe())
	}
	answers := <-fake.answers
	var sm mcp.CreateMessageResult
	json.Unmarshal(answers[`"s1"`], &sm)
	if sm.Model != "mcpcheck-canned" || sm.StopReason != mcp.StopEndTurn {
		t.Errorf("sampling answer = %s", answers[`"s1"`])
	}
	var el mcp.ElicitResult
	json.Unmarshal(answers[`"s2"`], &el)
	if el.Action != mcp.ActionAccept || len(el.Content) != 3 || len(string(el.Content["name"])) < 12 || string(el.Content["n"]) != "3" || string(el.Content["c"]) != `"red"` {
		t.Errorf("elicitation answer = %s", answers[`"s2"`])
	}
	if !strings.Contains(string(answers[`"s3"`]), "file:///mcpcheck/root") || string(answers[`"s4"`]) != "{}" {
		t.Errorf("roots/ping answers = %s %s", answers[`"s3"`], answers[`"s4"`])
	}
	if got := len(s.ServerRequests()); got != 4 {
		t.Errorf("%d server requests recorded", got)
	}
	if fs := s.Findings(); len(fs) != 0 {
		t.Errorf("a conformant fake produced findings: %v", fs)
	}
	if s.Validator().Checked() < 7 {
		t.Errorf("only %d messages validated", s.Validator().Checked())
	}
}

func TestStatefulSchemaFindings(t *testing.T) {
	conn, _ := startFake(t, "bad-schema")
	s := NewStateful(conn, Config{Version: spec.V20250618})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	r := s.Call(ctx, "tools/list", nil)
	if !r.OK() {
		t.Fatal(r.Describe())
	}
	fs := s.Findings()
	if len(fs) != 1 || fs[0].Kind != FindingSchema || fs[0].Method != "tools/list" || !strings.Contains(fs[0].String(), "/result/tools") {
		t.Fatalf("findings = %v", fs)
	}
}

func TestStatefulWrongIDTimesOut(t *testing.T) {
	conn, _ := startFake(t, "wrong-id")
	s := NewStateful(conn, Config{})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	id, _, _ := s.Request(ctx, "ping", nil)
	obs := s.WaitFor(ctx, expect.Options{Timeout: 100 * time.Millisecond}, expect.AnyResponse(id))
	if obs.Status != expect.TimedOut || len(obs.Others) != 1 || !strings.Contains(obs.Actual, "id 999") {
		t.Fatalf("observed = %+v", obs)
	}
}

func TestStatefulGarbageIsSeenNotFatal(t *testing.T) {
	conn, _ := startFake(t, "garbage")
	s := NewStateful(conn, Config{})
	ctx := ctxT(t)
	if _, err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	r := s.Call(ctx, "ping", nil)
	if !r.OK() || len(r.Observed.Others) != 1 || r.Observed.Others[0].Kind != wire.KindGarbage {
		t.Fatalf("%+v", r.Observed)
	}
	if n := len(s.Irregular()); n != 2 { // one before initialize's answer, one before ping's
		t.Errorf("%d irregular frames kept, want 2", n)
	}
}

func TestBuiltInClientRefusesUndeclared(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		version spec.Version
		kind    FindingKind
	}{
		{"sampling-tools", spec.V20250618, FindingUndeclared},
		{"unbalanced", spec.V20251125, FindingToolBalance},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			conn, fake := startFake(t, tc.mode)
			s := NewStateful(conn, Config{Version: tc.version})
			ctx := ctxT(t)
			if _, err := s.Open(ctx); err != nil {
				t.Fatal(err)
			}
			if r := s.Call(ctx, "tools/call", map[string]any{"name": "ask"}); !r.OK() {
				t.Fatal(r.Describe())
			}
			a := <-fake.answers
			if !strings.Contains(string(a[`"s1"`]), "-32602") {
				t.Errorf("answer = %s, want an invalid-params error", a[`"s1"`])
			}
			fs := s.Findings()
			if len(fs) != 1 || fs[0].Kind != tc.kind {
				t.Errorf("findings = %v", fs)
			}
		})
	}
}

func TestCannedModelUsesToolsWhenRequired(t *testing.T) {
	s := NewStateful(nopConn{}, Config{})
	p := &mcp.CreateMessageParams{Tools: []mcp.Tool{{Name: "weather"}}, ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceRequired},
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "hi"})}}}
	r := s.canned(p)
	if r.StopReason != mcp.StopToolUse || len(r.Content.Blocks) != 1 {
		t.Fatalf("%+v", r)
	}
	p.Messages = append(p.Messages,
		mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: r.Content},
		mcp.SamplingMessage{Role: mcp.RoleUser, Content: mcp.Many(&mcp.ToolResultContent{ToolUseID: "mcpcheck-call-1", Content: []mcp.ContentBlock{mcp.Text("sunny")}})})
	if err := toolBalance(p.Messages); err != nil {
		t.Fatal(err)
	}
	if r := s.canned(p); r.StopReason != mcp.StopEndTurn {
		t.Fatalf("after the tool result the model must answer with text: %+v", r)
	}
}
