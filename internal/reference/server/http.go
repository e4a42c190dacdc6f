package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// HTTPOptions configure the HTTP transports.
type HTTPOptions struct {
	// Endpoint is the Streamable HTTP path; default "/mcp".
	Endpoint string
	// JSONResponses answers stateful POSTs with application/json instead
	// of an SSE stream.
	JSONResponses bool
	// LegacySSE also serves the 2024-11-05 HTTP+SSE transport: GET /sse
	// and POST /message.
	LegacySSE bool
	// AllowedOrigins lists extra allowed Origin values (scheme://host:port);
	// loopback origins are always allowed.
	AllowedOrigins []string
	// AllowedHosts lists extra allowed Host names; loopback names are
	// always allowed. "*" allows any host (only for servers that are not
	// bound to loopback and are protected otherwise).
	AllowedHosts []string
	// Retry is the SSE retry hint sent in priming events; default 500 ms,
	// the value the official conformance suite's own SSE server uses: a
	// client that resumes a stream the server closed (test_reconnection)
	// waits this long first.
	Retry time.Duration
	// SessionIdle expires sessions idle for that long; default 30 minutes.
	SessionIdle time.Duration
	// EventBuffer bounds the events kept per stream; default 1024.
	EventBuffer int
	// PathPrefix is put before the paths the server announces to clients
	// (the HTTP+SSE endpoint event), for a handler mounted under a prefix
	// with http.StripPrefix.
	PathPrefix string
	// Auth, when set, makes the server an OAuth 2.1 resource server that
	// trusts tokens of one issuer (auth.go).
	Auth *AuthOptions
}

// httpHandler serves Streamable HTTP (stateful and stateless) and,
// optionally, the legacy HTTP+SSE transport.
type httpHandler struct {
	srv  *Server
	opts HTTPOptions
	auth *authGate

	mu         sync.Mutex
	sessions   map[string]*httpSession
	terminated map[string]struct{}
	termOrder  []string
}

type httpSession struct {
	id      string
	sess    *Session
	h       *httpHandler
	legacy  *stream
	mu      sync.Mutex
	streams map[string]*stream
	general *stream
	nextStr int
	seen    time.Time
}

// HTTPHandler returns an http.Handler for the server's HTTP transports.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Endpoint == "" {
		o.Endpoint = "/mcp"
	}
	if o.Retry <= 0 {
		o.Retry = 500 * time.Millisecond
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 30 * time.Minute
	}
	if o.EventBuffer <= 0 {
		o.EventBuffer = 1024
	}
	h := &httpHandler{srv: s, opts: o, sessions: map[string]*httpSession{}, terminated: map[string]struct{}{}}
	if o.Auth != nil {
		h.auth = newAuthGate(*o.Auth, s)
	}
	return h
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil && p != http.ErrAbortHandler {
			h.srv.logf("recovered from a panic serving %s %s: %v", r.Method, r.URL.Path, p)
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	if !h.hostAllowed(r.Host) {
		h.forbidden(w, fmt.Sprintf("Forbidden: Host %q is not allowed (DNS rebinding protection); connect through localhost", r.Host))
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) && !h.srv.faults.on(FaultOriginNotValidated) {
		h.forbidden(w, fmt.Sprintf("Forbidden: Origin %q is not allowed", o))
		return
	}
	if h.auth != nil {
		switch p := r.URL.Path; {
		case r.Method == http.MethodGet && (p == "/.well-known/oauth-protected-resource"+h.opts.Endpoint || p == "/.well-known/oauth-protected-resource"):
			h.auth.servePRM(w, r, h.opts.Endpoint)
			return
		case r.Method == http.MethodGet && p == "/.well-known/oauth-authorization-server":
			h.auth.serveASMetadata(w, r)
			return
		case p == h.opts.Endpoint || (h.opts.LegacySSE && (p == "/sse" || p == "/message")):
			if !h.auth.allow(w, r, h.opts.Endpoint) {
				return
			}
		}
	}
	switch {
	case r.URL.Path == h.opts.Endpoint:
		switch r.Method {
		case http.MethodPost:
			h.post(w, r)
		case http.MethodGet, http.MethodDelete:
			if r.Header.Get("Mcp-Session-Id") == "" && spec.Version(strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))).Era() == spec.Stateless {
				// 2026-07-28 has no sessions and no GET stream: POST only.
				w.Header().Set("Allow", "POST")
				http.Error(w, "method not allowed: protocol version "+r.Header.Get("MCP-Protocol-Version")+" uses POST only (subscriptions/listen replaces the GET stream)", http.StatusMethodNotAllowed)
				return
			}
			if r.Method == http.MethodGet {
				h.get(w, r)
			} else {
				h.delete(w, r)
			}
		default:
			w.Header().Set("Allow", "GET, POST, DELETE")
			http.Error(w, "method not allowed: use POST, GET or DELETE", http.StatusMethodNotAllowed)
		}
	case h.opts.LegacySSE && r.URL.Path == "/sse" && r.Method == http.MethodGet:
		h.legacyGet(w, r)
	case h.opts.LegacySSE && r.URL.Path == "/message" && r.Method == http.MethodPost:
		h.legacyPost(w, r)
	default:
		http.NotFound(w, r)
	}
}

// forbidden answers 403 with a JSON-RPC error that has no id.
func (h *httpHandler) forbidden(w http.ResponseWriter, msg string) {
	b, _ := jsonrpc.NewErrorResponse(jsonrpc.ID{}, -32000, msg, nil)
	writeJSON(w, http.StatusForbidden, b)
}

func isLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *httpHandler) hostAllowed(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	if isLoopbackName(host) {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if a == "*" || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

func (h *httpHandler) originAllowed(origin string) bool {
	for _, a := range h.opts.AllowedOrigins {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return isLoopbackName(u.Hostname())
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string, data any) {
	var b []byte
	if id.IsZero() {
		b, _ = jsonrpc.NewErrorResponse(jsonrpc.ID{}, code, msg, data)
	} else {
		b = errorMessage(id, code, msg, data)
	}
	writeJSON(w, status, b)
}

// accepts reports whether the Accept header allows media type t.
func accepts(r *http.Request, t string) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if mt == t || mt == "*/*" || (strings.HasSuffix(mt, "/*") && strings.HasPrefix(t, strings.TrimSuffix(mt, "*"))) {
				return true
			}
		}
	}
	return false
}

// readBody reads a POST body within the size limit.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		writeRPCError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.InvalidRequest, fmt.Sprintf("Unsupported Media Type: POST bodies must be application/json, got %q", ct), nil)
		return nil, false
	}
	limit := int64(h.srv.opts.MaxMessageSize)
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.ParseError, "Parse error: cannot read the request body: "+err.Error(), nil)
		return nil, false
	}
	if int64(len(body)) > limit {
		writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.InvalidRequest, fmt.Sprintf("Invalid Request: the message exceeds the limit of %d bytes; send smaller messages", limit), nil)
		return nil, false
	}
	return body, true
}

// post serves POST on the endpoint.
func (h *httpHandler) post(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	msg := jsonrpc.Decode(body)
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && msg.Has(jsonrpc.ReasonBatch) {
		h.mu.Lock()
		hs := h.sessions[sid]
		h.mu.Unlock()
		if hs != nil && hs.sess.isBatchFor(&msg) {
			h.postBatch(w, r, hs, body)
			return
		}
	}
	if !msg.Valid() {
		status := http.StatusBadRequest
		rec := &captureSink{}
		h.srv.replyInvalid(msg, rec, spec.V20251125)
		if rec.first() == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, status, rec.first())
		return
	}
	// An HTTP-level refusal echoes an id only when it refuses a request: a
	// POSTed response's id names the server's own request, never the
	// client's, so its refusal carries no id.
	replyID := msg.ID
	if msg.Kind != jsonrpc.KindRequest {
		replyID = jsonrpc.ID{}
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" && h.isStateless(r, msg) {
		h.postStateless(w, r, msg, body)
		return
	}
	if !accepts(r, "application/json") || (!h.opts.JSONResponses && !accepts(r, "text/event-stream")) {
		writeRPCError(w, http.StatusNotAcceptable, replyID, jsonrpc.InvalidRequest, "Not Acceptable: the Accept header must list both application/json and text/event-stream", nil)
		return
	}
	var hs *httpSession
	if sid == "" {
		if msg.Method != spec.MethodInitialize {
			writeRPCError(w, http.StatusBadRequest, replyID, -32000, "Bad Request: no Mcp-Session-Id header; send initialize first and then the session id it returns", nil)
			return
		}
		var err error
		if hs, err = h.newSession(); err != nil {
			writeRPCError(w, http.StatusServiceUnavailable, replyID, jsonrpc.InternalError, err.Error(), nil)
			return
		}
	} else {
		if hs = h.lookup(w, sid, replyID); hs == nil {
			return
		}
		if !h.checkProtocolHeader(w, r, hs, replyID) {
			return
		}
	}
	if msg.Kind != jsonrpc.KindRequest {
		hs.sess.Dispatch(body, discardSink{})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Mcp-Session-Id", hs.id)
	if h.opts.JSONResponses || h.plainJSONOnly(msg) {
		h.postJSON(w, hs, msg, body)
	} else {
		h.postSSE(w, r, hs, msg, body)
	}
	if msg.Method == spec.MethodInitialize && !hs.sess.Initialized() {
		h.drop(hs)
	}
}

// postBatch serves a 2025-03-26 batch: 202 when it holds no requests,
// else the array of responses as JSON or on an SSE stream.
func (h *httpHandler) postBatch(w http.ResponseWriter, r *http.Request, hs *httpSession, body []byte) {
	msgs, _ := jsonrpc.DecodeBatch(body)
	requests := false
	for _, m := range msgs {
		requests = requests || m.Shape == jsonrpc.KindRequest || m.Kind == jsonrpc.KindInvalid
	}
	if !requests {
		hs.sess.Dispatch(body, discardSink{})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Mcp-Session-Id", hs.id)
	if h.opts.JSONResponses {
		var resp []byte
		hs.sess.Handle(context.Background(), body, SinkFunc(func(b []byte) error {
			if len(b) > 0 && b[0] == '[' {
				resp = b
				return nil
			}
			return hs.generalStream().Send(b)
		}))
		writeJSON(w, http.StatusOK, resp)
		return
	}
	st := hs.newStream("p")
	st.attach()
	defer st.detach()
	h.srv.goTracked(func() {
		defer st.finish()
		hs.sess.Handle(context.Background(), body, st)
	})
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	st.pump(sw, 0, false, "message", r.Context().Done(), h.srv.ctx.Done())
}

// isStateless decides whether a session-less POST is a 2026-07-28 request.
func (h *httpHandler) isStateless(r *http.Request, msg jsonrpc.Message) bool {
	hv := strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))
	mv, hasMeta := metaVersion(msg.Params)
	if hv == "" && !hasMeta {
		return false
	}
	if !hasMeta && spec.Version(hv).Era() == spec.Stateful {
		if _, err := spec.ParseVersion(hv); err == nil {
			return false
		}
	}
	_ = mv
	return true
}

// plainJSONOnly reports whether a stateful request is answered with
// application/json even when the server otherwise answers with SSE
// streams. tasks/get is: the client polls, and the spec asks servers not
// to upgrade its answer to a stream (tasks.http.no-sse-for-tasks-get);
// tasks/get has no related messages, so nothing is lost. tasks/result
// keeps its stream, which carries the task's requests (input_required);
// tasks/list and tasks/cancel follow the server's response mode.
func (h *httpHandler) plainJSONOnly(msg jsonrpc.Message) bool {
	return msg.Method == spec.MethodTasksGet && !h.srv.faults.on(FaultTasksGetSSE)
}

// postJSON answers a stateful request with application/json; messages
// related to the request other than its response can only go to the GET
// stream. The response waits (briefly) until those reached the client, so
// that progress and logs arrive before the response they belong to.
func (h *httpHandler) postJSON(w http.ResponseWriter, hs *httpSession, msg jsonrpc.Message, body []byte) {
	var resp []byte
	var mu sync.Mutex
	var last int64
	sink := SinkFunc(func(b []byte) error {
		if isResponseTo(b, msg.ID) {
			resp = b
			return nil
		}
		st := hs.generalStream()
		err := st.Send(b)
		mu.Lock()
		last = st.seqNow()
		mu.Unlock()
		return err
	})
	hs.sess.handle(context.Background(), msg, sink)
	mu.Lock()
	seq := last
	mu.Unlock()
	if seq > 0 {
		hs.generalStream().waitDelivered(seq, 2*time.Second)
	}
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// postSSE answers a stateful request with an SSE stream that starts with a
// priming event (2025-11-25 sessions) and carries related messages and the
// response. When the client disconnects, the request runs on and its
// events wait in the store for a GET with Last-Event-ID.
func (h *httpHandler) postSSE(w http.ResponseWriter, r *http.Request, hs *httpSession, msg jsonrpc.Message, body []byte) {
	st := hs.newStream("p")
	st.attach()
	defer st.detach()
	var out Sink = st
	if h.srv.faults.on(FaultResponseOnGetStream) {
		out = getStreamTee{post: st, general: hs.generalStream(), id: msg.ID}
	}
	h.srv.goTracked(func() {
		defer st.finish()
		hs.sess.handle(context.Background(), msg, out)
	})
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	v := hs.sess.Version()
	if v == "" && msg.Method == spec.MethodInitialize {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		v = h.srv.negotiate(p.ProtocolVersion)
	}
	if since(v, spec.V20251125) {
		// The priming event goes out with the first events, or alone if
		// the request takes a while.
		if sw.event(st.eventID(0), "", nil, h.opts.Retry) != nil {
			return
		}
	}
	st.pump(sw, 0, since(v, spec.V20250326), "message", r.Context().Done(), h.srv.ctx.Done())
}

// get serves GET on the endpoint: the standalone stream of server
// messages, or the resumption of a stream with Last-Event-ID.
func (h *httpHandler) get(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		writeRPCError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.InvalidRequest, "Not Acceptable: GET needs Accept: text/event-stream", nil)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, -32000, "Bad Request: GET needs the Mcp-Session-Id header of an initialized session", nil)
		return
	}
	hs := h.lookup(w, sid, jsonrpc.ID{})
	if hs == nil {
		return
	}
	if !h.checkProtocolHeader(w, r, hs, jsonrpc.ID{}) {
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		h.resume(w, r, hs, last)
		return
	}
	st := hs.generalStream()
	if !st.attach() {
		writeRPCError(w, http.StatusConflict, jsonrpc.ID{}, -32000, "Conflict: this session already has an open GET stream; close it first", nil)
		return
	}
	defer st.detach()
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	if sw.flush() != nil {
		return
	}
	st.mu.Lock()
	after := st.delivered
	st.mu.Unlock()
	st.pumpTracking(sw, after, true, r.Context().Done(), h.srv.ctx.Done())
}

// resume replays one stream after the given event id and continues it.
func (h *httpHandler) resume(w http.ResponseWriter, r *http.Request, hs *httpSession, last string) {
	sid, seq, ok := parseEventID(last)
	hs.mu.Lock()
	st := hs.streams[sid]
	var all []*stream
	for _, x := range hs.streams {
		all = append(all, x)
	}
	hs.mu.Unlock()
	if !ok || st == nil {
		writeRPCError(w, http.StatusNotFound, jsonrpc.ID{}, -32000, fmt.Sprintf("Not Found: Last-Event-ID %q names no stream of this session that can be resumed", last), nil)
		return
	}
	if !st.attach() {
		writeRPCError(w, http.StatusConflict, jsonrpc.ID{}, -32000, fmt.Sprintf("Conflict: stream %q is already being delivered on another connection; close it first", sid), nil)
		return
	}
	defer st.detach()
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	if h.srv.faults.on(FaultReplayAllStreams) {
		for _, x := range all {
			if x == st {
				continue
			}
			x.mu.Lock()
			evs := append([]sseEvent(nil), x.events...)
			x.mu.Unlock()
			for _, e := range evs {
				_ = sw.event(x.eventID(e.seq), "message", e.data, 0)
			}
		}
	}
	st.pump(sw, seq, true, "message", r.Context().Done(), h.srv.ctx.Done())
}

// delete serves DELETE: it terminates the session.
func (h *httpHandler) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, -32000, "Bad Request: DELETE needs the Mcp-Session-Id header", nil)
		return
	}
	hs := h.lookup(w, sid, jsonrpc.ID{})
	if hs == nil {
		return
	}
	h.drop(hs)
	w.WriteHeader(http.StatusOK)
}

// checkProtocolHeader enforces MCP-Protocol-Version on a session: absent
// means 2025-03-26 is assumed; present, it must name a stateful version the
// server supports (clients should send the negotiated one; a different
// supported one is tolerated, as the header only has to be valid).
func (h *httpHandler) checkProtocolHeader(w http.ResponseWriter, r *http.Request, hs *httpSession, id jsonrpc.ID) bool {
	hv := strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))
	if hv == "" || h.srv.faults.on(FaultProtocolHeaderIgnored) {
		return true
	}
	if v, err := spec.ParseVersion(hv); err != nil || v.Era() != spec.Stateful || !h.srv.supports(v) {
		writeRPCError(w, http.StatusBadRequest, id, -32000, fmt.Sprintf("Bad Request: MCP-Protocol-Version %q is not a protocol version this session can use (negotiated: %q)", hv, hs.sess.Version()), nil)
		return false
	}
	return true
}

// newSession creates a session with a crypto-random id.
func (h *httpHandler) newSession() (*httpSession, error) {
	hs := &httpSession{h: h, streams: map[string]*stream{}, seen: h.srv.opts.Now()}
	hs.id = h.srv.randomID(16)
	if h.srv.faults.on(FaultSessionIDNotASCII) {
		hs.id = "session " + hs.id
	}
	hs.general = newStream("g", h.opts.EventBuffer)
	hs.streams["g"] = hs.general
	sess, err := h.srv.NewSession(hs.general)
	if err != nil {
		return nil, err
	}
	sess.ID = hs.id
	hs.sess = sess
	h.mu.Lock()
	h.expireLocked()
	h.sessions[hs.id] = hs
	h.mu.Unlock()
	return hs, nil
}

// lookup finds a live session or answers 404.
func (h *httpHandler) lookup(w http.ResponseWriter, sid string, id jsonrpc.ID) *httpSession {
	h.mu.Lock()
	h.expireLocked()
	hs := h.sessions[sid]
	_, gone := h.terminated[sid]
	if hs != nil {
		hs.seen = h.srv.opts.Now()
	}
	h.mu.Unlock()
	if hs == nil && gone && h.srv.faults.on(FaultTerminatedSessionServed) {
		// Resurrect a fresh, initialized-looking session under the old id.
		nh, err := h.newSession()
		if err == nil {
			h.mu.Lock()
			delete(h.sessions, nh.id)
			nh.id = sid
			nh.sess.mu.Lock()
			nh.sess.state, nh.sess.version = stateInitialized, h.srv.latestStateful()
			nh.sess.mu.Unlock()
			h.sessions[sid] = nh
			h.mu.Unlock()
			return nh
		}
	}
	if hs == nil {
		writeRPCError(w, http.StatusNotFound, id, -32001, "Session not found: it was terminated or expired; initialize a new session", nil)
		return nil
	}
	return hs
}

// drop terminates a session and remembers its id.
func (h *httpHandler) drop(hs *httpSession) {
	h.mu.Lock()
	if h.sessions[hs.id] == hs {
		delete(h.sessions, hs.id)
		h.terminated[hs.id] = struct{}{}
		h.termOrder = append(h.termOrder, hs.id)
		if len(h.termOrder) > 10000 {
			delete(h.terminated, h.termOrder[0])
			h.termOrder = h.termOrder[1:]
		}
	}
	h.mu.Unlock()
	hs.closeStreams()
	hs.sess.Close()
}

// expireLocked drops sessions idle for longer than SessionIdle.
func (h *httpHandler) expireLocked() {
	now := h.srv.opts.Now()
	for id, hs := range h.sessions {
		if now.Sub(hs.seen) > h.opts.SessionIdle && !hs.busy() {
			delete(h.sessions, id)
			h.terminated[id] = struct{}{}
			h.termOrder = append(h.termOrder, id)
			h.srv.goTracked(func() { hs.closeStreams(); hs.sess.Close() })
		}
	}
}

// busy reports whether a stream of the session is attached.
func (hs *httpSession) busy() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for _, st := range hs.streams {
		st.mu.Lock()
		a := st.attached
		st.mu.Unlock()
		if a {
			return true
		}
	}
	return false
}

func (hs *httpSession) closeStreams() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for _, st := range hs.streams {
		st.finish()
	}
}

func (hs *httpSession) generalStream() *stream { return hs.general }

// newStream creates a POST stream with a session-unique id; finished
// streams beyond a small number are forgotten.
func (hs *httpSession) newStream(prefix string) *stream {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.nextStr++
	st := newStream(prefix+strconv.Itoa(hs.nextStr), hs.h.opts.EventBuffer)
	st.backpressure = true
	hs.streams[st.id] = st
	if len(hs.streams) > 256 {
		for id, x := range hs.streams {
			x.mu.Lock()
			old := x.finished && !x.attached
			x.mu.Unlock()
			if old && x != hs.general {
				delete(hs.streams, id)
			}
			if len(hs.streams) <= 128 {
				break
			}
		}
	}
	return st
}

// attach marks a writer attached; it reports false when one already is.
func (st *stream) attach() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.attached {
		return false
	}
	st.attached = true
	select {
	case <-st.dropConn:
		st.dropConn = make(chan struct{})
	default:
	}
	return true
}

func (st *stream) detach() {
	st.mu.Lock()
	st.attached = false
	close(st.drained)
	st.drained = make(chan struct{})
	st.mu.Unlock()
}

// pumpTracking is pump for the standalone GET stream: it records what was
// delivered so a later GET continues where this one stopped.
func (st *stream) pumpTracking(sw *sseWriter, after int64, withIDs bool, clientGone, stop <-chan struct{}) {
	for {
		st.mu.Lock()
		var evs []sseEvent
		for _, e := range st.events {
			if e.seq > after {
				evs = append(evs, e)
			}
		}
		ch, drop, finished := st.notify, st.dropConn, st.finished
		st.mu.Unlock()
		for _, e := range evs {
			id := ""
			if withIDs {
				id = st.eventID(e.seq)
			}
			if sw.event(id, "message", e.data, 0) != nil {
				return
			}
			after = e.seq
			st.markDelivered(after)
		}
		if finished {
			return
		}
		if len(evs) > 0 {
			continue
		}
		if sw.flush() != nil {
			return
		}
		select {
		case <-ch:
		case <-drop:
			return
		case <-clientGone:
			return
		case <-stop:
			return
		}
	}
}

// captureSink keeps what is sent to it.
type captureSink struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (c *captureSink) Send(b []byte) error {
	c.mu.Lock()
	c.msgs = append(c.msgs, b)
	c.mu.Unlock()
	return nil
}

func (c *captureSink) first() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) == 0 {
		return nil
	}
	return c.msgs[0]
}
