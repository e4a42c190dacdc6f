package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// postStateless serves a 2026-07-28 POST: header and _meta validation in
// the transport's order, then the request. The answer is application/json
// unless the request sends notifications before its response (progress,
// logs, a subscription), in which case it is an SSE stream.
func (h *httpHandler) postStateless(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, body []byte) {
	id := msg.ID
	if msg.Kind != jsonrpc.KindRequest {
		id = jsonrpc.ID{} // a response's id is not the client's to echo
	}
	mismatch := func(format string, a ...any) {
		writeRPCError(w, http.StatusBadRequest, id, jsonrpc.HeaderMismatch, "Header mismatch: "+fmt.Sprintf(format, a...), nil)
	}
	hv := strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))
	if hv == "" {
		mismatch("the MCP-Protocol-Version header is required on every 2026-07-28 request")
		return
	}
	var base struct {
		Meta mcp.Meta `json:"_meta"`
	}
	_ = json.Unmarshal(msg.Params, &base)
	if msg.Kind == jsonrpc.KindRequest && (base.Meta == nil || len(base.Meta.MissingRequestMeta()) > 0) {
		writeRPCError(w, http.StatusBadRequest, id, jsonrpc.InvalidParams, fmt.Sprintf("Invalid params: params._meta must carry %s and %s", mcp.MetaProtocolVersion, mcp.MetaClientCapabilities), nil)
		return
	}
	if mv, ok, _ := base.Meta.ProtocolVersion(); ok && mv != hv {
		mismatch("MCP-Protocol-Version header %q does not match params._meta %s %q", hv, mcp.MetaProtocolVersion, mv)
		return
	}
	if v := spec.Version(hv); v.Era() != spec.Stateless || !h.srv.supports(v) {
		writeRPCError(w, http.StatusBadRequest, id, jsonrpc.UnsupportedProtocolVersion, fmt.Sprintf("Unsupported protocol version %q; retry with one of the supported versions", hv),
			mcp.UnsupportedProtocolVersionData{Supported: h.srv.statelessVersions(), Requested: hv})
		return
	}
	if msg.Kind != jsonrpc.KindRequest {
		if m := strings.TrimSpace(r.Header.Get("Mcp-Method")); m != msg.Method {
			mismatch("Mcp-Method header %q does not match the body's method %q", m, msg.Method)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if err := h.checkStatelessHeaders(r, msg); err != "" {
		mismatch("%s", err)
		return
	}
	if !accepts(r, "application/json") && !accepts(r, "text/event-stream") {
		writeRPCError(w, http.StatusNotAcceptable, id, jsonrpc.InvalidRequest, "Not Acceptable: the Accept header must list application/json and text/event-stream", nil)
		return
	}

	st := newStream("s", h.opts.EventBuffer)
	st.backpressure = !isListen(msg)
	st.attach()
	defer st.detach()
	done := make(chan struct{})
	status := http.StatusOK
	h.srv.goTracked(func() {
		defer close(done)
		defer st.finish()
		if h.srv.faults.on(FaultStatelessStreamRequest) {
			_ = st.Send(faultPingRequest)
		}
		status = h.srv.HandleStateless(r.Context(), body, st)
	})
	st.mu.Lock()
	ch, n := st.notify, len(st.events)
	st.mu.Unlock()
	if n == 0 {
		select {
		case <-ch:
		case <-done:
		}
	}
	st.mu.Lock()
	var first []byte
	if len(st.events) > 0 {
		first = st.events[0].data
	}
	st.mu.Unlock()
	if first == nil || isResponseTo(first, id) {
		<-done
		if first == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if h.srv.faults.on(FaultStateBoundToConnection) {
			first, status = h.srv.faultStateAffinity(r.RemoteAddr, body, first, status)
		}
		writeJSON(w, status, first)
		return
	}
	sw := newSSEWriter(w)
	w.WriteHeader(http.StatusOK)
	st.pump(sw, 0, false, "message", r.Context().Done(), h.srv.ctx.Done())
}

func isListen(msg jsonrpc.Message) bool { return msg.Method == spec.MethodSubscriptionsListen }

// checkStatelessHeaders validates Mcp-Method, Mcp-Name and Mcp-Param-*
// against the body; it returns what is wrong, or "".
func (h *httpHandler) checkStatelessHeaders(r *http.Request, msg jsonrpc.Message) string {
	m := strings.TrimSpace(r.Header.Get("Mcp-Method"))
	if m == "" {
		return "the Mcp-Method header is required"
	}
	if m != msg.Method {
		return fmt.Sprintf("Mcp-Method header %q does not match the body's method %q", m, msg.Method)
	}
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		TaskID    string          `json:"taskId"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	var want string
	switch msg.Method {
	case spec.MethodToolsCall, spec.MethodPromptsGet:
		want = p.Name
	case spec.MethodResourcesRead:
		want = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		want = p.TaskID
	default:
		return ""
	}
	raw, ok := r.Header[http.CanonicalHeaderKey("Mcp-Name")]
	if !ok || len(raw) == 0 {
		return "the Mcp-Name header is required for " + msg.Method
	}
	got, err := mcp.DecodeHeaderValue(strings.TrimSpace(raw[0]))
	if err != nil {
		return fmt.Sprintf("Mcp-Name header cannot be decoded: %v", err)
	}
	if got != want {
		return fmt.Sprintf("Mcp-Name header %q does not match %q in the body", got, want)
	}
	if msg.Method != spec.MethodToolsCall {
		return ""
	}
	t := h.srv.fx.tool(p.Name)
	if t == nil {
		return ""
	}
	params, err := mcp.HeaderParams(t.def.InputSchema)
	if err != nil || len(params) == 0 {
		return ""
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(p.Arguments, &args)
	for _, hp := range params {
		val := argAt(args, hp.Path)
		text, present, err := mcp.HeaderArgValue(val)
		if len(val) == 0 {
			present, err = false, nil
		}
		hdrs, has := r.Header[http.CanonicalHeaderKey(hp.Header())]
		switch {
		case err != nil:
			return fmt.Sprintf("argument %s cannot be carried in %s: %v", strings.Join(hp.Path, "."), hp.Header(), err)
		case present && !has:
			return fmt.Sprintf("the %s header is required because the body sets %s", hp.Header(), strings.Join(hp.Path, "."))
		case !present && has:
			return fmt.Sprintf("the %s header is sent but the body has no value for %s", hp.Header(), strings.Join(hp.Path, "."))
		case present:
			got, err := mcp.DecodeHeaderValue(strings.TrimSpace(hdrs[0]))
			if err != nil {
				return fmt.Sprintf("%s header cannot be decoded: %v", hp.Header(), err)
			}
			if got != text {
				return fmt.Sprintf("%s header %q does not match the body's %s %q", hp.Header(), got, strings.Join(hp.Path, "."), text)
			}
		}
	}
	return ""
}

// argAt follows path through nested argument objects.
func argAt(args map[string]json.RawMessage, path []string) json.RawMessage {
	cur := args
	for i, name := range path {
		v, ok := cur[name]
		if !ok {
			return nil
		}
		if i == len(path)-1 {
			return v
		}
		cur = nil
		if json.Unmarshal(v, &cur) != nil {
			return nil
		}
	}
	return nil
}
