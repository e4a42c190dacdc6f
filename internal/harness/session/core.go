package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// unwrapper is implemented by connections that wrap a wire.Conn, such as
// *target.Conn.
type unwrapper interface{ Unwrap() wire.Conn }

// headerPoster is the streamable HTTP connection's per-request header hook.
type headerPoster interface {
	Post(ctx context.Context, body []byte, extra http.Header) (string, error)
	SetHeader(name, value string)
}

// ServerRequest is a request the target sent the client, with the answer
// the built-in client gave.
type ServerRequest struct {
	Frame  wire.Frame
	Answer []byte
}

// Reply is the outcome of one request: what the wait observed and, when a
// response arrived, its result or error.
type Reply struct {
	ID     jsonrpc.ID
	Method string
	Stream string
	// Observed is how the wait for the response ended.
	Observed expect.Observed
	// Result is set when a success response arrived; Error when an error
	// response did.
	Result json.RawMessage
	Error  *jsonrpc.ErrorObject
	// Rounds are the earlier rounds of a multi round-trip request, oldest
	// first (stateless only).
	Rounds []Reply
	// Resumed lists the SSE event IDs the session resumed the response
	// stream after (GET with Last-Event-ID), when the target closed it
	// before the response (streamable HTTP, 2025-03-26 through 2025-11-25).
	Resumed []string
	// Err is set when the request could not be sent, or (MRTR) the loop
	// could not continue.
	Err error
}

// OK reports whether a success response arrived.
func (r Reply) OK() bool { return r.Err == nil && r.Result != nil }

// ErrWrongID is wrapped by the handshake's error when the target answered
// it with a response carrying another id: it answers, but no session can
// start, and whether it speaks the version is unknown.
var ErrWrongID = errors.New("the target answered with an id the request did not have")

// ErrUnauthorized is wrapped by the handshake's error when the target
// answered it with HTTP 401: it asks for a token mcpcheck was not given
// (or does not accept the one given), which judges nothing else of it.
var ErrUnauthorized = wire.ErrUnauthorized

// unauthorized is the handshake's error for a reply that is an HTTP 401,
// or nil.
func unauthorized(method string, r Reply) error {
	if err := r.Observed.Unauthorized(); err != nil {
		return fmt.Errorf("session: %s: %w", method, err)
	}
	return nil
}

// WrongID reports a wait that ended on a response carrying an id other
// than the request's: the target answered, but not with the request's id
// (see core.strayResponse), which breaks the id-echo rule, not the rules
// of the method asked.
func (r Reply) WrongID() bool {
	f := r.Observed.Frame
	return r.Observed.Status == expect.Mismatched && f.Kind == wire.KindMessage && f.Msg.Shape.IsResponse() && f.Msg.ID != r.ID
}

// Decode decodes the result into v.
func (r Reply) Decode(v any) error {
	if r.Result == nil {
		return fmt.Errorf("session: %s (id %s) has no result: %s", r.Method, r.ID, r.Describe())
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		return fmt.Errorf("session: the %s result does not decode as %T: %v", r.Method, v, err)
	}
	return nil
}

// Describe says what happened, for a report or an error.
func (r Reply) Describe() string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return r.Observed.Actual
}

// core is what stateful and stateless sessions share.
type core struct {
	conn  wire.Conn
	raw   wire.Conn // unwrapped, for transport-specific methods
	cfg   Config
	val   *Validator
	untap func()
	// heard is set once the target has sent anything on the connection:
	// until then every wait is a start-up wait (Config.StartupTimeout).
	heard atomic.Bool

	nextID int64

	mu        sync.Mutex
	streams   map[string]streamPos
	irregular []wire.Frame
	notes     []wire.Frame
	requests  []ServerRequest
	dropped   int
	keptBytes int // wire.Frame.Cost of notes, requests and irregular
	answer    func(ctx context.Context, f wire.Frame) []byte
	rawIDs    map[jsonrpc.ID]int // ids of raw sends, how often (see SendRaw)
	// answered counts, by id, the answers Recv handed out to requests of
	// the session that awaited one; firstAt is when the latest of them
	// arrived (wire.Frame.Time), which tells that answer from a later
	// duplicate (AnswersOther). gaveUp holds the ids whose wait ended
	// without their answer (waitResponse); late keeps the answers that
	// came for them afterwards.
	answered map[jsonrpc.ID]int
	firstAt  map[jsonrpc.ID]time.Time
	gaveUp   map[jsonrpc.ID]bool
	late     []wire.Frame
	// early holds the answers to server requests sent on arrival (see
	// answerOnArrival), by arrivalKey, until Recv hands the request out.
	early map[string][]byte
	// listening is the GET stream the session opened itself and listens
	// on (Stateful.Listen, OpenStream, OpenStreamWait), "" for none;
	// listened holds every stream it ever was: a response on one is no
	// answer any wait of the session takes (setAside), also one still
	// queued after that stream ended and another took its place.
	listening string
	listened  map[string]bool
}

// maxAnswered bounds core.answered, core.firstAt and core.gaveUp; past it
// they start over (what is forgotten is no longer set aside).
const maxAnswered = 100000

func newCore(conn wire.Conn, cfg Config) *core {
	c := &core{conn: conn, raw: conn, cfg: cfg, val: NewValidator(cfg.Version, cfg.MaxKept)}
	if u, ok := conn.(unwrapper); ok {
		c.raw = u.Unwrap()
	}
	c.untap = conn.Observe(c.val)
	return c
}

// Conn is the connection the session drives; use it for raw sends. What
// it receives still goes through the session (Recv).
func (c *core) Conn() wire.Conn { return c.conn }

// Config is the session's configuration, defaults filled in.
func (c *core) Config() Config { return c.cfg }

// Validator is the schema validator on the connection.
func (c *core) Validator() *Validator { return c.val }

// Detach removes the session's validator from the connection.
func (c *core) Detach() { c.untap() }

// Findings returns the problems noticed so far: schema violations of
// everything received, and what the built-in client had to refuse.
func (c *core) Findings() []Finding { return c.val.Findings() }

// Notifications returns the notifications received so far.
func (c *core) Notifications() []wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Frame(nil), c.notes...)
}

// ServerRequests returns the requests the target sent and their answers.
func (c *core) ServerRequests() []ServerRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ServerRequest(nil), c.requests...)
}

// Irregular returns the frames that passed through the session and are
// not clean messages: garbage (not JSON), lines over the size limit, and
// messages framed with CR LF or cut off by the end of the stream. They are
// what the stdio "nothing but MCP messages on stdout" checks judge.
func (c *core) Irregular() []wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Frame(nil), c.irregular...)
}

// NextID allocates a fresh request id.
func (c *core) NextID() jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return jsonrpc.IntID(c.nextID)
}

// Recv returns the next frame from the target. Server requests are
// answered by the built-in client (stateful sessions) before the frame is
// returned, and notifications are kept; both are still returned, so a
// check can wait for them.
func (c *core) Recv(ctx context.Context) (wire.Frame, error) {
	f, err := c.conn.Recv(ctx)
	if err != nil {
		return f, err
	}
	if f.Kind != wire.KindEnd && f.Kind != wire.KindTransportError {
		c.heard.Store(true)
	}
	if len(f.Raw) >= LargeFrame && c.cfg.Budget != nil {
		c.cfg.Budget.large.Store(true)
	}
	if f.Kind == wire.KindGarbage || f.Kind == wire.KindTooLong || f.CR || f.Unterminated {
		c.mu.Lock()
		if len(c.irregular) < c.cfg.MaxKept && c.room(f) {
			c.irregular = append(c.irregular, f)
		}
		c.mu.Unlock()
	}
	if f.InSSE && (f.HasEventID || f.HasRetry) {
		c.mu.Lock()
		if c.streams == nil || len(c.streams) > 1000 {
			c.streams = map[string]streamPos{}
		}
		p := c.streams[f.Stream]
		if f.HasEventID {
			p.lastID, p.hasID = f.EventID, true
		}
		if f.HasRetry {
			p.retry = f.Retry
		}
		c.streams[f.Stream] = p
		c.mu.Unlock()
	}
	if f.Kind == wire.KindMessage {
		switch f.Msg.Shape {
		case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
			c.noteAnswer(f)
		case jsonrpc.KindNotification:
			c.mu.Lock()
			if len(c.notes) < c.cfg.MaxKept && c.room(f) {
				c.notes = append(c.notes, f)
			} else {
				c.dropped++
			}
			c.mu.Unlock()
		case jsonrpc.KindRequest:
			key := arrivalKey(f)
			c.mu.Lock()
			ans, early := c.early[key]
			delete(c.early, key)
			c.mu.Unlock()
			if early {
				break // kept when it was answered, on arrival
			}
			if c.answer != nil {
				ans = c.answer(ctx, f)
			}
			c.mu.Lock()
			c.keepRequest(f, ans)
			c.mu.Unlock()
		}
	}
	return f, nil
}

// keepRequest keeps the server request f and its answer for
// ServerRequests, within the session's bounds. c.mu is held.
func (c *core) keepRequest(f wire.Frame, ans []byte) {
	if len(c.requests) < c.cfg.MaxKept && c.room(f) {
		c.requests = append(c.requests, ServerRequest{Frame: f, Answer: ans})
	} else {
		c.dropped++
	}
}

// noteAnswer counts a response as the answer to the request of the
// session its id names, when one still awaited an answer, and sets aside
// a late one (an answer to a request whose wait had ended without it).
func (c *core) noteAnswer(f wire.Frame) {
	id := f.Msg.ID
	if id.IsZero() || c.val.plainGet(f.Stream) {
		return // a response on a GET stream answers nothing
	}
	sent := c.val.methods.Sends(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	sent = max(sent, c.rawIDs[id])
	if sent == 0 || c.answered[id] >= sent {
		return
	}
	if c.answered == nil || len(c.answered) >= maxAnswered {
		c.answered, c.firstAt = map[jsonrpc.ID]int{}, map[jsonrpc.ID]time.Time{}
	}
	c.answered[id]++
	c.firstAt[id] = f.Time
	if c.gaveUp[id] && len(c.late) < c.cfg.MaxKept && c.room(f) {
		c.late = append(c.late, f)
	}
}

// AnswersOther reports whether f is the answer to a request this session
// sent with an id other than ids: a response that was, when it arrived,
// the first to an id a request of the session carried and still awaited
// (or a late one, after its wait gave up). A check waiting for the answer
// to one of ids skips it, whatever it expects of that answer: it is judged
// for its own request (by the schema as that method's answer, by the
// passive checks), never as a wrong id of another. An answer whose id no
// request carried, or carrying the id of a request answered already (a
// duplicate, or an id mangled into an old one: 1.5 rounded to 1), is no
// such answer: it breaks the id-echo rule.
func (c *core) AnswersOther(f wire.Frame, ids ...jsonrpc.ID) bool {
	if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || f.Msg.ID.IsZero() || f.Time.IsZero() {
		return false
	}
	for _, id := range ids {
		if f.Msg.ID == id {
			return false
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.firstAt[f.Msg.ID]
	return ok && at.Equal(f.Time)
}

// isLate reports whether f is an answer set aside as late: the first to a
// request whose wait gave up.
func (c *core) isLate(f wire.Frame) bool {
	if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || f.Msg.ID.IsZero() || f.Time.IsZero() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.firstAt[f.Msg.ID]
	return ok && c.gaveUp[f.Msg.ID] && at.Equal(f.Time)
}

// Late returns the answers that came after the session had stopped
// waiting for them (a slow target): each answers its own request, and no
// later wait took it for an answer with a wrong id.
func (c *core) Late() []wire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Frame(nil), c.late...)
}

// giveUp notes that the wait for the answer to id ended without it: an
// answer that comes later is set aside (Late).
func (c *core) giveUp(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gaveUp == nil || len(c.gaveUp) >= maxAnswered {
		c.gaveUp = map[jsonrpc.ID]bool{}
	}
	c.gaveUp[id] = true
}

// room reports whether f fits the session's byte budget for kept frames,
// and takes its share when it does. c.mu is held.
func (c *core) room(f wire.Frame) bool {
	if c.keptBytes+f.Cost() > c.cfg.MaxKeptBytes || !c.cfg.Budget.take(f.Cost()) {
		return false
	}
	c.keptBytes += f.Cost()
	return true
}

// Wait waits for one of alts with the session's timeout, answering server
// requests meanwhile.
func (c *core) Wait(ctx context.Context, alts ...expect.Alt) expect.Observed {
	return c.WaitFor(ctx, expect.Options{Timeout: c.cfg.Timeout}, alts...)
}

// WaitFor is Wait with explicit options. A late answer (to a request
// whose wait gave up, see Late) is no alternative's rejection: it answers
// its own request, so it goes with the other frames of the wait.
//
// Until the target has sent anything on the connection, a wait for an
// answer is a start-up wait (a wait for silence keeps its window): it
// lasts at least Config.StartupTimeout and the run's
// Health does not shorten it (expect.Startup), since a process that is
// still starting (a Node server on a busy machine takes seconds) is not a
// silent one.
func (c *core) WaitFor(ctx context.Context, o expect.Options, alts ...expect.Alt) expect.Observed {
	if o.Timeout <= 0 {
		o.Timeout = c.cfg.Timeout
	}
	if !c.heard.Load() && !expect.AcceptsSilence(alts) {
		o.Timeout = max(o.Timeout, c.cfg.StartupTimeout)
		ctx = expect.Startup(ctx)
	}
	for _, a := range alts {
		if !a.Answers.IsZero() && workingMethods[c.val.methods.Method(a.Answers)] {
			o.Working = true
		}
	}
	if stray := o.Stray; stray != nil {
		o.Stray = func(f wire.Frame) string {
			if c.onListener(f) {
				return ""
			}
			return stray(f)
		}
	}
	return expect.Wait(ctx, c, o, c.setAside(alts)...)
}

// onListener reports whether f is a response on a GET stream the
// session opened itself to listen on (Stateful.Listen, OpenStream,
// OpenStreamWait: whichever opened it, so a check that opens the stream
// where Listen did not takes no copy there for an answer either). The
// transport keeps responses off that stream, so one there (a server
// that copies its answers to it) answers no request of the session: the
// answer is still due on the request's own stream. The transport-http checks judge it from the
// run's traffic; the waits of the other checks pass over it, as they
// would on a session that opened no GET stream.
func (c *core) onListener(f wire.Frame) bool {
	if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || f.Stream == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listened[f.Stream]
}

// listenOn makes st, a GET stream the session opened itself, the one it
// listens on (see onListener).
func (c *core) listenOn(st string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listened == nil || len(c.listened) >= maxListened {
		c.listened = map[string]bool{}
	}
	c.listening = st
	c.listened[st] = true
}

// maxListened bounds core.listened; past it, it starts over.
const maxListened = 64

// Heard reports whether the target has sent anything on the session's
// connection yet.
func (c *core) Heard() bool { return c.heard.Load() }

// setAside wraps alts so that none rejects a late answer, and none takes
// a response on the session's own GET stream (onListener).
func (c *core) setAside(alts []expect.Alt) []expect.Alt {
	out := make([]expect.Alt, len(alts))
	for i, a := range alts {
		out[i] = a
		if on := a.On; on != nil {
			out[i].On = func(f wire.Frame) (expect.Verdict, string) {
				if c.onListener(f) {
					return expect.Unrelated, ""
				}
				v, why := on(f)
				if v == expect.Rejected && c.isLate(f) {
					return expect.Unrelated, ""
				}
				return v, why
			}
		}
	}
	return out
}

// SendRaw sends b exactly (see wire.Conn.SendRaw).
func (c *core) SendRaw(ctx context.Context, b []byte) (string, error) {
	// Whatever id raw bytes carry was sent: an answer echoing it is not
	// stray, even when the message was not a valid request.
	if err := c.guardRaw(b); err != nil {
		return "", err
	}
	if m := jsonrpc.Decode(bytes.TrimRight(b, "\r\n")); !m.ID.IsZero() {
		c.mu.Lock()
		if c.rawIDs == nil || len(c.rawIDs) >= maxRawIDs {
			c.rawIDs = map[jsonrpc.ID]int{}
		}
		c.rawIDs[m.ID]++
		c.mu.Unlock()
	}
	return c.conn.SendRaw(ctx, b)
}

// guard asks Config.Guard about a request.
func (c *core) guard(method string, params any) error {
	if c.cfg.Guard == nil {
		return nil
	}
	return c.cfg.Guard(method, params)
}

// guardRaw asks Config.Guard about the requests raw bytes hold (one
// message or a batch); bytes that are no request pass.
func (c *core) guardRaw(b []byte) error {
	if c.cfg.Guard == nil {
		return nil
	}
	b = bytes.TrimSpace(b)
	var msgs []json.RawMessage
	if len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &msgs) != nil {
			return nil
		}
	} else {
		msgs = []json.RawMessage{b}
	}
	for _, m := range msgs {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(m, &req) != nil || req.Method == "" {
			continue
		}
		if err := c.cfg.Guard(req.Method, req.Params); err != nil {
			return err
		}
	}
	return nil
}

// maxRawIDs bounds the ids of raw sends a session remembers.
const maxRawIDs = 4096

// send encodes and sends one message, with extra HTTP headers when the
// connection is streamable HTTP.
func (c *core) send(ctx context.Context, msg []byte, h http.Header) (string, error) {
	if hp, ok := c.raw.(headerPoster); ok && len(h) > 0 {
		return hp.Post(ctx, msg, h)
	}
	return c.conn.Send(ctx, msg)
}

// streamPos is what the session knows of an SSE stream, for resumption.
type streamPos struct {
	lastID string
	hasID  bool
	retry  time.Duration
}

// maxResumes bounds how often one response stream is resumed.
const maxResumes = 5

// workingMethods are the requests whose answer waits on work the target
// does for as long as the work takes: a tool's run, and tasks/result,
// which holds its answer until the task ends. Their waits keep the
// timeout asked for (expect.Options.Working): WaitFor marks a wait so
// when an alternative accepts the answer to one of them.
var workingMethods = map[string]bool{spec.MethodToolsCall: true, spec.MethodTasksResult: true}

// waitResponse waits for the response to id and builds a Reply. On
// streamable HTTP, when the response stream ends before the response after
// carrying an event ID, it waits the stream's retry time and resumes with
// GET and Last-Event-ID, as the transport asks of a client, at most
// maxResumes times.
func (c *core) waitResponse(ctx context.Context, id jsonrpc.ID, method, stream string) Reply {
	o := expect.Options{Timeout: c.cfg.Timeout, Stray: c.strayResponse(id)}
	h, isHTTP := c.raw.(*wire.HTTP)
	if isHTTP {
		o.Stream = stream // on HTTP+SSE the answer comes on the GET stream instead
	}
	var resumed []string
	obs := c.WaitFor(ctx, o, expect.AnyResponse(id))
	for isHTTP && obs.Status == expect.Ended && obs.Frame.Kind == wire.KindEnd && obs.Frame.InSSE && len(resumed) < maxResumes {
		c.mu.Lock()
		pos := c.streams[o.Stream]
		delete(c.streams, o.Stream)
		c.mu.Unlock()
		if !pos.hasID {
			break
		}
		if pos.retry > 0 {
			// The transport requires honouring retry before reconnecting.
			t := time.NewTimer(min(pos.retry, c.cfg.Timeout))
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		next, err := h.Resume(ctx, pos.lastID)
		if err != nil {
			break
		}
		resumed = append(resumed, pos.lastID)
		o.Stream = next
		prev := obs
		obs = c.WaitFor(ctx, o, expect.AnyResponse(id))
		obs.Others = append(append(prev.Others, prev.Frame), obs.Others...)
	}
	r := Reply{ID: id, Method: method, Stream: stream, Observed: obs, Resumed: resumed}
	if !obs.Frame.IsResponseTo(id) {
		c.giveUp(id)
	}
	if obs.OK() {
		switch obs.Frame.Msg.Shape {
		case jsonrpc.KindResponse:
			r.Result = obs.Frame.Msg.Result
		case jsonrpc.KindErrorResponse:
			r.Error = obs.Frame.Msg.Error
		}
	}
	return r
}

// strayResponse is the expect.Options.Stray of a wait for the answer to
// id: a response whose id is usable but is neither id nor the id of any
// request this session sent cannot answer anything the session asked, so
// the target is not echoing ids; waiting on would only run into the
// deadline.
func (c *core) strayResponse(id jsonrpc.ID) func(wire.Frame) string {
	return func(f wire.Frame) string {
		if f.Kind != wire.KindMessage || !f.Msg.Shape.IsResponse() || f.Msg.ID.IsZero() || f.Msg.ID == id {
			return ""
		}
		if c.val.methods.Method(f.Msg.ID) != "" {
			return ""
		}
		c.mu.Lock()
		raw := c.rawIDs[f.Msg.ID] > 0
		c.mu.Unlock()
		if raw {
			return ""
		}
		return fmt.Sprintf("its id %s is not the id of any request this session sent (the answer to %s was awaited): the target does not echo request ids", f.Msg.ID, id)
	}
}

func (c *core) finding(f Finding) { c.val.add(f) }
