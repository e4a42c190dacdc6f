package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// RPCError is a JSON-RPC error response from the server.
type RPCError struct {
	// Method is the request the server refused.
	Method string
	// Code, Message and Data are the server's error object.
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *RPCError) Error() string {
	name := jsonrpc.CodeName(e.Code)
	if name != "" {
		name = " (" + name + ")"
	}
	return fmt.Sprintf("the server answered %s with error %d%s: %s", e.Method, e.Code, name, e.Message)
}

// IsCode reports whether err is an RPCError with the given code.
func IsCode(err error, code int64) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Code == code
}

// ErrClosed is returned by calls on a closed client.
var ErrClosed = errors.New("client: the connection is closed")

// TimeoutError says that the server did not answer a request in time.
type TimeoutError struct {
	Method string
	ID     jsonrpc.ID
	After  string
	// Garbage describes the last unusable input from the server, if any,
	// which often explains why no answer came.
	Garbage string
}

func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("the server did not answer %s (id %s) within %s", e.Method, e.ID, e.After)
	if e.Garbage != "" {
		s += "; meanwhile it sent input the client could not use: " + e.Garbage
	}
	return s + "; raise --timeout if the server is just slow"
}

// OutputSchemaError says that a tool result does not match the tool's
// outputSchema. CallTool returns it together with the result.
type OutputSchemaError struct {
	Tool   string
	Detail string
}

func (e *OutputSchemaError) Error() string {
	return fmt.Sprintf("the result of tool %q does not match its outputSchema: %s", e.Tool, e.Detail)
}

// VersionError says that client and server have no protocol version in
// common, or that the server's answer to the negotiation was unusable.
type VersionError struct {
	Offered string
	Server  []string
	Detail  string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("protocol version negotiation failed (offered %s, server named %v): %s", e.Offered, e.Server, e.Detail)
}

// URLElicitationRequiredError is the -32042 error of 2025-11-25: the request
// can go on only after the user completes the listed URL elicitations.
type URLElicitationRequiredError struct {
	Method       string
	Elicitations []mcp.ElicitParams
}

func (e *URLElicitationRequiredError) Error() string {
	return fmt.Sprintf("the server needs %d URL elicitation(s) completed before %s can proceed", len(e.Elicitations), e.Method)
}

// rpcErr builds an RPCError from a decoded error response.
func rpcErr(method string, eo *jsonrpc.ErrorObject) error {
	if eo == nil {
		return &RPCError{Method: method, Code: jsonrpc.InternalError, Message: "error response without a usable error object"}
	}
	return &RPCError{Method: method, Code: eo.Code, Message: eo.Message, Data: eo.Data}
}

// handlerError is what a handler of a server request answers with.
type handlerError struct {
	code int64
	msg  string
}

func (e *handlerError) Error() string { return e.msg }

func invalidParams(format string, a ...any) error {
	return &handlerError{jsonrpc.InvalidParams, fmt.Sprintf(format, a...)}
}

func methodNotFound(format string, a ...any) error {
	return &handlerError{jsonrpc.MethodNotFound, fmt.Sprintf(format, a...)}
}
