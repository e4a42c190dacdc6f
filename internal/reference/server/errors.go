package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Error is a JSON-RPC error a handler, a Tool or a Director answers with.
// HTTPStatus is the status the HTTP transports use for it (0 means 200 for
// stateful requests).
type Error struct {
	Code       int64
	Message    string
	Data       any
	HTTPStatus int
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func newError(code int64, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

func invalidParams(format string, a ...any) *Error {
	return newError(jsonrpc.InvalidParams, format, a...)
}

func methodNotFound(method string) *Error {
	return &Error{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("Method not found: %q is not served in this protocol version", method), HTTPStatus: 404}
}

func internalError(format string, a ...any) *Error {
	return newError(jsonrpc.InternalError, format, a...)
}
