package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// faults are the rules this client can break, by -fault name, each with
// what goes out on the wire. The names match the reference client's fault
// switches that break the same rule where there is one.
var faults = map[string]string{
	"elicit-content-object":            "an accepted elicitation's content values are objects",
	"roots-undeclared":                 "no roots capability (initialize, and every 2026-07-28 request's _meta), yet roots/list is answered",
	"sampling-undeclared":              "no sampling capability (initialize, and every 2026-07-28 request's _meta), yet sampling/createMessage is answered",
	"elicitation-undeclared":           "no elicitation capability (initialize, and every 2026-07-28 request's _meta), yet elicitation/create is answered",
	"offer-older-version":              "initialize offers 2024-11-05, older than the latest version the client implements",
	"stateless-batch-requests":         "every 2026-07-28 request, the server/discover probe first, goes out as a one-element JSON array",
	"cancel-initialize":                "a notifications/cancelled for initialize goes out while it is unanswered",
	"request-before-initialize-result": "a tools/list goes out while initialize is unanswered",
	"initialize-no-client-info":        "initialize carries no clientInfo",
	"initialize-no-protocol-version":   "initialize carries no protocolVersion",
	"initialize-no-capabilities":       "initialize carries no capabilities",
	"ping-result-meta-string":          "ping is answered with a result whose _meta is a string",
	"discover-twice":                   "2026-07-28: one more server/discover after the settling one, before the first request (no breach: one redundant probe is not a probe before every request)",
	"reprobe-era":                      "2026-07-28: a server/discover before every request",
}

// fault is the switch in effect and what breaking it needs: the raw
// stdio writer or the URL, and signals of what has been sent.
type fault struct {
	name string
	url  string
	raw  io.Writer // the server's stdin (stdio), for raw writes

	mu       sync.Mutex
	writeMu  sync.Mutex
	pending  map[string]chan json.RawMessage // raw-sent requests by id, awaiting their answer
	initOnce sync.Once
	initSent chan struct{}
	sent     chan string
}

func (f *fault) initialized() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.initSent == nil {
		f.initSent = make(chan struct{})
	}
	return f.initSent
}

// noteSent is told each message body as it has been written out.
func (f *fault) noteSent(b []byte) {
	if bytes.Contains(b, []byte(`"method":"initialize"`)) {
		ch := f.initialized()
		f.initOnce.Do(func() { close(ch) })
	}
}

// watch wraps the server's stdin: writes are serialised with raw writes,
// and each is noted once written.
func (f *fault) watch(w io.WriteCloser) io.WriteCloser { return &watchWriter{w: w, f: f} }

type watchWriter struct {
	w io.WriteCloser
	f *fault
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.f.writeMu.Lock()
	n, err := w.w.Write(p)
	w.f.writeMu.Unlock()
	if err == nil {
		w.f.noteSent(p)
	}
	return n, err
}

func (w *watchWriter) Close() error { return w.w.Close() }

// writeRaw writes one line to the server's stdin between the
// transport's own writes.
func (f *fault) writeRaw(line []byte) error {
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	_, err := f.raw.Write(append(line, '\n'))
	return err
}

// filter passes the server's stdout on to the transport, line by line,
// keeping back the answers to requests sent raw (a batch's answer is an
// array, which mcp-go cannot read).
func (f *fault) filter(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if f.deliver(line) {
				continue
			}
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// deliver hands a line (or each element of an array line) answering a
// raw-sent request to its waiter and reports whether it did.
func (f *fault) deliver(line []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) == 0 {
		return false
	}
	t := bytes.TrimSpace(line)
	var elems []json.RawMessage
	if len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &elems) != nil {
			return false
		}
	} else {
		elems = []json.RawMessage{t}
	}
	took := false
	for _, e := range elems {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(e, &m) != nil || len(m.ID) == 0 {
			continue
		}
		if ch, ok := f.pending[string(m.ID)]; ok {
			delete(f.pending, string(m.ID))
			ch <- e
			took = true
		}
	}
	return took
}

// sentTransport notes each HTTP request body once the transport has read
// it all (it has gone out).
type sentTransport struct {
	base http.RoundTripper
	f    *fault
}

func (t sentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = &notingBody{r: bytes.NewReader(body), body: body, f: t.f}
	return t.base.RoundTrip(req)
}

type notingBody struct {
	r    *bytes.Reader
	body []byte
	f    *fault
	once sync.Once
}

func (b *notingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.once.Do(func() { b.f.noteSent(b.body) })
	}
	return n, err
}

func (b *notingBody) Close() error { return nil }

func (f *fault) httpClient() *http.Client {
	return &http.Client{Transport: sentTransport{base: http.DefaultTransport, f: f}}
}

// faultTransport is the transport mcp-go is given: the real one, with
// what the fault changes on the way out.
type faultTransport struct {
	transport.BidirectionalInterface
	f *fault
}

// faultHTTP is faultTransport over streamable HTTP, where mcp-go asks
// more of its transport.
type faultHTTP struct {
	*faultTransport
	inner *transport.StreamableHTTP
}

func (t *faultHTTP) SetProtocolVersion(v string)  { t.inner.SetProtocolVersion(v) }
func (t *faultHTTP) RequiresLegacyProtocol() bool { return t.inner.RequiresLegacyProtocol() }

func (t *faultTransport) SetRequestHandler(h transport.RequestHandler) {
	t.BidirectionalInterface.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if t.f.name == "ping-result-meta-string" && req.Method == "ping" {
			return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: json.RawMessage(`{"_meta":"mcpcheck"}`)}, nil
		}
		return h(ctx, req)
	})
}

func (t *faultTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	req = t.f.rewrite(req)
	switch {
	case t.f.name == "stateless-batch-requests" && modern(req):
		return t.sendBatch(ctx, req)
	case t.f.name == "reprobe-era" && modern(req) && req.Method != string(mcp.MethodServerDiscover):
		probe := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("reprobe-%v", req.ID.Value())),
			Method: string(mcp.MethodServerDiscover), Params: map[string]any{"_meta": metaOf(req)}, Header: discoverHeader(req.Header)}
		if _, err := t.BidirectionalInterface.SendRequest(ctx, probe); err != nil {
			return nil, fmt.Errorf("the re-probe before %s: %w", req.Method, err)
		}
	case req.Method == string(mcp.MethodInitialize) && (t.f.name == "cancel-initialize" || t.f.name == "request-before-initialize-result"):
		return t.alongsideInitialize(ctx, req)
	}
	return t.BidirectionalInterface.SendRequest(ctx, req)
}

// alongsideInitialize sends initialize and, once it has gone out and
// while it is unanswered, the fault's second message.
func (t *faultTransport) alongsideInitialize(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	done := make(chan answer, 1)
	sent := t.f.initialized()
	go func() {
		resp, err := t.BidirectionalInterface.SendRequest(ctx, req)
		done <- answer{resp, err}
	}()
	select {
	case <-sent:
	case a := <-done:
		return a.resp, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if t.f.name == "cancel-initialize" {
		n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": req.ID, "reason": "mcpcheck fault cancel-initialize"}},
		}}
		if err := t.BidirectionalInterface.SendNotification(ctx, n); err != nil {
			fmt.Fprintf(os.Stderr, "mcpgo-client: the cancellation of initialize: %v\n", err)
		}
	} else {
		early := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("early-tools-list"), Method: string(mcp.MethodToolsList)}
		go func() {
			// Its answer (or error) does not matter: what is judged is
			// that it went out before the initialize result.
			_, _ = t.BidirectionalInterface.SendRequest(ctx, early)
		}()
	}
	select {
	case a := <-done:
		return a.resp, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// sendBatch sends req as a one-element JSON array, around mcp-go (which
// sends no batches), and reads its answer.
func (t *faultTransport) sendBatch(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	body, err := json.Marshal([]transport.JSONRPCRequest{req})
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if t.f.url != "" {
		raw, err = t.postBatch(ctx, req, body)
	} else {
		raw, err = t.writeBatch(ctx, req, body)
	}
	if err != nil {
		return nil, err
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("the answer to the batched %s is no JSON-RPC response: %w", req.Method, err)
	}
	return &resp, nil
}

func (t *faultTransport) writeBatch(ctx context.Context, req transport.JSONRPCRequest, body []byte) (json.RawMessage, error) {
	id, _ := json.Marshal(req.ID)
	ch := make(chan json.RawMessage, 1)
	t.f.mu.Lock()
	if t.f.pending == nil {
		t.f.pending = map[string]chan json.RawMessage{}
	}
	t.f.pending[string(id)] = ch
	t.f.mu.Unlock()
	if err := t.f.writeRaw(body); err != nil {
		return nil, err
	}
	select {
	case raw := <-ch:
		return raw, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("the batched %s: %w", req.Method, errNoAnswer)
	}
}

func (t *faultTransport) postBatch(ctx context.Context, req transport.JSONRPCRequest, body []byte) (json.RawMessage, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.f.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("MCP-Protocol-Version", "2026-07-28")
	resp, err := t.f.httpClient().Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	id, _ := json.Marshal(req.ID)
	var candidates [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, l := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(l, "data:"); ok {
				candidates = append(candidates, []byte(strings.TrimSpace(d)))
			}
		}
	} else {
		candidates = append(candidates, data)
	}
	for _, c := range candidates {
		var elems []json.RawMessage
		if json.Unmarshal(c, &elems) != nil {
			elems = []json.RawMessage{c}
		}
		for _, e := range elems {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(e, &m) == nil && bytes.Equal(m.ID, id) {
				return e, nil
			}
		}
	}
	return nil, fmt.Errorf("the batched %s: HTTP %d without its answer: %.200s", req.Method, resp.StatusCode, data)
}

// rewrite applies the fault's changes to an outgoing request.
func (f *fault) rewrite(req transport.JSONRPCRequest) transport.JSONRPCRequest {
	drop := map[string]string{"roots-undeclared": "roots", "sampling-undeclared": "sampling", "elicitation-undeclared": "elicitation"}[f.name]
	isInit := req.Method == string(mcp.MethodInitialize)
	if drop == "" && !(isInit && strings.HasPrefix(f.name, "initialize-")) && !(isInit && f.name == "offer-older-version") {
		return req
	}
	p := paramsMap(req.Params)
	if p == nil {
		return req
	}
	if drop != "" {
		if caps, ok := p["capabilities"].(map[string]any); ok {
			delete(caps, drop)
		}
		if meta, ok := p["_meta"].(map[string]any); ok {
			if caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
				delete(caps, drop)
			}
		}
	}
	if isInit {
		switch f.name {
		case "initialize-no-client-info":
			delete(p, "clientInfo")
		case "initialize-no-protocol-version":
			delete(p, "protocolVersion")
		case "initialize-no-capabilities":
			delete(p, "capabilities")
		case "offer-older-version":
			p["protocolVersion"] = "2024-11-05"
		}
	}
	req.Params = p
	return req
}

// paramsMap is a request's params as a JSON object, or nil.
func paramsMap(params any) map[string]any {
	if params == nil {
		return map[string]any{}
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// metaOf is a request's params._meta.
func metaOf(req transport.JSONRPCRequest) map[string]any {
	m, _ := paramsMap(req.Params)["_meta"].(map[string]any)
	return m
}

// modern reports whether req is a 2026-07-28 request.
func modern(req transport.JSONRPCRequest) bool {
	if req.Method == string(mcp.MethodServerDiscover) {
		return true
	}
	v, _ := metaOf(req)[mcp.MetaKeyProtocolVersion].(string)
	return mcp.IsModernProtocol(v)
}

// discoverHeader is a request's HTTP headers for a server/discover.
func discoverHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		return nil
	}
	out.Set("Mcp-Method", string(mcp.MethodServerDiscover))
	out.Del("Mcp-Name")
	return out
}
