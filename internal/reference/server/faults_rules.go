package server

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// faultClientInfoTrustedName is the clientInfo name prefix the
// client-info-dependent fault shows every tool to.
const faultClientInfoTrustedName = "mcpcheck"

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
