package client

import (
	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of cancellation: notifications/cancelled the client adds
// to what it sends.

// FaultUnknownCancelFatal is the hook of cancellation: a
// notifications/cancelled naming no request of the server in progress ends
// the connection.
const FaultUnknownCancelFatal = "unknown-cancel-fatal"

func init() {
	registerFaults([]string{FaultUnknownCancelFatal},
		Fault{Name: FaultUnknownCancelFatal, Requirement: "cancellation.invalid.ignored", Description: "a notifications/cancelled for no request in progress ends the connection"},
		Fault{Name: "cancel-unknown-request", Requirement: "cancellation.notify.only-in-flight-client-requests", Description: "right after initialization the client cancels a request it never sent",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialized {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpcheck-never-sent","reason":"fault"}}`)}
			}},
		Fault{Name: "cancel-initialize", Requirement: "cancellation.initialize.never-cancelled", Description: "initialize is followed at once by a notifications/cancelled for it",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method != spec.MethodInitialize {
					return [][]byte{w.Msg}
				}
				return [][]byte{w.Msg, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + w.Decoded.ID.String() + `,"reason":"fault"}}`)}
			}},
	)
}

func init() {
	registerFaults(nil,
		Fault{Name: "timeout-without-cancel", Requirement: "cancellation.timeout.cancel-on-expiry", Description: "a request given up on after its timeout is not cancelled: notifications/cancelled is never sent",
			Rewrite: func(w Written) [][]byte {
				if w.Decoded.Method == spec.MethodCancelled {
					return nil
				}
				return [][]byte{w.Msg}
			}},
	)
}
