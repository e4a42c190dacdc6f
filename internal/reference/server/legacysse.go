package server

import (
	"context"
	"net/http"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream
// that carries every server message and first announces, in an "endpoint"
// event, the URL the client POSTs its messages to.

func (h *httpHandler) legacyGet(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		http.Error(w, "Not Acceptable: GET /sse needs Accept: text/event-stream", http.StatusNotAcceptable)
		return
	}
	hs := &httpSession{h: h, streams: map[string]*stream{}, seen: h.srv.opts.Now()}
	hs.id = h.srv.randomID(16)
	hs.legacy = newStream("l", h.opts.EventBuffer)
	// The stream carries every server message of the session and cannot be
	// resumed, so a burst larger than the buffer waits for the client
	// instead of evicting undelivered events (which ends the stream).
	hs.legacy.backpressure = true
	hs.general = hs.legacy
	hs.streams["l"] = hs.legacy
	sess, err := h.srv.NewSession(hs.legacy)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	sess.ID = hs.id
	hs.sess = sess
	h.mu.Lock()
	h.sessions["legacy:"+hs.id] = hs
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, "legacy:"+hs.id)
		h.mu.Unlock()
		hs.legacy.finish()
		sess.Close()
	}()
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	if h.srv.faults.on(FaultEndpointNotFirst) && sw.event("", "message", faultPingRequest, 0) != nil {
		return
	}
	if sw.event("", "endpoint", []byte(h.opts.PathPrefix+"/message?sessionId="+hs.id), 0) != nil || sw.flush() != nil {
		return
	}
	if h.srv.faults.on(FaultSpeakBeforeInitialize) && (sw.event("", "message", earlyLogNotification, 0) != nil || sw.flush() != nil) {
		return
	}
	hs.legacy.attach()
	defer hs.legacy.detach()
	hs.legacy.pump(sw, 0, false, "message", r.Context().Done(), h.srv.ctx.Done())
}

func (h *httpHandler) legacyPost(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	h.mu.Lock()
	hs := h.sessions["legacy:"+id]
	h.mu.Unlock()
	if id == "" || hs == nil {
		writeRPCError(w, http.StatusNotFound, jsonrpc.ID{}, -32001, "Session not found: open GET /sse first and POST to the endpoint it announces", nil)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	h.mu.Lock()
	hs.seen = h.srv.opts.Now()
	h.mu.Unlock()
	if h.srv.faults.on(FaultLegacyResponseInPost) {
		if msg := jsonrpc.Decode(body); msg.Kind == jsonrpc.KindRequest {
			pa := &faultPostAnswer{id: msg.ID, rest: hs.legacy}
			hs.sess.Handle(context.Background(), body, pa)
			if b := pa.response(); b != nil {
				writeJSON(w, http.StatusOK, b)
				return
			}
		}
	}
	hs.sess.Dispatch(body, hs.legacy)
	w.WriteHeader(http.StatusAccepted)
}
