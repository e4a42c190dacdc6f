package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Per-session context of the observations: what the client of each
// connection declared and did (read from the bytes mcpcheck sent, so raw
// handshakes of the lifecycle checks count as much as the built-in
// client's), attached to every frame the target sent as it arrived. The
// passive checks judge unprompted traffic against it: a server request
// against the client capabilities of that session, resources/updated
// against its subscriptions, progress against the tokens it gave and
// whether their requests were still open, a response against the stream
// its request went out on.
//
// Memory: a ledger per connection keeps at most maxLedgerEntries tokens,
// requests and subscriptions each; past that it stops learning and marks
// itself overflowed, and what it can no longer tell is not judged (never
// judged wrongly). What an observation carries is a pointer to the
// session's facts, shared by every frame until they change, and a small
// Placement.

// maxLedgerEntries bounds each map of a sessionLedger.
const maxLedgerEntries = 20000

// SessionFacts is what the client of one connection had declared when a
// frame arrived. Values are never changed once observations point to them.
type SessionFacts struct {
	// Conn numbers the connection (Observation.Conn).
	Conn int
	// Initialize reports that the connection sent an initialize request;
	// Client are the capabilities it declared there (stateful era).
	Initialize bool
	Client     rules.Capabilities
	// Initialized reports that notifications/initialized was sent.
	Initialized bool
	// Server are the capabilities the server declared to this session in
	// its initialize result (nil before, or when it declared none).
	Server rules.Capabilities
	// Subscribed counts the resources/subscribe requests sent.
	Subscribed int
}

// describe says what the session declared, for an Actual text.
func (s *SessionFacts) describe() string {
	if s == nil {
		return "an untracked connection"
	}
	if !s.Initialize {
		return fmt.Sprintf("connection %d", s.Conn)
	}
	return fmt.Sprintf("connection %d, whose client declared capabilities %s", s.Conn, s.Client)
}

// StreamKind says what kind of stream a frame came on.
type StreamKind uint8

// The stream kinds.
const (
	StreamUnknown StreamKind = iota
	// StreamOneChannel is a connection where everything arrives in the order
	// it was sent: stdio, or the single stream of HTTP+SSE (2024-11-05).
	StreamOneChannel
	// StreamPost is the response stream of one POST (streamable HTTP).
	StreamPost
	// StreamGet is a stream a GET opened without Last-Event-ID.
	StreamGet
	// StreamResumed is a stream a GET with Last-Event-ID opened: it may
	// replay what belonged to an earlier stream, responses included.
	StreamResumed
)

// TokenState is what a session knew of a progress token when a progress
// notification carrying it arrived.
type TokenState uint8

// The token states.
const (
	// TokenUntracked: the ledger could not tell (it overflowed, or the
	// frame is no progress notification).
	TokenUntracked TokenState = iota
	// TokenUnknown: the session never sent the token.
	TokenUnknown
	// TokenActive: the token's request had not been answered yet.
	TokenActive
	// TokenAnswered: the token's request had been answered before, on a
	// channel where the notification could not have overtaken it (the same
	// stream, or a one-channel connection).
	TokenAnswered
	// TokenAnsweredElsewhere: the request had been answered, but on another
	// stream than the notification's: the two may have crossed, so nothing
	// can be said.
	TokenAnsweredElsewhere
)

// SubState is what a session had subscribed to when resources/updated for
// a URI arrived.
type SubState uint8

// The subscription states.
const (
	// SubUntracked: the ledger could not tell, or the frame is no
	// resources/updated.
	SubUntracked SubState = iota
	// SubNever: the session never subscribed to the URI (nor to a resource
	// it may be a sub-resource of).
	SubNever
	// SubActive: the session had subscribed to it.
	SubActive
	// SubEnded: the session had unsubscribed, and the server had answered
	// the unsubscribe on a channel the notification could not overtake.
	SubEnded
)

// LogScope is, in 2026-07-28, what request a notifications/message can
// belong to: log messages are request-scoped there.
type LogScope uint8

// The log scopes.
const (
	// LogUntracked: the ledger cannot tell (a stream it does not know), or
	// the frame is no log message.
	LogUntracked LogScope = iota
	// LogNoLevel: the request it can belong to named no logLevel (its
	// POST stream's request; on one channel, no request in progress did).
	LogNoLevel
	// LogListen: it came on a subscriptions/listen stream (over stdio: it
	// carries a subscriptionId).
	LogListen
	// LogScoped: a request that named a logLevel was in progress on its
	// stream.
	LogScoped
)

// Placement is where one frame arrived, relative to what the session sent.
type Placement struct {
	Stream StreamKind
	// RequestStream is, for a response, the stream its request went out
	// on; for a progress notification, the stream of the request that gave
	// the token ("" when not known).
	RequestStream string
	// AnsweredOn is, for a response, the stream an earlier response to the
	// same request id came on ("" for the first).
	AnsweredOn string
	// Token is the state of a progress notification's token.
	Token TokenState
	// Subscription is, for resources/updated, the state of its URI.
	Subscription SubState
	// Log is, for a log message, the request it can belong to.
	Log LogScope
	// Opener is, for a frame on a POST stream, the method of the request
	// that opened it ("" when not a request or not known); OpenerLogLevel
	// is the logLevel in its _meta (2026-07-28), "" when none.
	Opener, OpenerLogLevel string
	// WrongID marks a response on the stream of a POST whose message
	// carried another id (1.5 answered as 1): it answers that message
	// with a wrong id, which the id-echo checks judge, and is matched to
	// no other request of the session (RequestStream and AnsweredOn stay
	// empty; it settles nothing).
	WrongID bool
}

// sessionLedger follows one connection: the tap calls sent for everything
// mcpcheck writes and received for every frame, and received returns the
// facts and placement of the frame. Safe for concurrent use.
type sessionLedger struct {
	conn int

	mu       sync.Mutex
	facts    *SessionFacts
	overflow bool
	// requests: id (wire form) -> its request, while known.
	requests map[string]*ledgerRequest
	// tokens: normalised progress token -> the request that gave it.
	tokens map[string]*ledgerRequest
	// streams: stream -> kind, and the request a POST carried.
	streams map[string]ledgerStream
	// subs: URI -> subscription state; unsub: unsubscribe id -> URI.
	subs  map[string]SubState
	unsub map[string]string
	// levelled counts the requests in progress whose _meta names a
	// logLevel (2026-07-28).
	levelled int
	// last is what mcpcheck sent last on the connection.
	last *sentFrame
}

// sentFrame is something mcpcheck sent, kept (its start) as what may
// have provoked a frame the target sent: a passive check's evidence
// shows it with the frame it judged (passiveEvidence).
type sentFrame struct {
	out wire.Outgoing
}

// sentFrameBytes bounds what a sentFrame keeps of the bytes sent.
const sentFrameBytes = 1 << 10

// provoker is what mcpcheck sent that the target's frame f answers or
// follows: the request that opened f's HTTP stream, else the last thing
// sent on the connection before f (nil when nothing was).
func (l *sessionLedger) provoker(f wire.Frame) *sentFrame {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st, ok := l.streams[f.Stream]; ok && st.opener != nil && f.Stream != wire.StreamStdio && f.Stream != wire.StreamSSE {
		return st.opener
	}
	return l.last
}

type ledgerRequest struct {
	method   string
	stream   string
	answered string // the stream the (first) answer came on; "" while open
	logLevel string
	// task: the request was task-augmented; its token outlives the
	// response (the CreateTaskResult) until the task ends.
	task bool
	// id is the request's id (wire form); reused marks an id mcpcheck sent
	// more than once on the connection (on purpose, in the id checks), so
	// that a second answer to it is no duplicate.
	id     string
	reused bool
}

type ledgerStream struct {
	kind    StreamKind
	request *ledgerRequest
	// opener is what mcpcheck sent that opened the stream (a POST and
	// its message, a GET), for the evidence of passive checks.
	opener *sentFrame
	// rawID is, for a POST, the id its message carried (rules.RawID: ids
	// MCP forbids included), "" when none or a batch.
	rawID string
}

func newSessionLedger(conn int) *sessionLedger {
	return &sessionLedger{
		conn:     conn,
		facts:    &SessionFacts{Conn: conn},
		requests: map[string]*ledgerRequest{},
		tokens:   map[string]*ledgerRequest{},
		streams:  map[string]ledgerStream{},
		subs:     map[string]SubState{},
		unsub:    map[string]string{},
	}
}

// full reports (and notes) that a map is at its bound.
func (l *sessionLedger) full(n int) bool {
	if n >= maxLedgerEntries {
		l.overflow = true
		return true
	}
	return false
}

// sent learns from what mcpcheck wrote on the connection.
func (l *sessionLedger) sent(o wire.Outgoing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kind := StreamOneChannel
	if o.HTTP != nil && o.Stream != wire.StreamSSE {
		kind = StreamPost
		if o.HTTP.Method == "GET" {
			kind = StreamGet
			if o.HTTP.Header.Get(wire.HeaderLastEventID) != "" {
				kind = StreamResumed
			}
		}
	}
	raw := bytes.TrimRight(o.Raw, "\r\n")
	var sf *sentFrame
	if len(raw) > 0 || o.HTTP != nil {
		kept := o
		kept.Raw = bytes.Clone(raw[:min(len(raw), sentFrameBytes)])
		sf = &sentFrame{out: kept}
		l.last = sf
	}
	if _, ok := l.streams[o.Stream]; !ok && !l.full(len(l.streams)) {
		st := ledgerStream{kind: kind, opener: sf}
		if kind == StreamPost {
			st.rawID = rules.RawID(raw)
		}
		l.streams[o.Stream] = st
	}
	if len(raw) == 0 {
		return
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(t, &items) == nil {
			for _, it := range items {
				l.message(jsonrpc.Decode(it), o.Stream)
			}
		}
		return
	}
	l.message(jsonrpc.Decode(raw), o.Stream)
}

// message learns from one message mcpcheck sent on stream.
func (l *sessionLedger) message(m jsonrpc.Message, stream string) {
	if m.Method == "" {
		return
	}
	if m.Method == spec.MethodInitialized {
		l.change(func(f *SessionFacts) { f.Initialized = true })
		return
	}
	if m.Shape != jsonrpc.KindRequest || m.ID.IsZero() {
		return
	}
	var p struct {
		URI  string          `json:"uri"`
		Task json.RawMessage `json:"task"`
		Meta struct {
			Token    json.RawMessage `json:"progressToken"`
			LogLevel string          `json:"io.modelcontextprotocol/logLevel"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	key := m.ID.String()
	r := &ledgerRequest{id: key, method: m.Method, stream: stream, logLevel: p.Meta.LogLevel, task: len(p.Task) > 0 && string(p.Task) != "null"}
	if old := l.requests[key]; old != nil {
		old.reused, r.reused = true, true
	}
	if r.logLevel != "" {
		l.levelled++
	}
	if !l.full(len(l.requests)) {
		l.requests[key] = r
	}
	if s, ok := l.streams[stream]; ok && s.kind == StreamPost && s.request == nil {
		s.request = r
		l.streams[stream] = s
	}
	if tok, ok := normalToken(p.Meta.Token); ok && !l.full(len(l.tokens)) {
		l.tokens[tok] = r
	}
	switch m.Method {
	case spec.MethodInitialize:
		caps, _ := rules.DecodeCapabilities(m.Params)
		l.change(func(f *SessionFacts) { f.Initialize, f.Client, f.Server = true, caps, nil })
	case spec.MethodResourcesSubscribe:
		if p.URI != "" && !l.full(len(l.subs)) {
			l.subs[p.URI] = SubActive
		}
		l.change(func(f *SessionFacts) { f.Subscribed++ })
	case spec.MethodResourcesUnsubscribe:
		if p.URI != "" && !l.full(len(l.unsub)) {
			l.unsub[m.ID.String()] = p.URI
		}
	}
}

// change replaces the facts with a changed copy (observations keep
// pointing to the old ones).
func (l *sessionLedger) change(edit func(*SessionFacts)) {
	f := *l.facts
	edit(&f)
	l.facts = &f
}

// received places one frame the target sent and learns from it (answers
// settle requests; the initialize result gives the server's capabilities).
func (l *sessionLedger) received(f wire.Frame) (*SessionFacts, Placement) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var pl Placement
	st, ok := l.streams[f.Stream]
	switch {
	case f.Stream == wire.StreamStdio || f.Stream == wire.StreamSSE:
		pl.Stream = StreamOneChannel
	case ok:
		pl.Stream = st.kind
	}
	if st.request != nil {
		pl.Opener, pl.OpenerLogLevel = st.request.method, st.request.logLevel
	}
	if f.Kind != wire.KindMessage {
		return l.facts, pl
	}
	m := f.Msg
	switch {
	case IsResponse(f) && !m.ID.IsZero() && st.kind == StreamPost && st.rawID != "" && !rules.SameID(st.rawID, m.ID.String()):
		pl.WrongID = true
	case IsResponse(f) && !m.ID.IsZero():
		key := m.ID.String()
		r := l.requests[key]
		if st.request != nil && st.request.id == key {
			r = st.request // the POST's own request, whatever came later under its id
		}
		if r == nil {
			break
		}
		pl.RequestStream = r.stream
		if !r.reused {
			pl.AnsweredOn = r.answered
		}
		if r.answered == "" {
			r.answered = f.Stream
			if r.logLevel != "" {
				l.levelled--
			}
		}
		switch {
		case r.method == spec.MethodInitialize && m.Result != nil:
			caps, _ := rules.DecodeCapabilities(m.Result)
			l.change(func(sf *SessionFacts) { sf.Server = caps })
		case r.method == spec.MethodResourcesUnsubscribe && m.Result != nil && pl.Stream == StreamOneChannel:
			if uri, ok := l.unsub[key]; ok && l.subs[uri] == SubActive {
				l.subs[uri] = SubEnded
			}
		}
		delete(l.unsub, key)
	case m.Method == spec.MethodProgress:
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(m.Params, &p)
		tok, ok := normalToken(p.Token)
		r := l.tokens[tok]
		switch {
		case !ok || (r == nil && l.overflow):
			pl.Token = TokenUntracked
		case r == nil:
			pl.Token = TokenUnknown
		case r.answered == "" || r.task:
			pl.Token, pl.RequestStream = TokenActive, r.stream
		case r.answered == f.Stream || pl.Stream == StreamOneChannel:
			pl.Token, pl.RequestStream = TokenAnswered, r.stream
		default:
			pl.Token, pl.RequestStream = TokenAnsweredElsewhere, r.stream
		}
	case m.Method == spec.MethodLoggingMessage:
		pl.Log = l.logScope(m, pl, st)
	case m.Method == spec.MethodResourcesUpdated:
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(m.Params, &p)
		pl.Subscription = l.subscription(p.URI)
	}
	return l.facts, pl
}

// logScope places a log message: on a POST stream by the request that
// opened it, on one channel by the requests in progress (a request's log
// messages come before its response there).
func (l *sessionLedger) logScope(m jsonrpc.Message, pl Placement, st ledgerStream) LogScope {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch {
	case pl.Stream == StreamPost && st.request != nil:
		switch {
		case st.request.method == spec.MethodSubscriptionsListen:
			return LogListen
		case st.request.logLevel == "":
			return LogNoLevel
		}
		return LogScoped
	case pl.Stream == StreamOneChannel:
		switch {
		case p.Meta["io.modelcontextprotocol/subscriptionId"] != nil:
			return LogListen
		case l.overflow:
			return LogUntracked
		case l.levelled <= 0:
			return LogNoLevel
		}
		return LogScoped
	}
	return LogUntracked
}

// subscription is the state of uri: that of the subscribed URI it is or
// may be a sub-resource of (the protocol lets an update name a
// sub-resource of the one subscribed to).
func (l *sessionLedger) subscription(uri string) SubState {
	if s, ok := l.subs[uri]; ok {
		return s
	}
	best := SubNever
	for u, s := range l.subs {
		if strings.HasPrefix(uri, strings.TrimRight(u, "/")) && (best == SubNever || s == SubActive) {
			best = s
		}
	}
	if best == SubNever && l.overflow {
		return SubUntracked
	}
	return best
}

// normalToken is the comparable form of a progress token: a string as
// itself, a number by its value; ok is false for no token.
func normalToken(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s:" + s, true
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		return "n:" + strconv.FormatFloat(n, 'g', -1, 64), true
	}
	return "r:" + string(raw), true
}

// ObservedUnjudged ends a passive check that had nothing to judge:
// untestable when frames were dropped over the run's bounds (they may
// have held what the check is about) or, for a check that reads the
// sessions' ledgers (ledger), when one overflowed; else n/a with none.
func (t *T) ObservedUnjudged(none string, ledger bool) {
	_, dropped := t.Observed()
	if dropped > 0 {
		t.Untestable(fmt.Sprintf("%s; but %d frames the target sent were not kept (the run keeps at most %d frames, %d MiB, for passive checks), so this cannot be told", none, dropped, maxObservations, maxObservationBytes>>20))
		return
	}
	if ledger && t.vr.ledgersOverflowed() {
		t.Untestable(fmt.Sprintf("%s; but a session sent more than %d requests, tokens or subscriptions for mcpcheck to follow, so this cannot be told", none, maxLedgerEntries))
		return
	}
	t.NotApplicable(none)
}

// ledgersOverflowed reports whether any connection's ledger overflowed.
func (vr *versionRun) ledgersOverflowed() bool {
	vr.mu.Lock()
	ls := append([]*sessionLedger(nil), vr.ledgers...)
	vr.mu.Unlock()
	for _, l := range ls {
		l.mu.Lock()
		o := l.overflow
		l.mu.Unlock()
		if o {
			return true
		}
	}
	return false
}

// SessionText says which session an observation came on, for an Actual
// text.
func SessionText(o Observation) string { return o.Session.describe() }
