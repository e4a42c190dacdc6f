package client

import (
	"bytes"
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Fault switches of the client's answers to the server's requests: each
// makes one kind of answer break the negotiated version's schema, wherever
// it travels (a JSON-RPC response up to 2025-11-25, a value of a retried
// request's inputResponses in 2026-07-28). The rest of the answer and
// every other message go out as they are.

func init() {
	registerFaults(nil,
		Fault{Name: "elicit-content-object", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "an accepted elicitation's content values are objects (the schema allows strings, numbers, booleans and string arrays only)",
			Rewrite: onAnswer(func(r map[string]json.RawMessage) bool { return r["action"] != nil && r["content"] != nil }, func(r map[string]json.RawMessage) {
				var content map[string]json.RawMessage
				if json.Unmarshal(r["content"], &content) != nil {
					return
				}
				for k, v := range content {
					content[k] = json.RawMessage(`{"value":` + string(v) + `}`)
				}
				r["content"], _ = json.Marshal(content)
			})},
		Fault{Name: "roots-without-uri", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "roots/list is answered with a root that carries its URI as \"url\", not \"uri\"",
			Rewrite: onAnswer(func(r map[string]json.RawMessage) bool { return r["roots"] != nil }, func(r map[string]json.RawMessage) {
				r["roots"] = json.RawMessage(`[{"url":"file:///tmp/mcpcheck-project","name":"project"}]`)
			})},
		Fault{Name: "roots-answered-as-elicitation", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "in 2026-07-28 inputResponses, a roots/list input request is answered with an elicitation result ({\"action\":\"cancel\"})",
			Rewrite: onInputResponse(func(r map[string]json.RawMessage) bool { return r["roots"] != nil }, func(r map[string]json.RawMessage) {
				for k := range r {
					delete(r, k)
				}
				r["action"] = json.RawMessage(`"cancel"`)
			})},
		Fault{Name: "sampling-model-number", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "sampling results name their model with a number, not a string",
			Rewrite: onAnswer(func(r map[string]json.RawMessage) bool { return r["model"] != nil }, func(r map[string]json.RawMessage) {
				r["model"] = json.RawMessage(`42`)
			})},
		Fault{Name: "ping-result-meta-string", Requirement: "base.jsonrpc.messages-are-jsonrpc-2", Description: "the server's pings are answered with a result whose _meta is a string, not an object",
			Rewrite: onAnswer(func(r map[string]json.RawMessage) bool { return len(r) == 0 }, func(r map[string]json.RawMessage) {
				r["_meta"] = json.RawMessage(`"mcpcheck"`)
			})},
	)
}

// onAnswer makes a Rewrite that edits every answer the client gives the
// server that is picks: the result of a JSON-RPC response, and each value
// of the inputResponses of a request (2026-07-28). Other messages go out
// byte for byte.
func onAnswer(is func(map[string]json.RawMessage) bool, edit func(map[string]json.RawMessage)) func(Written) [][]byte {
	inputs := onInputResponse(is, edit)
	return func(w Written) [][]byte {
		if w.Decoded.Shape != jsonrpc.KindResponse {
			return inputs(w)
		}
		var m, r map[string]json.RawMessage
		if json.Unmarshal(w.Msg, &m) != nil || json.Unmarshal(m["result"], &r) != nil || r == nil || !is(r) {
			return [][]byte{w.Msg}
		}
		edit(r)
		m["result"], _ = json.Marshal(r)
		b, err := json.Marshal(m)
		if err != nil {
			return [][]byte{w.Msg}
		}
		return [][]byte{b}
	}
}

// onInputResponse makes a Rewrite that edits each value of the
// inputResponses of a request (2026-07-28) that is picks.
func onInputResponse(is func(map[string]json.RawMessage) bool, edit func(map[string]json.RawMessage)) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Shape != jsonrpc.KindRequest || !bytes.Contains(w.Msg, []byte(`"inputResponses"`)) {
			return [][]byte{w.Msg}
		}
		return [][]byte{editParams(w.Msg, func(p map[string]json.RawMessage) {
			var rs map[string]map[string]json.RawMessage
			if p["inputResponses"] == nil || json.Unmarshal(p["inputResponses"], &rs) != nil {
				return
			}
			for _, r := range rs {
				if r != nil && is(r) {
					edit(r)
				}
			}
			p["inputResponses"], _ = json.Marshal(rs)
		})}
	}
}
