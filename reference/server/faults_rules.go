package server

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Fault switches for the 2026-07-28 base rules, logging security and
// implementation-info neutrality; see faults.go for what a switch is.
const (
	FaultReservedCodeMisused   = "reserved-code-misused"
	FaultUnknownResultType     = "unknown-result-type"
	FaultBadExtensionName      = "bad-extension-name"
	FaultClientInfoDependent   = "client-info-dependent"
	FaultLogSecrets            = "log-secrets"
	FaultLogOnListenStream     = "log-on-listen-stream"
	faultClientInfoTrustedName = "mcpcheck"
)

func init() {
	faultTable = append(faultTable,
		Fault{FaultReservedCodeMisused, "base.error-code.reserved-range-defined-meaning", "an unknown 2026-07-28 method is refused with -32021 (missing client capability) and no requiredCapabilities"},
		Fault{FaultUnknownResultType, "base.result-type.supported-set", `2026-07-28 tools/list results carry resultType "partial", which no negotiated extension defines`},
		Fault{FaultBadExtensionName, "extensions.negotiation.identifier-naming", `server/discover advertises an extension under the unprefixed identifier "tasks"`},
		Fault{FaultClientInfoDependent, "base.meta.implementation-info-no-behaviour-change", "tools/list hides the ref_* tools from clients whose clientInfo name does not start with mcpcheck"},
		Fault{FaultLogSecrets, "security.logging.no-secrets-in-messages", "ref_sign_in logs the password it was given"},
		Fault{FaultLogOnListenStream, "logging.per-request.only-on-request-stream", "2026-07-28 per-request log messages are also sent on every open subscriptions/listen stream"},
	)
}

// misusedReservedCode is the error the reserved-code-misused fault answers
// an unknown method with.
func misusedReservedCode(method string) *Error {
	return &Error{Code: jsonrpc.MissingRequiredClientCapability, Message: "cannot serve " + method, HTTPStatus: 400}
}

// hiddenFromClient reports whether the client-info-dependent fault hides
// tool name from the client of r.
func (r *request) hiddenFromClient(name string) bool {
	if !r.srv.faults.on(FaultClientInfoDependent) || !strings.HasPrefix(name, "ref_") {
		return false
	}
	info := mcp.Implementation{}
	if r.s != nil {
		r.s.mu.Lock()
		info = r.s.clientInfo
		r.s.mu.Unlock()
	} else if ci, ok, _ := r.meta.ClientInfo(); ok {
		info = ci
	}
	return !strings.HasPrefix(info.Name, faultClientInfoTrustedName)
}
