package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/harness/session"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/catalog"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
)

// InForce reports whether requirement id applies in the check's version.
func (t *T) InForce(id string) bool {
	rec, ok := t.vr.r.cat.Get(id)
	return ok && rec.In(t.Version())
}

// ViolateFirst records a violation of the first of ids in force in the
// check's version (for rules the specification restated under a new ID).
func (t *T) ViolateFirst(ids []string, expected, actual string) {
	for _, id := range ids {
		if t.InForce(id) {
			t.Violation(id, expected, actual)
			return
		}
	}
	t.Fail(expected, actual)
}

// SendWithID sends a request with a chosen id on c, with the era's _meta and
// headers, and returns the stream its answer will come on.
func (t *T) SendWithID(c *Conn, id jsonrpc.ID, method string, params any) string {
	if c.Stateless != nil {
		p, err := c.Stateless.Params(params)
		t.must(err)
		h, err := c.Stateless.Headers(method, p)
		t.must(err)
		st, err := c.Stateless.RequestRaw(t.Ctx, id, method, p, h)
		t.must(err)
		return st
	}
	st, err := c.Stateful.RequestWithID(t.Ctx, id, method, params)
	t.must(err)
	return st
}

// SendLine sends b as one message: on stdio with the line feed that ends
// it, on HTTP as a POST body.
func (t *T) SendLine(s Sess, b []byte) string {
	if t.Stdio() {
		b = append(append([]byte(nil), b...), '\n')
	}
	st, err := s.SendRaw(t.Ctx, b)
	t.must(err)
	return st
}

// WaitQuiet watches for Quiet for a frame that must not arrive; it returns
// the observation (a match is the silence).
func (t *T) WaitQuiet(s Sess, desc string, bad func(wire.Frame) bool) expect.Observed {
	return s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Never(desc, bad), expect.Silence("nothing of the kind within "+t.Quiet().String()))
}

// stdioAlts adds what an HTTP target may answer to a broken POST: a 4xx
// status with or without a body.
func (t *T) httpRefusal(stream string) []expect.Alt {
	if t.Stdio() {
		return nil
	}
	return []expect.Alt{expect.HTTPStatus(stream, 400, 404, 405, 406, 415, 422)}
}

// isResponse reports a frame that is (shaped like) a JSON-RPC response.
func isResponse(f wire.Frame) bool {
	if f.Kind != wire.KindMessage || f.Msg.Method != "" {
		return false
	}
	return f.Msg.Shape == jsonrpc.KindResponse || f.Msg.Shape == jsonrpc.KindErrorResponse
}

// idless reports a response without a usable id (absent or null).
func idless(f wire.Frame) bool { return isResponse(f) && (f.Msg.IDAbsent || f.Msg.IDNull) }

// othersText renders frames for an Actual text.
func othersText(fs []wire.Frame) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Describe())
	}
	return strings.Join(s, "; ")
}

// emptyObject reports whether raw is {} or holds only _meta.
func emptyObject(raw json.RawMessage) (bool, string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, "the result is not an object"
	}
	var extra []string
	for k := range m {
		if k != "_meta" {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		return false, fmt.Sprintf("the result has members %s", strings.Join(extra, ", "))
	}
	return true, ""
}

// replyText says what a reply was, for Saw.
func replyText(r session.Reply) string { return r.Describe() }

// errorCodeOf returns the error code of an error response frame.
func errorCodeOf(f wire.Frame) (int64, bool) {
	if f.Msg.Error == nil {
		return 0, false
	}
	return f.Msg.Error.Code, true
}

var _ = spec.V20241105
var _ = catalog.Must
