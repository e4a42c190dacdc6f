package wire

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Kind says what a Frame is.
type Kind int

// The kinds of frame.
const (
	// KindMessage is a JSON value received as one message: a stdio line, the
	// data of an SSE event or an HTTP body. Frame.Msg holds its
	// classification, which may still say it is no valid JSON-RPC message.
	KindMessage Kind = iota + 1
	// KindGarbage is bytes that are not exactly one JSON value where a
	// message was due: a
	// non-MCP line on stdout, an SSE event whose data is not JSON, an HTTP
	// body that is not JSON. An empty stdio line is garbage too.
	KindGarbage
	// KindTooLong is a line, event or body over the size limit. It was
	// discarded; Frame.Size says how long it was and Frame.Raw holds at most
	// its first bytes.
	KindTooLong
	// KindEmptyEvent is an SSE event with no data lines, such as the priming
	// event of the 2025-11-25 streamable HTTP transport (an id and an empty
	// data field) or an event carrying only retry.
	KindEmptyEvent
	// KindEndpoint is the endpoint event of the HTTP+SSE transport; Raw holds
	// its data (the URI to POST to).
	KindEndpoint
	// KindStatus is an HTTP response that carried no message: an empty body
	// such as 202 Accepted or 405 Method Not Allowed.
	KindStatus
	// KindEnd marks the end of a stream: the target's stdout reached EOF, or
	// an SSE response stream ended. Frame.Err says why when it was not a
	// clean end of stream.
	KindEnd
	// KindTransportError is a request that got no HTTP response at all
	// (connection refused, reset, a malformed response). Frame.Err says what
	// happened.
	KindTransportError
	// KindHTTPRequest is an HTTP request without a body (GET, DELETE), as
	// a stage that plays the server sees a client's; Frame.HTTP holds its
	// method, URL and headers.
	KindHTTPRequest
)

var kindNames = [...]string{"", "message", "garbage", "too-long", "empty-event", "endpoint", "status", "end", "transport-error", "http-request"}

// String is a lower-case name such as "message" or "too-long".
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Transport names how a target is reached: the one transport type of the
// harness (target.Transport is this type). A connection's Transport() is
// one of stdio, streamable and sse; stateless and auto are what a user
// may ask for (see target.ParseTransport).
type Transport string

// The transports.
const (
	TransportStdio      Transport = "stdio"
	TransportStreamable Transport = "streamable"
	TransportSSE        Transport = "sse"
	// TransportStateless is streamable HTTP in the 2026-07-28 shape: on
	// the wire a streamable connection, the name says which era to test.
	TransportStateless Transport = "stateless"
	// TransportAuto is a URL whose transport is detected.
	TransportAuto Transport = "auto"
)

// StreamStdio is the Stream of every frame of a stdio connection.
const StreamStdio = "stdio"

// HTTPInfo is the HTTP side of a frame or of a request sent.
type HTTPInfo struct {
	Method string
	URL    string
	// Status is the response status; 0 on a request.
	Status int
	// Header holds the response headers on a frame, the request headers on a
	// request sent.
	Header http.Header
}

// Frame is one thing received from the target. Frames are values; their
// byte slices are owned by the receiver and never reused.
type Frame struct {
	Kind Kind
	// Raw is the bytes received, exactly (for KindTooLong, a prefix).
	Raw []byte
	// Msg is the JSON-RPC classification of Raw, set for KindMessage.
	Msg jsonrpc.Message
	// Stream identifies where the frame came from: StreamStdio, or the
	// stream ID of the HTTP exchange that produced it ("post-3", "get-1",
	// "sse").
	Stream string
	// HTTP describes the HTTP exchange the frame belongs to (the request's
	// method and URL, the response's status and headers); nil on stdio and
	// on a transport error without a response.
	HTTP *HTTPInfo
	// InSSE reports a frame that came from an SSE stream (an event, or the
	// stream's end); more frames may follow on the same Stream. An HTTP
	// frame without InSSE is the whole answer of its exchange.
	InSSE bool
	// Ack marks the HTTP answer to a POST of the HTTP+SSE transport
	// (2024-11-05) that is a 2xx without a message (an empty body, or text
	// such as "Accepted"): it only acknowledges the message; the answer to
	// it, if any, arrives on the SSE stream (StreamSSE), so it settles
	// nothing about that answer.
	Ack bool
	// SSE fields, for frames that came from an SSE event.
	Event      string        // the event type ("" when absent, meaning "message")
	EventID    string        // the id field
	HasEventID bool          // whether the event carried an id field
	Retry      time.Duration // the retry field
	HasRetry   bool
	// CR reports a stdio line that ended in CR LF; Unterminated one cut off
	// by the end of the stream.
	CR, Unterminated bool
	// Size is the length of a KindTooLong frame's discarded bytes.
	Size int64
	// Err says why a stream ended abnormally (KindEnd) or a request failed
	// (KindTransportError).
	Err error
	// Time is when the frame was received.
	Time time.Time
}

// IsResponseTo reports whether the frame is a (valid or not) response whose
// id is id.
func (f Frame) IsResponseTo(id jsonrpc.ID) bool {
	return f.Kind == KindMessage && f.Msg.Shape.IsResponse() && !f.Msg.ID.IsZero() && f.Msg.ID == id
}

// Status is the HTTP status of the frame's exchange, 0 when there is none.
func (f Frame) Status() int {
	if f.HTTP == nil {
		return 0
	}
	return f.HTTP.Status
}

// ErrUnauthorized is wrapped by the errors of those that stop on an HTTP
// 401 (see Frame.Challenge): the target asks for a token mcpcheck was not
// given, or does not accept the one given.
var ErrUnauthorized = errors.New("the target asks for authorization (HTTP 401)")

// UnauthorizedAdvice is what to do about ErrUnauthorized.
const UnauthorizedAdvice = "give mcpcheck a token the server accepts (mcpcheck server --header-env Authorization:VAR, VAR holding \"Bearer <token>\"; a server that trusts an mcpcheck authserver takes the token of 'mcpcheck authserver mint')"

// Challenge returns the WWW-Authenticate challenge of an HTTP 401 answer
// (an endpoint that asks for authorization: an OAuth-protected MCP server
// given no token, or one it does not accept) and true; "" and false for
// any other frame. A 401 says nothing about the request it refused, so no
// check is judged on one but the authorization checks.
func (f Frame) Challenge() (string, bool) {
	if f.HTTP == nil || f.HTTP.Status != http.StatusUnauthorized {
		return "", false
	}
	return strings.Join(f.HTTP.Header.Values("WWW-Authenticate"), ", "), true
}

// UnauthorizedError is the error for an HTTP 401 whose WWW-Authenticate
// challenge is ch (see Challenge), after what: it wraps ErrUnauthorized,
// quotes the challenge and says what to do.
func UnauthorizedError(what, ch string) error {
	if ch == "" {
		ch = "no WWW-Authenticate header"
	} else {
		ch = "WWW-Authenticate: " + ch
	}
	return fmt.Errorf("%s: %w, %s: %s", what, ErrUnauthorized, ch, UnauthorizedAdvice)
}

// Describe says in words what the frame is, for reports: "an error
// response (id 3) with code -32601 (MethodNotFound): \"no such method\"",
// "a non-JSON line \"hello\"", "HTTP 202 with an empty body".
func (f Frame) Describe() string {
	var b strings.Builder
	switch f.Kind {
	case KindMessage:
		b.WriteString(describeMessage(&f.Msg))
	case KindGarbage:
		if len(f.Raw) == 0 {
			b.WriteString("an empty line")
		} else {
			fmt.Fprintf(&b, "%d bytes that are not JSON: %s", len(f.Raw), Excerpt(f.Raw, 80))
		}
	case KindTooLong:
		fmt.Fprintf(&b, "%d bytes without a frame boundary, over the size limit (discarded)", f.Size)
	case KindEmptyEvent:
		b.WriteString("an SSE event without data")
		if f.HasEventID {
			fmt.Fprintf(&b, " (id %q)", f.EventID)
		}
		if f.HasRetry {
			fmt.Fprintf(&b, " (retry %v)", f.Retry)
		}
	case KindEndpoint:
		fmt.Fprintf(&b, "an endpoint event: %s", Excerpt(f.Raw, 120))
	case KindStatus:
		b.WriteString("a response with an empty body")
	case KindEnd:
		b.WriteString("the end of the stream")
		if f.Err != nil {
			fmt.Fprintf(&b, " (%v)", f.Err)
		}
	case KindTransportError:
		fmt.Fprintf(&b, "no HTTP response: %v", f.Err)
	case KindHTTPRequest:
		if f.HTTP != nil {
			fmt.Fprintf(&b, "an HTTP %s without a body", f.HTTP.Method)
		} else {
			b.WriteString("an HTTP request without a body")
		}
	default:
		b.WriteString(f.Kind.String())
	}
	if f.HTTP != nil && f.HTTP.Status != 0 {
		ct := f.HTTP.Header.Get("Content-Type")
		if ct == "" {
			ct = "no Content-Type"
		}
		fmt.Fprintf(&b, " [HTTP %d, %s, %s %s]", f.HTTP.Status, ct, f.HTTP.Method, f.Stream)
	}
	return b.String()
}

func describeMessage(m *jsonrpc.Message) string {
	id := ""
	if !m.ID.IsZero() {
		id = " (id " + m.ID.String() + ")"
	}
	var s string
	switch m.Shape {
	case jsonrpc.KindRequest:
		s = fmt.Sprintf("a %s request%s", m.Method, id)
	case jsonrpc.KindNotification:
		s = fmt.Sprintf("a %s notification", m.Method)
	case jsonrpc.KindResponse:
		s = "a result response" + id
	case jsonrpc.KindErrorResponse:
		s = "an error response" + id
		if m.Error != nil {
			name := jsonrpc.CodeName(m.Error.Code)
			if name != "" {
				name = " (" + name + ")"
			}
			s += fmt.Sprintf(" with code %d%s: %s", m.Error.Code, name, Excerpt([]byte(m.Error.Message), 80))
		}
	default:
		s = "a JSON value that is no JSON-RPC message: " + Excerpt(m.Raw, 80)
		if len(m.Problems) > 0 {
			s = "a JSON value that is no JSON-RPC message (" + m.Problems[0].Detail + "): " + Excerpt(m.Raw, 80)
		}
	}
	if !m.Valid() && m.Shape != jsonrpc.KindInvalid && len(m.Problems) > 0 {
		s += " that is invalid (" + m.Problems[0].Detail + ")"
	}
	return s
}

// Excerpt quotes at most n bytes of b for a report, marking a cut.
func Excerpt(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + fmt.Sprintf("… (%d bytes)", len(b))
}

// Classify builds a frame from bytes that were due to be one message: a
// KindMessage with its JSON-RPC classification, or KindGarbage for bytes
// that are not exactly one JSON value. Time is now; the caller sets the
// rest (Stream, HTTP, SSE fields).
func Classify(raw []byte) Frame {
	f := Frame{Raw: raw, Time: time.Now()}
	if len(raw) == 0 {
		f.Kind = KindGarbage
		return f
	}
	m := jsonrpc.Decode(raw)
	if m.Has(jsonrpc.ReasonNotJSON) || m.Has(jsonrpc.ReasonTrailingData) {
		// Not exactly one JSON value: "404 page not found" starts with one.
		f.Kind = KindGarbage
		return f
	}
	f.Kind = KindMessage
	f.Msg = m
	return f
}

// frameOverhead is what a kept Frame costs besides its Raw bytes: the
// struct, the decoded message's fields, HTTP metadata. An estimate, used
// only to bound how much of a flood is kept.
const frameOverhead = 512

// Cost is an estimate of the memory a kept copy of f holds, for byte
// budgets over frames kept from a target that may flood.
func (f Frame) Cost() int { return len(f.Raw) + frameOverhead }
