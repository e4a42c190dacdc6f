package client

import (
	"bytes"
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of roots: all rewrites of what the client sends (its
// initialize capabilities, its answers to roots/list).

func init() {
	registerFaults(nil,
		Fault{Name: "roots-http-uri", Requirement: "roots.root.uri-is-file-scheme", Description: "roots/list lists roots with https:// URIs",
			Rewrite: onAnswer(func(r map[string]json.RawMessage) bool { return r["roots"] != nil }, func(r map[string]json.RawMessage) {
				r["roots"] = json.RawMessage(`[{"uri":"https://example.test/project","name":"not a file root"}]`)
			})},
		Fault{Name: "roots-undeclared", Requirement: "roots.capability.client-declares", Description: "initialize declares no roots capability, yet roots/list is answered with roots",
			Rewrite: withoutRootsCapability},
		Fault{Name: "roots-error-code", Requirement: "roots.errors.client-standard-codes", Description: "initialize declares no roots, and roots/list is answered with error -32000 instead of -32601",
			Rewrite: func(w Written) [][]byte {
				if isRootsResult(w) {
					return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + w.Decoded.ID.String() + `,"error":{"code":-32000,"message":"no roots here"}}`)}
				}
				return withoutRootsCapability(w)
			}},
	)
}

// withoutRootsCapability drops roots from the capabilities initialize
// declares; every other message goes out as it is.
func withoutRootsCapability(w Written) [][]byte { return withoutCapability("roots")(w) }

// withoutCapability drops one capability from those initialize declares,
// and in 2026-07-28 from the _meta client capabilities of every request.
func withoutCapability(name string) func(Written) [][]byte {
	return func(w Written) [][]byte {
		if w.Decoded.Shape == jsonrpc.KindRequest && bytes.Contains(w.Msg, []byte(`"io.modelcontextprotocol/clientCapabilities"`)) {
			return [][]byte{editParams(w.Msg, func(p map[string]json.RawMessage) {
				editMeta(p, func(m map[string]json.RawMessage) {
					var caps map[string]json.RawMessage
					if json.Unmarshal(m["io.modelcontextprotocol/clientCapabilities"], &caps) != nil || caps == nil {
						return
					}
					delete(caps, name)
					m["io.modelcontextprotocol/clientCapabilities"], _ = json.Marshal(caps)
				})
			})}
		}
		if w.Decoded.Method != spec.MethodInitialize {
			return [][]byte{w.Msg}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(w.Msg, &m) != nil {
			return [][]byte{w.Msg}
		}
		var p map[string]json.RawMessage
		var caps map[string]json.RawMessage
		if json.Unmarshal(m["params"], &p) != nil || json.Unmarshal(p["capabilities"], &caps) != nil {
			return [][]byte{w.Msg}
		}
		delete(caps, name)
		p["capabilities"], _ = json.Marshal(caps)
		m["params"], _ = json.Marshal(p)
		b, _ := json.Marshal(m)
		return [][]byte{b}
	}
}

// isRootsResult reports whether w is a result listing roots (an answer to
// roots/list).
func isRootsResult(w Written) bool {
	if w.Decoded.Shape != jsonrpc.KindResponse {
		return false
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(w.Decoded.Result, &r) != nil {
		return false
	}
	_, ok := r["roots"]
	return ok
}
