package expect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Codes renders error codes with their names: "-32601 (MethodNotFound)".
func Codes(codes []int64) string {
	var ss []string
	for _, c := range codes {
		ss = append(ss, code(c))
	}
	switch len(ss) {
	case 0:
		return "any code"
	case 1:
		return ss[0]
	}
	return "one of " + strings.Join(ss, ", ")
}

func code(c int64) string {
	if n := jsonrpc.CodeName(c); n != "" {
		return fmt.Sprintf("%d (%s)", c, n)
	}
	return strconv.FormatInt(c, 10)
}

func invalid(f wire.Frame) string {
	if f.Msg.Valid() {
		return ""
	}
	var ds []string
	for _, p := range f.Msg.Problems {
		if p.Severity() == jsonrpc.SeverityInvalid {
			ds = append(ds, p.Detail)
		}
	}
	return "the response is not valid JSON-RPC: " + strings.Join(ds, "; ")
}

// Result accepts a success response to id whose result passes check (nil
// accepts any result). An error response to id, an invalid response, or a
// result that fails check is a rejection, with the reason.
func Result(id jsonrpc.ID, desc string, check func(result json.RawMessage) error) Alt {
	if desc == "" {
		desc = "a result"
	}
	return Alt{
		Desc:    fmt.Sprintf("%s in a response to id %s", desc, id),
		Answers: id,
		On: func(f wire.Frame) (Verdict, string) {
			if !f.IsResponseTo(id) {
				return Unrelated, ""
			}
			if f.Msg.Shape == jsonrpc.KindErrorResponse {
				return Rejected, "it is an error response, not a result"
			}
			if why := invalid(f); why != "" {
				return Rejected, why
			}
			if check != nil {
				if err := check(f.Msg.Result); err != nil {
					return Rejected, err.Error()
				}
			}
			return Accepted, ""
		},
	}
}

// Error accepts an error response to id with one of codes (any code when
// none are given). A result, or an error with another code, is a
// rejection: a refusal for the wrong reason is not a pass.
func Error(id jsonrpc.ID, codes ...int64) Alt {
	return ErrorWhere(id, "", codes, nil)
}

// ErrorWhere is Error with a further check of the error object (message,
// data); desc describes that check.
func ErrorWhere(id jsonrpc.ID, desc string, codes []int64, check func(*jsonrpc.ErrorObject) error) Alt {
	d := fmt.Sprintf("an error response to id %s with code %s", id, Codes(codes))
	if desc != "" {
		d += " " + desc
	}
	return Alt{Desc: d, Answers: id, On: func(f wire.Frame) (Verdict, string) {
		if !f.IsResponseTo(id) {
			return Unrelated, ""
		}
		return judgeError(f, codes, check)
	}}
}

func judgeError(f wire.Frame, codes []int64, check func(*jsonrpc.ErrorObject) error) (Verdict, string) {
	if f.Msg.Shape == jsonrpc.KindResponse {
		return Rejected, "it is a result, not an error"
	}
	if why := invalid(f); why != "" {
		return Rejected, why
	}
	if len(codes) > 0 && !slices.Contains(codes, f.Msg.Error.Code) {
		return Rejected, fmt.Sprintf("code %s is not %s", code(f.Msg.Error.Code), Codes(codes))
	}
	if check != nil {
		if err := check(f.Msg.Error); err != nil {
			return Rejected, err.Error()
		}
	}
	return Accepted, ""
}

// ErrorWithoutID accepts an error response whose id is null or absent (the
// answer to a message whose id could not be read) with one of codes.
func ErrorWithoutID(codes ...int64) Alt {
	return Alt{Desc: fmt.Sprintf("an error response with a null id and code %s", Codes(codes)), On: func(f wire.Frame) (Verdict, string) {
		if f.Kind != wire.KindMessage || f.Msg.Shape != jsonrpc.KindErrorResponse || !(f.Msg.IDNull || f.Msg.IDAbsent) {
			return Unrelated, ""
		}
		return judgeError(f, codes, nil)
	}}
}

// AnyResponse accepts any valid response to id, result or error.
func AnyResponse(id jsonrpc.ID) Alt {
	return Alt{Desc: fmt.Sprintf("a response to id %s", id), Answers: id, On: func(f wire.Frame) (Verdict, string) {
		if !f.IsResponseTo(id) {
			return Unrelated, ""
		}
		if why := invalid(f); why != "" {
			return Rejected, why
		}
		return Accepted, ""
	}}
}

// Notification accepts a notification of method whose params pass check
// (nil accepts any). A notification of that method that fails check is a
// rejection.
func Notification(method string, check func(params json.RawMessage) error) Alt {
	return Alt{Desc: fmt.Sprintf("a %s notification", method), On: func(f wire.Frame) (Verdict, string) {
		if f.Kind != wire.KindMessage || f.Msg.Shape != jsonrpc.KindNotification || f.Msg.Method != method {
			return Unrelated, ""
		}
		if check != nil {
			if err := check(f.Msg.Params); err != nil {
				return Rejected, err.Error()
			}
		}
		return Accepted, ""
	}}
}

// HTTPStatus accepts the first frame of an HTTP exchange (stream) whose status
// is one of codes; another status is a rejection, except on the events of
// an SSE response stream and on an HTTP+SSE acknowledgement (wire.Frame.Ack),
// which it leaves to the other alternatives.
func HTTPStatus(stream string, codes ...int) Alt {
	var cs []string
	for _, c := range codes {
		cs = append(cs, strconv.Itoa(c))
	}
	return Alt{Desc: fmt.Sprintf("HTTP status %s on %s", strings.Join(cs, " or "), stream), On: func(f wire.Frame) (Verdict, string) {
		if f.Stream != stream {
			return Unrelated, ""
		}
		if f.HTTP == nil {
			return Rejected, "no HTTP response"
		}
		if (f.Ack || f.InSSE) && !slices.Contains(codes, f.HTTP.Status) {
			// HTTP+SSE: the POST was only acknowledged; its answer comes
			// on the SSE stream. Or the exchange opened an SSE stream
			// (a priming event, a notification before the response):
			// the events on it are for other alternatives to judge, and
			// its end settles a wait that nothing else matched.
			return Unrelated, ""
		}
		if !slices.Contains(codes, f.HTTP.Status) {
			return Rejected, fmt.Sprintf("HTTP status %d is not %s", f.HTTP.Status, strings.Join(cs, " or "))
		}
		return Accepted, ""
	}}
}

// WithStatus narrows a: a frame a accepts must also carry one of the HTTP
// statuses codes, or it is a rejection ("400 with HeaderMismatch").
func WithStatus(a Alt, codes ...int) Alt {
	var cs []string
	for _, c := range codes {
		cs = append(cs, strconv.Itoa(c))
	}
	inner := a.On
	return Alt{Desc: fmt.Sprintf("%s with HTTP status %s", a.Desc, strings.Join(cs, " or ")), OnTimeout: a.OnTimeout, On: func(f wire.Frame) (Verdict, string) {
		v, why := inner(f)
		if v != Accepted {
			return v, why
		}
		if f.HTTP == nil || !slices.Contains(codes, f.HTTP.Status) {
			return Rejected, fmt.Sprintf("it came with HTTP status %d, not %s", f.Status(), strings.Join(cs, " or "))
		}
		return Accepted, ""
	}}
}

// Silence accepts the timeout: nothing that settles the check arrived.
// Combine it with Never to say what must not arrive.
func Silence(desc string) Alt {
	if desc == "" {
		desc = "no answer"
	}
	return Alt{Desc: desc, OnTimeout: true}
}

// Never rejects any frame for which relevant is true; desc says what must
// not arrive ("no response to a notification").
func Never(desc string, relevant func(wire.Frame) bool) Alt {
	return Alt{Desc: desc, On: func(f wire.Frame) (Verdict, string) {
		if relevant(f) {
			return Rejected, "expected " + desc
		}
		return Unrelated, ""
	}}
}

// StreamEnd accepts the end of stream (an SSE response stream closing, or
// stdout at EOF for wire.StreamStdio).
func StreamEnd(stream string) Alt {
	return Alt{Desc: "the end of stream " + stream, On: func(f wire.Frame) (Verdict, string) {
		if f.Kind == wire.KindEnd && f.Stream == stream {
			return Accepted, ""
		}
		return Unrelated, ""
	}}
}

// Matching is an alternative from a function, for anything the helpers do
// not cover.
func Matching(desc string, on func(wire.Frame) (Verdict, string)) Alt {
	return Alt{Desc: desc, On: on}
}
