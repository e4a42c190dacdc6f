package mcp

// MCP error codes beyond the standard JSON-RPC ones. They equal the
// constants of the same names in internal/spec/jsonrpc.
const (
	// CodeResourceNotFound is resources/read of an unknown URI in
	// 2024-11-05 through 2025-11-25. Retired in 2026-07-28 (use -32602);
	// clients should still accept it.
	CodeResourceNotFound int64 = -32002
	// CodeURLElicitationRequired means the request cannot go on until the
	// URL-mode elicitations in data.elicitations are done (2025-11-25 only).
	CodeURLElicitationRequired int64 = -32042
	// CodeHeaderMismatch means HTTP headers disagree with the body, or a
	// required header is missing or malformed (2026-07-28 on; HTTP 400).
	CodeHeaderMismatch int64 = -32020
	// CodeMissingRequiredClientCapability means the request needs a client
	// capability its _meta did not declare (2026-07-28 on; HTTP 400).
	CodeMissingRequiredClientCapability int64 = -32021
	// CodeUnsupportedProtocolVersion means the request's protocol version is
	// not served (2026-07-28 on; HTTP 400).
	CodeUnsupportedProtocolVersion int64 = -32022
)

// UnsupportedProtocolVersionData is the data of a -32022 error.
type UnsupportedProtocolVersionData struct {
	// Supported lists the versions the server serves; the client should
	// retry with one of them.
	Supported []string `json:"supported"`
	// Requested is the version the client asked for.
	Requested string `json:"requested"`
}

// MissingRequiredClientCapabilityData is the data of a -32021 error.
type MissingRequiredClientCapabilityData struct {
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// URLElicitationRequiredData is the data of a -32042 error (2025-11-25).
type URLElicitationRequiredData struct {
	Elicitations []ElicitParams `json:"elicitations"`
}

// NewErrorData returns a pointer to the typed data of an MCP error code, or
// nil when the code has no typed data (-32020 has none).
func NewErrorData(code int64) any {
	switch code {
	case CodeUnsupportedProtocolVersion:
		return &UnsupportedProtocolVersionData{}
	case CodeMissingRequiredClientCapability:
		return &MissingRequiredClientCapabilityData{}
	case CodeURLElicitationRequired:
		return &URLElicitationRequiredData{}
	}
	return nil
}
