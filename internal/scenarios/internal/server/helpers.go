package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
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

// Breach records a breach found by one of the message rules (internal/harness/rules)
// as a violation of its requirement, or of every cited requirement when
// none of the rule's requirements is in force in the check's version.
func (t *T) Breach(b rules.Breach) {
	if b.Requirement == "" {
		t.Fail(b.Expected, b.Actual)
		return
	}
	t.Violation(b.Requirement, b.Expected, b.Actual)
}

// SendWithID sends a request with a chosen id on c, with the era's _meta and
// headers, and returns the stream its answer will come on.
func (t *T) SendWithID(c *Conn, id jsonrpc.ID, method string, params any) string {
	if c.Stateless != nil {
		p, err := c.Stateless.Params(params)
		t.Must(err)
		h, err := c.Stateless.Headers(method, p)
		t.Must(err)
		st, err := c.Stateless.RequestRaw(t.Ctx, id, method, p, h)
		t.Must(err)
		return st
	}
	st, err := c.Stateful.RequestWithID(t.Ctx, id, method, params)
	t.Must(err)
	return st
}

// Ask sends a request of method with params on c under a new id (see
// SendWithID) and returns the id and the stream its answer will come on.
func (t *T) Ask(c *Conn, method string, params any) (jsonrpc.ID, string) {
	id := c.S().NextID()
	return id, t.SendWithID(c, id, method, params)
}

// AnswerOn waits up to the step timeout for one of alts on stream st of s.
func (t *T) AnswerOn(s Sess, st string, alts ...expect.Alt) expect.Observed {
	return s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()}, alts...)
}

// AskError asks method with params on c (see ask) and waits for an error
// response to it with one of codes (any code when none).
func (t *T) AskError(c *Conn, method string, params any, codes ...int64) expect.Observed {
	id, st := t.Ask(c, method, params)
	return t.AnswerOn(c.S(), st, expect.Error(id, codes...))
}

// discoverWithMeta sends server/discover on s with the session's _meta as
// edit leaves it (and the headers that go with it), and returns the id and
// the stream its answer will come on.
func (t *T) discoverWithMeta(s *session.Stateless, edit func(meta mcp.Meta)) (jsonrpc.ID, string) {
	meta := s.Meta()
	edit(meta)
	params, err := json.Marshal(map[string]any{"_meta": meta})
	t.Must(err)
	h, err := s.Headers(spec.MethodServerDiscover, params)
	t.Must(err)
	id := s.NextID()
	st, err := s.RequestRaw(t.Ctx, id, spec.MethodServerDiscover, params, h)
	t.Must(err)
	return id, st
}

// SendLine sends b as one message: on stdio with the line feed that ends
// it, on HTTP as a POST body.
func (t *T) SendLine(s Sess, b []byte) string {
	if t.Stdio() {
		b = append(append([]byte(nil), b...), '\n')
	}
	st, err := s.SendRaw(t.Ctx, b)
	t.Must(err)
	return st
}

// WaitQuiet watches for Quiet for a frame that must not arrive; it returns
// the observation (a match is the silence).
func (t *T) WaitQuiet(s Sess, desc string, bad func(wire.Frame) bool) expect.Observed {
	return s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Never(desc, bad), expect.Silence("nothing of the kind within "+t.Quiet().String()))
}

// PassiveRule is what a passive check holds every observation of one kind
// in the version's run to (see judgeObserved).
type PassiveRule struct {
	// Expected is the Expected text of a breach.
	Expected string
	// Limit is how many breaches are recorded at most (0: every one).
	Limit int
	// None is the n/a reason when no observation is of the kind.
	None string
	// Saw is the text of a pass, a format for the number of observations
	// of the kind ("" for none).
	Saw string
}

// JudgeObserved holds every observation of the version's run to rule:
// judge says whether o is of the rule's kind and, when o breaks the rule,
// the Actual text of the breach ("" when o keeps it). The check is n/a
// when no observation is of the kind, and passes when none breaks the rule.
func (t *T) JudgeObserved(rule PassiveRule, judge func(o Observation) (bool, string)) {
	bad := 0
	t.tallyObserved(rule.None, rule.Saw, func(o Observation) (bool, bool) {
		counted, why := judge(o)
		if why == "" {
			return counted, false
		}
		bad++
		if rule.Limit <= 0 || bad <= rule.Limit {
			t.Fail(rule.Expected, why)
		}
		return counted, true
	})
}

// tallyObserved is the frame of a passive check that records its own
// breaches: judge says whether o is one the check is about and whether it
// broke a rule (recording the violation itself). With none counted the
// check is n/a with none; with none broken it passes, saying saw (a format
// for the count; "" for nothing).
func (t *T) tallyObserved(none, saw string, judge func(o Observation) (counted, broke bool)) {
	obs, _ := t.Observed()
	n, bad := 0, 0
	for _, o := range obs {
		counted, broke := judge(o)
		if counted {
			n++
		}
		if broke {
			bad++
		}
	}
	if n == 0 {
		t.ObservedUnjudged(none, false)
		return
	}
	if bad == 0 {
		if saw != "" {
			t.Saw(saw, n)
		}
		t.Pass()
	}
}

// NoServerRequests fails the check with expected at the first JSON-RPC
// request the server sent in the version's run, and otherwise passes,
// saying saw (a format for the number of frames).
func (t *T) NoServerRequests(expected, saw string) {
	obs, _ := t.Observed()
	for _, o := range obs {
		if o.Kind == wire.KindMessage && o.Msg.Shape == jsonrpc.KindRequest {
			t.Fail(expected, wire.Excerpt(o.Raw, 200))
			return
		}
	}
	t.Saw(saw, len(obs))
	t.Pass()
}

// modernResult reports a result response that the 2026-07-28 rules on
// results (resultType, serverInfo in _meta) apply to (see legacyEraResult).
func modernResult(o Observation) bool {
	return o.Kind == wire.KindMessage && o.Msg.Shape == jsonrpc.KindResponse && !legacyEraResult(o)
}

// resultType returns the resultType of a result, and whether it has one
// (a string).
func resultType(raw json.RawMessage) (string, bool) {
	var r struct {
		ResultType *string `json:"resultType"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ResultType == nil {
		return "", false
	}
	return *r.ResultType, true
}

// httpRefusal adds what an HTTP target may answer to a broken POST: a 4xx
// status with or without a body.
func (t *T) httpRefusal(stream string) []expect.Alt {
	if t.Stdio() {
		return nil
	}
	return []expect.Alt{expect.HTTPStatus(stream, 400, 404, 405, 406, 415, 422)}
}

// IsResponse reports a frame that is (shaped like) a JSON-RPC response.
func IsResponse(f wire.Frame) bool {
	if f.Kind != wire.KindMessage || f.Msg.Method != "" {
		return false
	}
	return f.Msg.Shape == jsonrpc.KindResponse || f.Msg.Shape == jsonrpc.KindErrorResponse
}

// answersOther reports whether f is the answer to another request s sent
// than those with ids (session's AnswersOther): a late answer, or the
// answer to a request still awaited. A matcher that takes the next
// response as the one it waits for skips it; it is judged for its own
// request, never as a wrong id. Duplicates and ids no request carried are
// not skipped: they break the id-echo rule.
func answersOther(s Sess, f wire.Frame, ids ...jsonrpc.ID) bool {
	a, ok := s.(interface {
		AnswersOther(wire.Frame, ...jsonrpc.ID) bool
	})
	return ok && a.AnswersOther(f, ids...)
}

// otherPost reports whether f came on the response stream of another
// streamable HTTP POST than post (the stream a wait is for): over
// streamable HTTP a POST's answer travels on that POST's own response, so
// such a frame answers another message — even one without an id, as the
// refusal of a message whose id could not be used is. A slow target's
// late body for an earlier POST (its status line taken already) is not
// this POST's answer. Over stdio and HTTP+SSE (one stream for every
// answer) nothing is another POST's.
func otherPost(post string, f wire.Frame) bool {
	return strings.HasPrefix(post, "post-") && strings.HasPrefix(f.Stream, "post-") && f.Stream != post
}

// idless reports a response without a usable id (absent or null).
func idless(f wire.Frame) bool { return IsResponse(f) && (f.Msg.IDAbsent || f.Msg.IDNull) }

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

// ErrorCodeOf returns the error code of an error response frame.
func ErrorCodeOf(f wire.Frame) (int64, bool) {
	if f.Msg.Error == nil {
		return 0, false
	}
	return f.Msg.Error.Code, true
}

// setupReply reports whether r, the answer to a request a check makes only
// to get where it judges (a handshake, a listing), is a result; when it is
// not, it ends the check without a verdict on what the check is about: a
// harness error when no answer came (the wait went unanswered or was cut
// short: a failed precondition), untestable when the target answered
// otherwise (the checks of that request judge the answer).
func (t *T) setupReply(r session.Reply, what string) bool {
	if r.OK() {
		return true
	}
	switch {
	case r.Err != nil && r.Observed.Status == 0:
		t.Error(fmt.Errorf("precondition: %s could not be sent: %v", what, r.Err))
	case r.Observed.Status == expect.TimedOut || r.Observed.Status == expect.Aborted:
		t.Error(fmt.Errorf("precondition: %s got no answer (%s), so the check could not get to what it judges", what, r.Observed.Actual))
	default:
		t.Untestable(fmt.Sprintf("%s was not answered with a result (%s); the checks of that request judge it", what, r.Describe()))
	}
	return false
}

// TaskCallParams are the params of a tools/call of name with args,
// augmented with task.
func TaskCallParams(name string, args any, task map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args, "task": task}
}

// TaskResult asks tasks/result of task id, which blocks until the task is
// terminal.
func (t *T) TaskResult(s Sess, id string) session.Reply {
	return s.Call(t.Ctx, spec.MethodTasksResult, map[string]any{"taskId": id})
}
