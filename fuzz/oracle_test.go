package fuzz

import (
	"strings"
	"testing"

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
}

// TestJudge covers the oracle decisions one frame at a time.
func TestJudge(t *testing.T) {
	deepReq := `{"jsonrpc":"2.0","id":1000,"method":"tools/list","params":{"deep":` + strings.Repeat("[", 20000) + "0" + strings.Repeat("]", 20000) + `}}`
	cases := []struct {
		name  string
		v     spec.Version
		sent  string
		frame string
		check string // "" for no observation
	}{
		{"answer to a sent request", spec.V20251125, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"answer to nothing", spec.V20251125, ``, `{"jsonrpc":"2.0","id":1,"result":{}}`, "response-id-unknown"},
		{"parse error with null id", spec.V20241105, `nope`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, ""},
		{"echoed forbidden boolean id", spec.V20251125, `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"error":{"code":-32600,"message":"bad id"}}`, ""},
		{"echoed float id as integer", spec.V20251125, `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"answer to a request too deep for our codec", spec.V20251125, deepReq, `{"jsonrpc":"2.0","id":1000,"error":{"code":-32603,"message":"x"}}`, ""},
		{"answer to a pretty-printed request", spec.V20251125, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"p\u00e9\",\n  \"method\": \"ping\"\n}\n", `{"jsonrpc":"2.0","id":"pé","result":{}}`, ""},
		{"refusal of a request without method", spec.V20251125, `{"jsonrpc":"2.0","id":-1,"params":{}}`, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32600,"message":"invalid request"}}`, ""},
		{"answer to a response", spec.V20251125, `{"jsonrpc":"2.0","id":-1,"result":{}}`, `{"jsonrpc":"2.0","id":-1,"error":{"code":-32601,"message":"Method not found"}}`, "response-to-a-response"},
		{"same id reused for two methods", spec.V20251125, "{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}\n{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"tools/list\"}", `{"jsonrpc":"2.0","id":"","result":{}}`, ""},
		{"not json on stdout", spec.V20251125, ``, `Server started!`, "stdout-not-json"},
		{"result and error", spec.V20241105, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "jsonrpc/result-and-error"},
		{"batch in a version without batches", spec.V20251125, ``, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}]`, "jsonrpc/batch"},
		{"server request in the stateless era", spec.V20260728, ``, `{"jsonrpc":"2.0","id":5,"method":"roots/list"}`, "server-sent-request"},
		{"schema violation in a result", spec.V20251125, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":"none"}}`, "schema/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := newJudge(tc.v)
			j.sent([]byte(tc.sent))
			res := j.received(Frame{Data: []byte(tc.frame)})
			switch {
			case tc.check == "" && len(res.obs) > 0:
				t.Errorf("unexpected %s: %s", res.obs[0].Check, res.obs[0].Message)
			case tc.check != "" && (len(res.obs) == 0 || !strings.HasPrefix(res.obs[0].Check, tc.check)):
				t.Errorf("want %s, got %+v", tc.check, res.obs)
			}
			for _, o := range res.obs {
				if o.Kind != reports.FindingViolation || o.Signature() == "" {
					t.Errorf("bad observation %+v", o)
				}
			}
		})
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
		ReqStdoutOnlyMCP: catalog.MustNot, ReqJSONRPC2: catalog.Must, ReqIDMatchesRequest: catalog.Must,
		ReqNotResultAndError: catalog.MustNot, ReqServerNoRequests: catalog.MustNot, ReqHTTPNoServerRequests: catalog.MustNot,
		ReqRetiredCodes: catalog.MustNot, ReqErrorCodeInteger: catalog.Must, ReqIDStringOrInteger: catalog.Must,
		ReqErrorCodeAndMessage: catalog.Must,
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
