package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Breach is one rule a message broke.
type Breach struct {
	// Rule names the rule, stable across runs ("jsonrpc/id-null",
	// "response/result-and-error"): fuzz findings are deduplicated by it.
	Rule string
	// Requirement is the catalog ID broken; "" when the rule's
	// requirement is not in force in the message's version (the caller
	// decides what that means, usually the rule's first candidate).
	Requirement string
	// Candidates are the requirements the rule stands for, in order of
	// preference; Requirement is the first of them in force.
	Candidates []string
	// Expected says what the rule holds the sender to; Actual what the
	// message did, with an excerpt.
	Expected, Actual string
}

func breach(v spec.Version, rule, expected, actual string, candidates ...string) Breach {
	return Breach{Rule: rule, Requirement: FirstInForce(v, candidates...), Candidates: candidates, Expected: expected, Actual: actual}
}

// excerpt quotes the start of a message for an Actual text.
func excerpt(raw []byte) string { return wire.Excerpt(raw, 200) }

// ResponseShape holds a response to carrying exactly one of result and
// error. ok is false when m keeps the rule (or is no response).
func ResponseShape(v spec.Version, m jsonrpc.Message) (Breach, bool) {
	switch {
	case m.Has(jsonrpc.ReasonResultAndError):
		return breach(v, "response/result-and-error", "a response has result or error, not both", "both in "+excerpt(m.Raw),
			ReqNotResultAndError, ReqJSONRPC2), true
	case m.Has(jsonrpc.ReasonNoMethodResultOrError):
		return breach(v, "response/neither-result-nor-error", "a response carries result or error", "neither in "+excerpt(m.Raw),
			ReqResultOrError, ReqResultMemberPresent), true
	}
	return Breach{}, false
}

// ErrorObject holds an error response to an error object with an integer
// code and a string message. counted is false when m is no error
// response; ok is false when it keeps the rule.
func ErrorObject(v spec.Version, m jsonrpc.Message) (b Breach, counted, ok bool) {
	if m.Shape != jsonrpc.KindErrorResponse {
		return Breach{}, false, false
	}
	switch {
	case m.Has(jsonrpc.ReasonErrorCodeFloat), m.Has(jsonrpc.ReasonErrorCodeNotNumber), m.Has(jsonrpc.ReasonErrorCodeMissing), m.Has(jsonrpc.ReasonErrorCodeOutOfRange):
		return breach(v, "error/code-not-integer", "the error code is an integer", excerpt(m.Raw), ReqErrorCodeInteger), true, true
	case m.Has(jsonrpc.ReasonErrorMessageMissing), m.Has(jsonrpc.ReasonErrorMessageNotString), m.Has(jsonrpc.ReasonErrorNotObject):
		return breach(v, "error/no-code-or-message", "the error object has a code and a string message", excerpt(m.Raw),
			ReqErrorCodeAndMessage, ReqErrorCodeInteger), true, true
	}
	return Breach{}, true, false
}

// NotificationID holds a notification (a message whose method is in the
// notifications/ namespace) to having no id member. counted is false when
// m is no such message.
func NotificationID(v spec.Version, m jsonrpc.Message) (b Breach, counted, ok bool) {
	if !strings.HasPrefix(m.Method, "notifications/") {
		return Breach{}, false, false
	}
	if !m.IDAbsent {
		return breach(v, "notification/has-id", "a notification has no id member", excerpt(m.Raw), ReqNotificationNoID), true, true
	}
	return Breach{}, true, false
}

// UTF8 holds the bytes of a message to being UTF-8.
func UTF8(v spec.Version, raw []byte) (Breach, bool) {
	if utf8.Valid(raw) {
		return Breach{}, false
	}
	return breach(v, "message/not-utf8", "every message is valid UTF-8", "invalid UTF-8 in "+excerpt(raw), ReqUTF8), true
}

// IsRequest reports whether m is shaped like a request: a method outside
// the notifications/ namespace and an id member (of any value).
func IsRequest(m jsonrpc.Message) bool {
	return m.Method != "" && !m.IDAbsent && !strings.HasPrefix(m.Method, "notifications/")
}

// RequestIDs holds the ids of the requests one peer sends: present, not
// null, a string or an integer, and not reused. Before 2026-07-28 an id is
// never reused within a session; from 2026-07-28 only while the earlier
// request with that id still awaits its answer (call Answered as answers
// go by). Keep one RequestIDs per session (connection).
//
// Concurrency: not safe for concurrent use.
type RequestIDs struct {
	from spec.Direction
	seen map[jsonrpc.ID]bool
	open map[jsonrpc.ID]bool
	max  int
}

// NewRequestIDs returns a ledger of the request ids of the peer that sends
// as from (spec.ServerToClient or spec.ClientToServer: rules that bind
// only clients are held to clients only). It remembers at most max ids
// (100000 when max <= 0; beyond it, older ids are forgotten).
func NewRequestIDs(from spec.Direction, max int) *RequestIDs {
	if max <= 0 {
		max = DefaultMaxMethods
	}
	return &RequestIDs{from: from, seen: map[jsonrpc.ID]bool{}, open: map[jsonrpc.ID]bool{}, max: max}
}

// Request judges the id of m, a request (see IsRequest), in version v.
func (l *RequestIDs) Request(v spec.Version, m jsonrpc.Message) (Breach, bool) {
	switch {
	case m.IDNull:
		return breach(v, "request/id-null", "a request id is not null", excerpt(m.Raw), ReqIDNotNull), true
	case m.ID.IsZero():
		return breach(v, "request/id-type", "a request id is a string or an integer", excerpt(m.Raw), ReqIDStringOrInteger), true
	}
	if len(l.seen) >= l.max {
		l.seen = map[jsonrpc.ID]bool{}
	}
	defer func() { l.seen[m.ID] = true; l.open[m.ID] = true }()
	switch {
	case l.seen[m.ID] && InForce(ReqIDUniqueInSession, v):
		return breach(v, "request/id-reused", "request ids are not reused within a session", fmt.Sprintf("id %s used again: %s", m.ID, excerpt(m.Raw)), ReqIDUniqueInSession), true
	case l.open[m.ID] && InForce(ReqIDUniqueOutstanding, v) && Binds(ReqIDUniqueOutstanding, l.from):
		return breach(v, "request/id-reused-outstanding", "a request id is not reused while an earlier request with that id awaits its answer",
			fmt.Sprintf("id %s used again before its request was answered: %s", m.ID, excerpt(m.Raw)), ReqIDUniqueOutstanding), true
	}
	return Breach{}, false
}

// Answered settles the request with id (its answer went by), so that from
// 2026-07-28 the id may be used again.
func (l *RequestIDs) Answered(id jsonrpc.ID) { delete(l.open, id) }
