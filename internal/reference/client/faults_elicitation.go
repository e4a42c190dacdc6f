package client

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of elicitation and sampling: rewrites of the capabilities
// initialize declares and of the client's answers to the server.

// FaultElicitCompleteUnknownFatal is the hook of elicitation: the client
// ends the session on notifications/elicitation/complete for an id it does
// not know.
const FaultElicitCompleteUnknownFatal = "elicitation-complete-unknown-fatal"

func init() {
	registerFaults([]string{FaultElicitCompleteUnknownFatal},
		Fault{Name: FaultElicitCompleteUnknownFatal, Requirement: "elicitation.complete.client-ignores-unknown-ids", Description: "notifications/elicitation/complete for an unknown elicitationId ends the session"},
		Fault{Name: "sampling-undeclared", Requirement: "sampling.capability.client-declares", Description: "initialize declares no sampling capability, yet sampling/createMessage is answered with a result",
			Rewrite: withoutCapability("sampling")},
		Fault{Name: "elicitation-undeclared", Requirement: "elicitation.capability.client-declares", Description: "initialize declares no elicitation capability, yet elicitation/create is answered with a result",
			Rewrite: withoutCapability("elicitation")},
		Fault{Name: "elicitation-undeclared-mode-accepted", Requirement: "elicitation.errors.client-rejects-undeclared-mode", Description: "initialize declares form elicitation only, yet URL-mode elicitations are handled instead of refused with -32602",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialize {
					return [][]byte{w.Msg}
				}
				return [][]byte{editParams(w.Msg, func(p map[string]json.RawMessage) {
					var caps map[string]json.RawMessage
					var el map[string]json.RawMessage
					if json.Unmarshal(p["capabilities"], &caps) != nil || json.Unmarshal(caps["elicitation"], &el) != nil || el == nil {
						return
					}
					delete(el, "url")
					caps["elicitation"], _ = json.Marshal(el)
					p["capabilities"], _ = json.Marshal(caps)
				})}
			}},
		Fault{Name: "elicitation-mode-required", Requirement: "elicitation.request.missing-mode-means-form", Description: "an elicitation without mode is refused with -32602 instead of handled as form mode",
			Rewrite: func(w Written) [][]byte {
				if !isElicitResult(w) {
					return [][]byte{w.Msg}
				}
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + w.Decoded.ID.String() + `,"error":{"code":-32602,"message":"elicitation/create needs a mode"}}`)}
			}},
	)
}

// isElicitResult reports whether w is a result with an action (an answer
// to elicitation/create).
func isElicitResult(w Written) bool {
	if w.Decoded.Shape != jsonrpc.KindResponse {
		return false
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(w.Decoded.Result, &r) != nil {
		return false
	}
	_, ok := r["action"]
	return ok
}
