package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// rpcError is a JSON-RPC error a handler answers with. HTTPStatus is the
// status the HTTP transports use for it (0 means 200 for stateful requests).
type rpcError struct {
	Code       int64
	Message    string
	Data       any
	HTTPStatus int
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func newError(code int64, format string, a ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, a...)}
}

func invalidParams(format string, a ...any) *rpcError {
	return newError(jsonrpc.InvalidParams, format, a...)
}

func methodNotFound(method string) *rpcError {
	return &rpcError{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("Method not found: %q is not served in this protocol version", method), HTTPStatus: 404}
}

func internalError(format string, a ...any) *rpcError {
	return newError(jsonrpc.InternalError, format, a...)
}
