package oracle

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
)

func TestTopLevelMember(t *testing.T) {
	deep := `{"jsonrpc":"2.0","params":{"deep":` + strings.Repeat("[", 20000) + "0" + strings.Repeat("]", 20000) + `},"id" : "a\"b","method":"tools/list"}`
	if got := string(topLevelMember([]byte(deep), "id")); got != `"a\"b"` {
		t.Errorf("id = %s", got)
	}
	if got := string(topLevelMember([]byte(deep), "method")); got != `"tools/list"` {
		t.Errorf("method = %s", got)
	}
	if got := topLevelMember([]byte(`{"params":{"id":1}}`), "id"); got != nil {
		t.Errorf("found a nested id: %s", got)
	}
	if got := string(topLevelMember([]byte(`{"id":-12,"x":1}`), "id")); got != "-12" {
		t.Errorf("id = %s", got)
	}
	if got := string(topLevelMember([]byte(`{"id":{"a":[1,"}"]},"x":1}`), "id")); got != `{"a":[1,"}"]}` {
		t.Errorf("object id = %s", got)
	}
}

// TestJudge covers the oracle decisions one frame at a time.
func TestJudge(t *testing.T) {
	deepReq := `{"jsonrpc":"2.0","id":1000,"method":"tools/list","params":{"deep":` + strings.Repeat("[", 20000) + "0" + strings.Repeat("]", 20000) + `}}`
	cases := []struct {
		name   string
		v      spec.Version
		sent   string
		frame  string
		check  string // "" for no observation
		status int    // HTTP status of the frame (0: stdio)
	}{
		{"answer to a sent request", spec.V20251125, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, "", 0},
		{"answer to nothing", spec.V20251125, ``, `{"jsonrpc":"2.0","id":1,"result":{}}`, "response/id-unknown", 0},
		{"parse error with null id", spec.V20241105, `nope`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, "", 0},
		{"echoed forbidden boolean id", spec.V20251125, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"error":{"code":-32600,"message":"bad id"}}`, "", 0},
		{"echoed float id as integer", spec.V20251125, `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, "", 0},
		{"answer to a request too deep for our codec", spec.V20251125, deepReq, `{"jsonrpc":"2.0","id":1000,"error":{"code":-32603,"message":"x"}}`, "", 0},
		{"answer to a pretty-printed request", spec.V20251125, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"p\u00e9\",\n  \"method\": \"ping\"\n}\n", `{"jsonrpc":"2.0","id":"pé","result":{}}`, "", 0},
		{"refusal of a request without method", spec.V20251125, `{"jsonrpc":"2.0","id":-1,"params":{}}`, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32600,"message":"invalid request"}}`, "", 0},
		{"answer to a response", spec.V20251125, `{"jsonrpc":"2.0","id":-1,"result":{}}`, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32601,"message":"Method not found"}}`, "response/to-a-response", 0},
		{"id of invalid UTF-8, one U+FFFD per broken sequence", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\xc8\xbax\",\"method\":\"nope\"}", `{"jsonrpc":"2.0","id":"\ufffd\u023ax","error":{"code":-32601,"message":"Method not found"}}`, "", 0},
		{"id of invalid UTF-8, bytes dropped", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\xc8\xbax\",\"method\":\"nope\"}", `{"jsonrpc":"2.0","id":"\u023ax","error":{"code":-32601,"message":"Method not found"}}`, "", 0},
		{"id of invalid UTF-8, another id", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\xc8\xbax\",\"method\":\"nope\"}", `{"jsonrpc":"2.0","id":"\u023ay","error":{"code":-32601,"message":"Method not found"}}`, "response/id-unknown", 0},
		{"echoed exotic number id as the double it reads", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1e-400,\"method\":\"re\"}", `{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`, "", 0},
		{"echoed huge number id as the double it reads", spec.V20251125, `{"jsonrpc":"2.0","id":12345678901234567890.0,"method":"ping"}`, `{"jsonrpc":"2.0","id":12345678901234567000,"result":{}}`, "", 0},
		{"another number than the forbidden id", spec.V20251125, `{"jsonrpc":"2.0","id":1e-400,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, "response/id-unknown", 0},
		{"id beyond 2^53 echoed as the double it reads", spec.V20251125, `{"jsonrpc":"2.0","id":9007199254740993,"method":"completion/complete","params":{}}`, `{"jsonrpc":"2.0","id":9007199254740992,"error":{"code":-32601,"message":"completions not supported"}}`, "response/id-beyond-2-53-changed", 0},
		{"id beyond 2^53 echoed exactly", spec.V20251125, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`, "", 0},
		{"result to a request with a boolean id", spec.V20251125, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"result":{}}`, "jsonrpc/result-to-a-bad-id", 0},
		{"result to a request with an array id", spec.V20260728, `{"jsonrpc":"2.0","id":[1, 2],"method":"ping"}`, `{"jsonrpc":"2.0","id":[1,2],"result":{}}`, "jsonrpc/result-to-a-bad-id", 0},
		{"result to a request with a null id", spec.V20251125, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"result":{}}`, "", 0},
		{"result to a request with a fraction id", spec.V20251125, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"result":{}}`, "", 0},
		{"result to an id member sent twice (a decoder may read either)", spec.V20251125, `{"jsonrpc":"2.0","id":7,"id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"result":{}}`, "", 0},
		{"int64 id of a broken request echoed as a double", spec.V20251125, `{"jsc":"2.0","id":-9223372036854775808,"method":"resbe"}`, `{"jsonrpc":"2.0","id":-9223372036854776000,"error":{"code":-32600,"message":"Invalid JSON-RPC version"}}`, "response/id-beyond-2-53-changed", 0},
		{"id within 2^53 answered with another", spec.V20251125, `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740990,"result":{}}`, "response/id-unknown", 0},
		{"refusal of a broken response", spec.V20251125, `{"error":{"ce":-601,"mes":"no"},"id":0,"rpc":"2.0"}`, `{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"Invalid JSON-RPC version"}}`, "", 0},
		{"same id reused for two methods", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}\n{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"tools/list\"}", `{"jsonrpc":"2.0","id":"","result":{}}`, "", 0},
		{"not json on stdout", spec.V20251125, ``, `Server started!`, "framing/stdout-not-json", 0},
		{"result and error", spec.V20241105, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "jsonrpc/result-and-error", 0},
		{"batch in a version without batches", spec.V20251125, ``, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}]`, "jsonrpc/batch", 0},
		{"echoed forbidden object id", spec.V20260728, `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{}}`, `{"jsonrpc":"2.0","id":{"a":1},"error":{"code":-32602,"message":"tool not found"}}`, "", 0},
		{"another object id than the one sent", spec.V20260728, `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{}}`, `{"jsonrpc":"2.0","id":{"a":2},"error":{"code":-32602,"message":"tool not found"}}`, "jsonrpc/id-object", 0},
		{"forbidden id echoed as a subscriptionId", spec.V20260728, `{"jsonrpc":"2.0","id":true,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":true},"notifications":{"toolsListChanged":true}}}`, "", 0},
		{"forbidden number id echoed as a subscriptionId", spec.V20260728, `{"jsonrpc":"2.0","id":1e-3,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":0.001},"notifications":{"toolsListChanged":true}}}`, "", 0},
		{"id under a member name in another case, echoed", spec.V20251125, `{"iD":280388459757050,"jsonrpc":"2.0","method":"tools/call","params":{"name":""}}`, `{"jsonrpc":"2.0","id":280388459757050,"error":{"code":-32602,"message":"tool not found"}}`, "", 0},
		{"id under a member name in another case, another answered", spec.V20251125, `{"iD":280388459757050,"jsonrpc":"2.0","method":"tools/call","params":{"name":""}}`, `{"jsonrpc":"2.0","id":280388459757051,"error":{"code":-32602,"message":"tool not found"}}`, "response/id-unknown", 0},
		{"forbidden subscriptionId nobody sent", spec.V20260728, `{"jsonrpc":"2.0","id":true,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":false},"notifications":{"toolsListChanged":true}}}`, "schema/", 0},
		{"server request in the stateless era", spec.V20260728, ``, `{"jsonrpc":"2.0","id":5,"method":"roots/list"}`, "request/server-sent-stateless", 0},
		{"schema violation in a result", spec.V20251125, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":"none"}}`, "schema/", 0},
		{"HTTP refusal of a response echoing its id", spec.V20251125, `{"jsonrpc":"2.0","id":-1,"result":{}}`, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32001,"message":"Session not found"}}`, "http/error-body-echoes-response-id", 404},
		{"plain text of an HTTP error status", spec.V20260728, ``, `431 Request Header Fields Too Large`, "", 431},
		{"plain text of an HTTP success", spec.V20260728, ``, `431 Request Header Fields Too Large`, "jsonrpc/not-object", 200},
		{"JSON-RPC error of an HTTP error status still judged", spec.V20251125, ``, `{"jsonrpc":"2.0","id":null,"error":{"code":"x","message":"m"}}`, "jsonrpc/", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := NewJudge(tc.v)
			j.Sent([]byte(tc.sent))
			f := conn.Frame{Data: []byte(tc.frame)}
			if tc.status != 0 {
				j.HTTP, f.HTTPStatus = true, tc.status
			}
			res := j.Received(f)
			switch {
			case tc.check == "" && len(res.Obs) > 0:
				t.Errorf("unexpected %s: %s", res.Obs[0].Check, res.Obs[0].Message)
			case tc.check != "" && (len(res.Obs) == 0 || !strings.HasPrefix(res.Obs[0].Check, tc.check)):
				t.Errorf("want %s, got %+v", tc.check, res.Obs)
			}
			for _, o := range res.Obs {
				if o.Kind != reports.FindingViolation || o.Signature() == "" {
					t.Errorf("bad observation %+v", o)
				}
			}
		})
	}
}

// TestJudgeDualEra: after an initialize opened a legacy session on a
// stateless stream, answers to requests without a _meta protocol version
// are judged by the negotiated version (and still judged), answers to
// requests that declare one by the campaign's.
func TestJudgeDualEra(t *testing.T) {
	v := spec.V20260728
	init := string(gen.InitializeRequest(v, "init"))
	initOK := `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
	cases := []struct {
		name, sent, frame, check string
	}{
		{"legacy answer to a legacy request", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, ""},
		{"broken legacy answer", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":"none"}}`, "schema/2025-11-25"},
		{"legacy answer to a stateless request", string(gen.Marshal(gen.Request(v, 2, spec.MethodToolsList, nil))), `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, "schema/2026-07-28"},
		{"request of the legacy session", ``, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`, ""},
		{"notification of either era", ``, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := NewJudge(v)
			j.Sent([]byte(init))
			if res := j.Received(conn.Frame{Data: []byte(initOK)}); len(res.Obs) > 0 {
				t.Fatalf("the initialize answer: %+v", res.Obs)
			}
			j.Sent([]byte(tc.sent))
			res := j.Received(conn.Frame{Data: []byte(tc.frame)})
			switch {
			case tc.check == "" && len(res.Obs) > 0:
				t.Errorf("unexpected %s: %s", res.Obs[0].Check, res.Obs[0].Message)
			case tc.check != "" && (len(res.Obs) == 0 || !strings.HasPrefix(res.Obs[0].Check, tc.check)):
				t.Errorf("want %s, got %+v", tc.check, res.Obs)
			}
		})
	}
	// Without an initialize, a request without a _meta protocol version
	// may still be taken for a legacy client's on stdio (a dual-era
	// server cannot tell; go-sdk v1.8.0 and mcp-go v1.2.1 answer it
	// without resultType): either era's answer passes, one that breaks
	// both does not. Over HTTP the headers tell the eras apart, and the
	// answer to a request that declares 2026-07-28 is always judged by it.
	for _, tc := range []struct {
		name, sent, frame string
		http, flagged     bool
	}{
		{"stdio, legacy answer", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"ttlMs":0,"cacheScope":"public","tools":[]}}`, false, false},
		{"stdio, broken in both eras", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":"none"}}`, false, true},
		{"stdio, declared request", string(gen.Marshal(gen.Request(v, 2, spec.MethodToolsList, nil))), `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, false, true},
		{"stdio, protocol version null", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, false, false},
		{"stdio, protocol version a number", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2.5}}}`, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[]}}`, false, false},
		{"http, legacy answer", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, true, true},
	} {
		j := NewJudge(v)
		j.HTTP = tc.http
		j.Sent([]byte(tc.sent))
		f := conn.Frame{Data: []byte(tc.frame)}
		if tc.http {
			f.HTTPStatus = 200
		}
		if res := j.Received(f); (len(res.Obs) > 0) != tc.flagged {
			t.Errorf("without initialize, %s: observations %+v, want flagged %v", tc.name, res.Obs, tc.flagged)
		}
	}
}

// TestRequirementIDsExist: every requirement an oracle cites is in the
// catalog, with the level the oracle reports.
func TestRequirementIDsExist(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for id, level := range map[string]catalog.Level{
		rules.ReqStdoutOnlyMCP: catalog.MustNot, rules.ReqJSONRPC2: catalog.Must, rules.ReqIDMatchesRequest: catalog.Must,
		rules.ReqNotResultAndError: catalog.MustNot, rules.ReqServerNoRequests: catalog.MustNot, rules.ReqHTTPNoServerRequests: catalog.MustNot,
		rules.ReqRetiredCodes: catalog.MustNot, rules.ReqErrorCodeInteger: catalog.Must, rules.ReqIDStringOrInteger: catalog.Must,
		rules.ReqErrorCodeAndMessage: catalog.Must, rules.ReqHTTPErrorBodyNoID: catalog.May,
	} {
		r, ok := cat.Get(id)
		if !ok {
			t.Errorf("the catalog has no requirement %s", id)
			continue
		}
		if r.Level != level {
			t.Errorf("%s is %s in the catalog, the oracle says %s", id, r.Level, level)
		}
	}
}

// TestProbeAnswerShortcut: an answer to a probe that is byte for byte the
// last clean one but for the id is settled without being judged again;
// any other answer is judged.
func TestProbeAnswerShortcut(t *testing.T) {
	j := NewJudge(spec.V20241105)
	j.Expect(`"p-1"`, spec.MethodPing)
	first := conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":"p-1","result":{}}`)}
	if res := j.Received(first); len(res.Obs) > 0 || len(res.Answered) != 1 {
		t.Fatalf("first answer: %+v", res)
	}
	j.RememberProbe(first, `"p-1"`)
	j.Expect(`"p-2"`, spec.MethodPing)
	if !j.ProbeAnswered(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":"p-2","result":{}}`)}, `"p-2"`) || j.Pending.Len() != 0 {
		t.Fatalf("the same answer was not settled: %d outstanding", j.Pending.Len())
	}
	j.Expect(`"p-3"`, spec.MethodPing)
	both := conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":"p-3","result":{},"error":{"code":1,"message":"x"}}`)}
	if j.ProbeAnswered(both, `"p-3"`) {
		t.Fatal("a different answer took the shortcut")
	}
	if res := j.Received(both); len(res.Obs) == 0 {
		t.Fatal("a broken probe answer was not flagged")
	}
	j.Expect(`"p-4"`, spec.MethodPing)
	if j.ProbeAnswered(conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":"p-5","result":{}}`)}, `"p-4"`) {
		t.Fatal("an answer with another id took the shortcut")
	}
}

// TestJudgeLatin1Declared: a request POSTed with a Content-Type that
// declares charset=latin1 may be read that way; its non-ASCII string id
// then comes back as the Latin-1 reading of its UTF-8 bytes, which is no
// wrong id (ts-everything over HTTP+SSE; a false finding before). Without
// the declaration, the same answer is an id nobody sent.
func TestJudgeLatin1Declared(t *testing.T) {
	// The id holds a raw é (two bytes, read as two characters) and an
	// escaped U+2029 (six ASCII bytes, read as the one character).
	sent := []byte(`{"jsonrpc":"2.0","id":"é-1\u2029","method":"prompts/get","params":{"name":"x"}}`)
	answer := conn.Frame{Data: []byte(`{"jsonrpc":"2.0","id":"Ã©-1\u2029","error":{"code":-32602,"message":"no such prompt"}}`)}
	for _, declared := range []bool{true, false} {
		j := NewJudge(spec.V20241105)
		if declared != DeclaresForeignCharset([][2]string{{"Content-Type", map[bool]string{true: "application/json; charset=latin1", false: "application/json; charset=utf-8"}[declared]}}) {
			t.Fatalf("declaresForeignCharset does not tell latin1 (%v) from utf-8", declared)
		}
		j.Latin1 = declared
		j.Sent(sent)
		j.Latin1 = false
		res := j.Received(answer)
		unknown := false
		for _, o := range res.Obs {
			unknown = unknown || o.Check == "response/id-unknown"
		}
		if unknown == declared {
			t.Errorf("charset latin1 declared %v: response-id-unknown %v, want %v (observations %+v)", declared, unknown, !declared, res.Obs)
		}
		if declared && (len(j.lenient) != 0 || len(j.latin1Alias) != 0) {
			t.Errorf("the answered request left lenient keys behind: %v %v", j.lenient, j.latin1Alias)
		}
	}
}

// TestBatchCitation: a batch is valid JSON-RPC 2.0 but no MCP message
// from 2025-06-18; on stdio the rule it breaks is that stdout carries only
// MCP messages (as base/batch-rejected cites it), over HTTP the JSON-RPC
// message rule.
func TestBatchCitation(t *testing.T) {
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)
	for _, http := range []bool{false, true} {
		j := NewJudge(spec.V20251125)
		j.HTTP = http
		j.Sent([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`))
		f := conn.Frame{Data: batch}
		want := rules.ReqStdoutOnlyMCP
		if http {
			f.HTTPStatus, want = 200, rules.ReqJSONRPC2
		}
		res := j.Received(f)
		if len(res.Obs) != 1 || res.Obs[0].Check != "jsonrpc/batch" || res.Obs[0].Requirement != want {
			t.Errorf("http %v: %+v, want jsonrpc/batch citing %s", http, res.Obs, want)
		}
	}
}
