package client

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/spec"
)

// Fault switches of the base protocol's layers: receiving batches
// (2025-03-26) and speaking the multi round-trip pattern (2026-07-28); and
// what an initialize request must hold.
const (
	// FaultBatchIgnored drops every JSON-RPC batch the server sends.
	FaultBatchIgnored = "batch-ignored"
	// FaultMRTRUnsupported treats an input_required result as an error
	// instead of fulfilling it and retrying.
	FaultMRTRUnsupported = "mrtr-unsupported"
)

func init() {
	registerFaults([]string{FaultBatchIgnored, FaultMRTRUnsupported},
		Fault{Name: FaultBatchIgnored, Requirement: "base.batch.receiving-required", Description: "a JSON-RPC batch from the server is dropped unread"},
		Fault{Name: FaultMRTRUnsupported, Requirement: "base.layers.support-base-versioning-patterns", Description: "an input_required result fails the request: the client does not speak multi round-trip requests"},
	)
}

func init() {
	registerFaults(nil,
		Fault{Name: "initialize-no-client-info", Requirement: "lifecycle.initialize.client-sends-initialize", Description: "initialize carries no clientInfo",
			Rewrite: onMethod(spec.MethodInitialize, func(b []byte) []byte {
				return editParams(b, func(p map[string]json.RawMessage) { delete(p, "clientInfo") })
			})},
		Fault{Name: "initialize-no-protocol-version", Requirement: "lifecycle.initialize.client-sends-initialize", Description: "initialize carries no protocolVersion",
			Rewrite: onMethod(spec.MethodInitialize, func(b []byte) []byte {
				return editParams(b, func(p map[string]json.RawMessage) { delete(p, "protocolVersion") })
			})},
		Fault{Name: "initialize-no-capabilities", Requirement: "lifecycle.initialize.client-sends-initialize", Description: "initialize carries no capabilities",
			Rewrite: onMethod(spec.MethodInitialize, func(b []byte) []byte {
				return editParams(b, func(p map[string]json.RawMessage) { delete(p, "capabilities") })
			})},
	)
}
