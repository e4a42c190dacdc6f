package schema

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// want describes one expected violation: its kind and pointer, and a piece
// of its message.
type want struct {
	kind    Kind
	pointer string
	msg     string
}

func TestValidate(t *testing.T) {
	const (
		c2s = spec.ClientToServer
		s2c = spec.ServerToClient
	)
	meta26 := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	tests := []struct {
		name   string
		v      spec.Version
		from   spec.Direction
		method string
		raw    string
		want   []want
	}{
		{"valid tools/call", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`, nil},
		{"missing tool name", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
			[]want{{KindSchema, "/params/name", `required member "name" is missing`}}},
		{"every violation reported", spec.V20251125, c2s, "", `{"jsonrpc":"1.0","id":true,"method":"tools/call","params":{"name":3}}`,
			[]want{{KindSchema, "/jsonrpc", `must be exactly "2.0"`}, {KindSchema, "/id", "must be a JSON integer or a JSON string"}, {KindSchema, "/params/name", "must be a JSON string"}}},
		{"not JSON", spec.V20251125, c2s, "", `{"jsonrpc":`, []want{{KindNotJSON, "", "not valid JSON"}}},
		{"empty input", spec.V20251125, c2s, "", ``, []want{{KindNotJSON, "", "not valid JSON"}}},
		{"trailing data", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, []want{{KindNotJSON, "", "not valid JSON"}}},
		{"absurd nesting", spec.V20251125, c2s, "", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), []want{{KindNotJSON, "", "not valid JSON"}}},
		{"JSON but not an object", spec.V20251125, c2s, "", `42`, []want{{KindNotMessage, "", "is a JSON number"}}},
		{"neither request nor response", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1}`, []want{{KindNotMessage, "", "neither method"}}},
		{"unknown method", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/run"}`,
			[]want{{KindUnknownMethod, "/method", `"tools/run" does not exist in protocol version 2025-11-25`}}},
		{"removed method", spec.V20260728, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			[]want{{KindUnknownMethod, "/method", `"ping" does not exist`}}},
		{"wrong direction", spec.V20251125, s2c, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			[]want{{KindWrongDirection, "/method", "only the client may send"}}},
		{"both directions ok", spec.V20251125, s2c, "", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, nil},
		{"notification sent as request", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`,
			[]want{{KindWrongKind, "/id", "is a notification but the message has an id"}}},
		{"request sent as notification", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","method":"tools/list"}`,
			[]want{{KindWrongKind, "", "is a request but the message has no id"}}},
		{"null id", spec.V20251125, c2s, "", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
			[]want{{KindSchema, "/id", "is a JSON null"}}},
		{"result checked against the method", spec.V20251125, s2c, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`,
			[]want{{KindSchema, "/result/tools/0/inputSchema", `required member "inputSchema" is missing`}}},
		{"task result accepted for tools/call", spec.V20251125, s2c, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T00:00:00Z","lastUpdatedAt":"2025-11-25T00:00:00Z","ttl":null}}}`, nil},
		{"content block discriminated by type", spec.V20251125, s2c, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"txt","text":"a"}]}}`,
			[]want{{KindSchema, "/result/content/0/type", `is "txt", but must be`}}},
		{"response from the wrong peer", spec.V20251125, c2s, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
			[]want{{KindWrongDirection, "", "the client answered"}}},
		{"answer to a notification", spec.V20251125, c2s, "notifications/initialized", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			[]want{{KindWrongKind, "", "never answered"}}},
		{"both result and error", spec.V20251125, s2c, "", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
			[]want{{KindNotMessage, "", "both result and error"}}},
		{"URL elicitation error needs its data", spec.V20251125, s2c, "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"go there"}}`,
			[]want{{KindSchema, "/error/data", `required member "data" is missing`}}},
		{"batch outside 2025-03-26", spec.V20251125, c2s, "", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			[]want{{KindBatch, "", "has no batching"}}},
		{"stateless request needs _meta", spec.V20260728, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
			[]want{{KindSchema, "/params/_meta", `required member "_meta" is missing`}}},
		{"stateless request valid", spec.V20260728, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`, nil},
		{"protocolVersion in _meta", spec.V20260728, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			[]want{{KindSchema, "/params/_meta/io.modelcontextprotocol~1protocolVersion", "is missing"}}},
		{"resultType must be known", spec.V20260728, s2c, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"done"}}`,
			[]want{{KindSchema, "/result/resultType", `is "done", but must be "complete" or "input_required"`}}},
		{"resultType required", spec.V20260728, s2c, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}`,
			[]want{{KindSchema, "/result/resultType", "is missing"}}},
		{"cacheable results need ttlMs and cacheScope", spec.V20260728, s2c, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":-1}}`,
			[]want{{KindSchema, "/result/ttlMs", "below the minimum 0"}, {KindSchema, "/result/cacheScope", "is missing"}}},
		{"input_required needs requests or state", spec.V20260728, s2c, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}`,
			[]want{{KindSchema, "/result", `at least one of the members "inputRequests" or "requestState"`}}},
		{"input_required valid", spec.V20260728, s2c, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"roots/list"}},"requestState":"abc"}}`, nil},
		{"carrier request inside inputRequests checked", spec.V20260728, s2c, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"sampling/createMessage","params":{"messages":[]}}}}}`,
			[]want{{KindSchema, "/result/inputRequests/q/params/maxTokens", "is missing"}}},
		{"carrier sent as a message", spec.V20260728, s2c, "", `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`,
			[]want{{KindCarrier, "/method", "travels only inside the inputRequests"}}},
		{"carrier answered as a response", spec.V20260728, c2s, "roots/list", `{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`,
			[]want{{KindCarrier, "", "inputResponses"}}},
		{"retired error code", spec.V20260728, s2c, "resources/read", `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"not found"}}`,
			[]want{{KindSchema, "/error/code", "retired"}}},
		{"unsupported version error data", spec.V20260728, s2c, "tools/list", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"requested":"1999-01-01"}}}`,
			[]want{{KindSchema, "/error/data/supported", "is missing"}}},
		{"missing capability error valid", spec.V20260728, s2c, "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"no","data":{"requiredCapabilities":{"sampling":{}}}}}`, nil},
		{"subscriptions/listen result", spec.V20260728, s2c, "subscriptions/listen", `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{}}}`,
			[]want{{KindSchema, "/result/_meta/io.modelcontextprotocol~1subscriptionId", "is missing"}}},
		{"JSON values may be fractional or null", spec.V20260728, c2s, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"experimental":{"x":{"a":2.5,"b":null}}}}}}`, nil},
		{"version without schema", spec.Version("1999-01-01"), c2s, "", `{}`, []want{{KindNoSchema, "", "not a released protocol version"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Validate(tc.v, tc.from, tc.method, []byte(tc.raw))
			if len(tc.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("Validate(%s) = %v, want no violations", tc.raw, got)
				}
				return
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					if g.Kind == w.kind && g.Pointer == w.pointer && strings.Contains(g.Message, w.msg) {
						found = true
					}
				}
				if !found {
					t.Errorf("Validate(%s): missing violation {%s %q ...%q...}; got:\n%s", tc.raw, w.kind, w.pointer, w.msg, list(got))
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("Validate(%s): got %d violations, want %d:\n%s", tc.raw, len(got), len(tc.want), list(got))
			}
			for _, g := range got {
				if g.Kind == KindSchema && !strings.HasPrefix(g.Schema, FileName(tc.v)+"#/$defs/") {
					t.Errorf("violation %v: schema location should start with %s#/$defs/", g, FileName(tc.v))
				}
			}
		})
	}
}

func list(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s %s\n", v.Kind, v)
	}
	return b.String()
}

func TestValidateDef(t *testing.T) {
	if got := ValidateDef(spec.V20251125, "Tool", []byte(`{"name":"t","inputSchema":{"type":"object"}}`)); len(got) != 0 {
		t.Errorf("valid Tool: %v", got)
	}
	got := ValidateDef(spec.V20251125, "Tool", []byte(`{"name":"t","inputSchema":{"type":"array"}}`))
	if len(got) != 1 || got[0].Pointer != "/inputSchema/type" {
		t.Errorf("Tool with array inputSchema: got %v, want one violation at /inputSchema/type", got)
	}
	got = ValidateDef(spec.V20251125, "NoSuchType", []byte(`{}`))
	if len(got) != 1 || got[0].Kind != KindNoSchema || !strings.Contains(got[0].Message, `"NoSuchType"`) {
		t.Errorf("unknown definition: got %v", got)
	}
	got = ValidateDef(spec.V20251125, "Tool", []byte(`{`))
	if len(got) != 1 || got[0].Kind != KindNotJSON {
		t.Errorf("not JSON: got %v", got)
	}
}

// TestValidateConcurrent validates from many goroutines at once while the
// schemas are still being compiled (run with -race).
func TestValidateConcurrent(t *testing.T) {
	msgs := []struct {
		v      spec.Version
		method string
		raw    string
	}{
		{spec.V20251125, "", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}}`},
		{spec.V20251125, "prompts/get", `{"jsonrpc":"2.0","id":1,"result":{"messages":[]}}`},
		{spec.V20260728, "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`},
		{spec.V20260728, "server/discover", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`},
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				m := msgs[(i+j)%len(msgs)]
				from := spec.ClientToServer
				if m.method != "" || strings.Contains(m.raw, "notifications/progress") {
					from = spec.ServerToClient
				}
				if got := Validate(m.v, from, m.method, []byte(m.raw)); len(got) != 0 {
					t.Errorf("Validate(%s) = %v, want none", m.raw, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkValidate(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp","limit":10},"_meta":{"progressToken":"p1"}}}`)
	res := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"found 3"},{"type":"resource_link","uri":"file:///a.txt","name":"a"}],"isError":false}}`)
	bad := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"txt"}],"isError":"no"}}`)
	Validate(spec.V20251125, spec.ClientToServer, "", req) // compile outside the timer
	Validate(spec.V20251125, spec.ServerToClient, "tools/call", res)
	b.Run("request", func(b *testing.B) {
		for b.Loop() {
			Validate(spec.V20251125, spec.ClientToServer, "", req)
		}
	})
	b.Run("result", func(b *testing.B) {
		for b.Loop() {
			Validate(spec.V20251125, spec.ServerToClient, "tools/call", res)
		}
	})
	b.Run("invalid-result", func(b *testing.B) {
		for b.Loop() {
			Validate(spec.V20251125, spec.ServerToClient, "tools/call", bad)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				Validate(spec.V20251125, spec.ServerToClient, "tools/call", res)
			}
		})
	})
}
