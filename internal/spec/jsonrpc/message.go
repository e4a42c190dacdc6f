package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Kind is what a decoded message is. The zero Kind is KindInvalid.
type Kind uint8

// The kinds of message. See the package documentation for how they are
// decided.
const (
	// KindInvalid is a message with at least one problem of SeverityInvalid,
	// or (as a Shape) an object that looks like no JSON-RPC message at all.
	KindInvalid Kind = iota
	// KindRequest has a method and an id and expects a response.
	KindRequest
	// KindNotification has a method and no id.
	KindNotification
	// KindResponse is a success response: an id and a result.
	KindResponse
	// KindErrorResponse is an error response: an error object and usually an
	// id (see Message.IDNull and Message.IDAbsent).
	KindErrorResponse
)

// String returns a lower-case name such as "request" or "error response".
func (k Kind) String() string {
	switch k {
	case KindInvalid:
		return "invalid"
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	case KindErrorResponse:
		return "error response"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsResponse reports whether k is KindResponse or KindErrorResponse. It is
// meant for Shape: "an invalid response" is a message with KindInvalid whose
// Shape.IsResponse() is true.
func (k Kind) IsResponse() bool { return k == KindResponse || k == KindErrorResponse }

// Message is the decoded view of one JSON-RPC message.
//
// Raw is the input given to Decode (or, for DecodeBatch, the bytes of one
// array element), unmodified. Decode does not copy: Raw, Params, Result and
// Error.Data alias the input, so the caller must not modify the input while
// the Message is in use.
//
// Params, Result and Error.Data hold the raw member value whenever the member
// is present, even when the value has the wrong type (the Problems say so);
// they are nil when the member is absent. ID and Method are set only when they
// have a legal type.
type Message struct {
	// Raw is the input, byte for byte.
	Raw []byte
	// Kind is the classification; KindInvalid when any problem has
	// SeverityInvalid.
	Kind Kind
	// Shape is what the message looks like, decided only from which members
	// are present; it equals Kind for a valid message.
	Shape Kind

	// ID is the request id; zero when absent, null or of an illegal type.
	ID ID
	// IDNull reports that an "id" member is present with the value null. It
	// is legitimate only on an error response (a reply to a request whose id
	// could not be read); anywhere else it comes with ReasonIDNull.
	IDNull bool
	// IDAbsent reports that there is no "id" member. On an error response it
	// is legitimate in newer protocol versions; on a response it comes with
	// ReasonResponseWithoutID; on a notification it is the definition.
	IDAbsent bool

	// Method is the method name of a request or notification.
	Method string
	// Params is the raw "params" member, nil when absent.
	Params json.RawMessage
	// Result is the raw "result" member, nil when absent.
	Result json.RawMessage
	// Error is the decoded "error" member when it is an object, else nil.
	Error *ErrorObject

	// Problems lists what is wrong or noteworthy, most fundamental first.
	Problems []Problem
}

// Valid reports whether the message has no problem of SeverityInvalid.
func (m *Message) Valid() bool { return m.Kind != KindInvalid }

// Has reports whether the message has a problem with the given reason.
func (m *Message) Has(r Reason) bool {
	for _, p := range m.Problems {
		if p.Reason == r {
			return true
		}
	}
	return false
}

// Problem returns the first problem with the given reason and whether there
// is one.
func (m *Message) Problem(r Reason) (Problem, bool) {
	for _, p := range m.Problems {
		if p.Reason == r {
			return p, true
		}
	}
	return Problem{}, false
}

// ErrorObject is the "error" member of an error response. Fields that are
// missing or have the wrong type in the input are left zero; the message's
// Problems say which.
type ErrorObject struct {
	Code    int64
	Message string
	// Data is the raw "data" member, nil when absent.
	Data json.RawMessage
}

// Error makes an ErrorObject usable as a Go error, for example to return a
// peer's error response from a call. It names the code when it is a known
// one.
func (e *ErrorObject) Error() string {
	if name := CodeName(e.Code); name != "" {
		return fmt.Sprintf("jsonrpc: peer returned error %d (%s): %s", e.Code, name, e.Message)
	}
	return fmt.Sprintf("jsonrpc: peer returned error %d: %s", e.Code, e.Message)
}

// Problem is one thing wrong with (or worth noting about) a message.
type Problem struct {
	// Reason is the machine-readable classification.
	Reason Reason `json:"reason"`
	// Pointer is the RFC 6901 JSON pointer of the member concerned: "" for
	// the whole message, "/id", "/error/code" and so on. For a missing member
	// it is where the member should be.
	Pointer string `json:"pointer"`
	// Offset is the byte offset in Message.Raw where the concerned value
	// starts. For a member that is missing, it is where the enclosing object
	// starts; for a member that should not be there (duplicate, unknown,
	// misplaced), where its name starts; for a syntax error, where the
	// error was detected.
	Offset int `json:"offset"`
	// Detail is a sentence for humans saying what was found.
	Detail string `json:"detail"`
}

// Severity returns the severity of the problem's reason.
func (p Problem) Severity() Severity { return p.Reason.Severity() }

// String renders the problem as "reason at pointer (offset N): detail".
func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "the message"
	}
	return fmt.Sprintf("%s at %s (offset %d): %s", p.Reason, ptr, p.Offset, p.Detail)
}
