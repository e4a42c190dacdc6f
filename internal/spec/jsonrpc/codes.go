package jsonrpc

// The error codes JSON-RPC 2.0 itself defines.
const (
	// ParseError: the receiver could not parse the message as JSON.
	ParseError int64 = -32700
	// InvalidRequest: the JSON is not a valid request object.
	InvalidRequest int64 = -32600
	// MethodNotFound: the method does not exist or is not available.
	MethodNotFound int64 = -32601
	// InvalidParams: the method's parameters are invalid.
	InvalidParams int64 = -32602
	// InternalError: an internal error in the receiver.
	InternalError int64 = -32603
)

// The error codes MCP defines on top of JSON-RPC. Which protocol versions use
// each is noted; judging that is the validator's job, not the codec's.
const (
	// ResourceNotFound: resources/read named an unknown resource. Used up to
	// 2025-11-25; retired in 2026-07-28 (which uses InvalidParams instead and
	// forbids emitting this code).
	ResourceNotFound int64 = -32002
	// URLElicitationRequired: the request cannot proceed until URL-mode
	// elicitations complete. Defined in 2025-11-25 only; retired in
	// 2026-07-28.
	URLElicitationRequired int64 = -32042
	// HeaderMismatch: an HTTP header is missing, malformed or disagrees with
	// the body. Since 2026-07-28.
	HeaderMismatch int64 = -32020
	// MissingRequiredClientCapability: the request needs a client capability
	// the client did not declare. Since 2026-07-28.
	MissingRequiredClientCapability int64 = -32021
	// UnsupportedProtocolVersion: the requested protocol version is not
	// supported. Since 2026-07-28.
	UnsupportedProtocolVersion int64 = -32022
)

// The ranges JSON-RPC reserves.
const (
	// ReservedMin and ReservedMax bound the codes JSON-RPC reserves for
	// itself and for implementations (inclusive).
	ReservedMin int64 = -32768
	ReservedMax int64 = -32000
	// ServerErrorMin and ServerErrorMax bound the "server error" range JSON-RPC
	// leaves to implementations (inclusive).
	ServerErrorMin int64 = -32099
	ServerErrorMax int64 = -32000
)

// CodeName returns the Go name of a code this package defines, such as
// "MethodNotFound", or "" for any other code.
func CodeName(code int64) string {
	switch code {
	case ParseError:
		return "ParseError"
	case InvalidRequest:
		return "InvalidRequest"
	case MethodNotFound:
		return "MethodNotFound"
	case InvalidParams:
		return "InvalidParams"
	case InternalError:
		return "InternalError"
	case ResourceNotFound:
		return "ResourceNotFound"
	case URLElicitationRequired:
		return "URLElicitationRequired"
	case HeaderMismatch:
		return "HeaderMismatch"
	case MissingRequiredClientCapability:
		return "MissingRequiredClientCapability"
	case UnsupportedProtocolVersion:
		return "UnsupportedProtocolVersion"
	}
	return ""
}

// IsStandard reports whether code is one of the five codes JSON-RPC 2.0
// defines (ParseError, InvalidRequest, MethodNotFound, InvalidParams,
// InternalError).
func IsStandard(code int64) bool {
	switch code {
	case ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError:
		return true
	}
	return false
}

// InServerErrorRange reports whether code is in -32099..-32000, the range
// JSON-RPC leaves for implementation-defined server errors (and where MCP
// places its own codes).
func InServerErrorRange(code int64) bool {
	return code >= ServerErrorMin && code <= ServerErrorMax
}

// IsReserved reports whether code is in -32768..-32000, the range JSON-RPC
// reserves. Application-defined codes should lie outside it.
func IsReserved(code int64) bool {
	return code >= ReservedMin && code <= ReservedMax
}
