package fuzz

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ProbeID is the id of the liveness ping the stage sends a client right
// after a client campaign's input (stateful versions): a client that is
// still running must answer it.
const ProbeID = "mcpcheck-probe"

// Paths of the stage that redirects lead to (below the case's base).
const (
	loopPath = "/mcpcheck-redirect-loop"
	gonePath = "/mcpcheck-gone"
)

// keepAliveEvery is how often an endless keep-alive stream writes a
// comment line.
const keepAliveEvery = 100 * time.Millisecond

// player plays one client campaign input on a stage case. It watches the
// engine's answers for the trigger (over stdio through the engine's
// Rewrite and the stage's stdout hook; over HTTP through a middleware in
// front of the engine) and writes the input there: the chunks, the
// liveness ping, then the genuine answer unless the plan drops it.
//
// Concurrency: the hooks run on the engine's and the HTTP server's
// goroutines; the player's state is guarded by mu.
type player struct {
	v     spec.Version
	in    mutate.Input
	plan  mutate.ClientPlan
	probe bool // send the liveness ping after the chunks
	// marker is the line the stdio rewrite leaves in place of the
	// trigger's answer, for the stdout hook to replace.
	marker []byte
	// done is closed when the execution ends (an endless keep-alive
	// stream stops then).
	done chan struct{}

	mu sync.Mutex
	// base is the case's URL root, for redirects; notes records in the
	// case what the player did (set once the case exists).
	base     string
	notes    func(what, detail string)
	seen     int
	played   bool
	probedAt time.Time // when the ping went out (zero: not sent)
	genuine  []byte    // stdio: the engine's answer to the trigger
	idTok    []byte    // the trigger request's id, as a JSON token
}

func newPlayer(v spec.Version, in mutate.Input, token string) *player {
	p := &player{v: v, in: in, done: make(chan struct{}), notes: func(string, string) {}}
	if in.Client != nil {
		p.plan = *in.Client
	}
	p.probe = v.Era() == spec.Stateful
	if r := p.plan.Reply; r != nil && (r.SSE != nil || r.Redirect != "" || r.DeclaredLength != 0 || r.ReplaceBody || r.Status != 0) {
		p.probe = false // the answer's framing is broken: the client may never see a ping in it
	}
	p.marker = []byte("mcpcheck-fuzz-play-" + token)
	return p
}

// note records what the player did in the case's recording.
func (p *player) note(what, detail string) {
	p.mu.Lock()
	f := p.notes
	p.mu.Unlock()
	f(what, detail)
}

// url is the case's URL root.
func (p *player) url() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.base
}

// state reports whether the input was played and when the ping went out.
func (p *player) state() (played bool, probedAt time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.played, p.probedAt
}

// fire counts one answer to (or request of) the trigger method and reports
// whether this is the one the input goes with.
func (p *player) fire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen++
	if p.played || p.seen != p.plan.Nth {
		return false
	}
	p.played = true
	return true
}

// chunks returns the input's chunks with the trigger's id in place of
// TriggerID.
func (p *player) chunks(idTok []byte) [][]byte {
	out := make([][]byte, 0, len(p.in.Chunks))
	for _, c := range p.in.Chunks {
		if len(idTok) > 0 && bytes.Contains(c, []byte(mutate.TriggerID)) {
			c = bytes.ReplaceAll(c, []byte(mutate.TriggerID), idTok)
		}
		out = append(out, c)
	}
	return out
}

func probeRequest() []byte {
	return []byte(`{"jsonrpc":"2.0","id":"` + ProbeID + `","method":"ping"}`)
}

// rewrite is the engine's Rewrite on stdio: the answer to the trigger is
// held back and a marker line goes in its place.
func (p *player) rewrite(o stage.Outgoing) [][]byte {
	if p.plan.Trigger == "" || o.Method != p.plan.Trigger || o.Request.IsZero() {
		return [][]byte{o.Msg}
	}
	m := jsonrpc.Decode(o.Msg)
	if !m.Shape.IsResponse() || m.ID != o.Request || !p.fire() {
		return [][]byte{o.Msg}
	}
	p.mu.Lock()
	p.genuine, p.idTok = o.Msg, []byte(o.Request.String())
	p.mu.Unlock()
	return [][]byte{p.marker}
}

// write is the stage's stdout hook on stdio: the marker line becomes the
// input's chunks (one write each), the ping and the held-back answer.
func (p *player) write(b []byte) ([][]byte, bool) {
	if len(b) != len(p.marker)+1 || !bytes.HasPrefix(b, p.marker) {
		return [][]byte{b}, false
	}
	p.mu.Lock()
	genuine, idTok := p.genuine, p.idTok
	p.mu.Unlock()
	writes := p.chunks(idTok)
	p.note("mcpcheck-fuzz", fmt.Sprintf("the input (%s, seed %d) goes out with the answer to %s #%d: %d bytes in %d write(s)", p.in.Mutator, p.in.Seed, p.plan.Trigger, p.plan.Nth, p.in.Size(), len(writes)))
	if p.in.CloseAfter {
		p.note("mcpcheck-fuzz", "the server exits right after the input")
		return writes, true
	}
	if c, ok := p.in.LastByte(); ok && c != '\n' {
		writes = append(writes, []byte{'\n'})
	}
	if p.probe {
		writes = append(writes, mutate.Line(probeRequest()))
		p.mu.Lock()
		p.probedAt = time.Now()
		p.mu.Unlock()
	}
	if !p.plan.Drop {
		writes = append(writes, mutate.Line(genuine))
	} else {
		p.note("mcpcheck-fuzz", "the genuine answer is never sent")
	}
	return writes, false
}

// middleware is the player over HTTP: it serves the redirect targets and
// plays the input on the answer to the trigger.
func (p *player) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case loopPath:
			w.Header().Set("Location", p.url()+loopPath)
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		case gonePath:
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost || p.plan.Trigger == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		m := jsonrpc.Decode(body)
		if m.Kind != jsonrpc.KindRequest || m.Method != p.plan.Trigger || !p.fire() {
			next.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.idTok = []byte(m.ID.String())
		p.mu.Unlock()
		p.playHTTP(w, r, next, m.ID)
	})
}

// maxBody bounds an answer the HTTP player holds (the engine's own bound
// on messages is smaller).
const maxBody = 16 << 20

// capture is a ResponseWriter that keeps the engine's answer.
type capture struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header { return c.h }
func (c *capture) WriteHeader(s int) {
	if c.status == 0 {
		c.status = s
	}
}
func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if c.body.Len()+len(b) > maxBody {
		return 0, fmt.Errorf("fuzz: the engine's answer is over %d bytes", maxBody)
	}
	return c.body.Write(b)
}
func (c *capture) Flush() {}

// sseEvent is one event of an answer the player rewrites.
type sseEvent struct {
	id, event, retry string
	hasID, hasRetry  bool
	data             []byte
}

// playHTTP answers the trigger request: the engine's answer is made in
// full, then written with the input in it and the reply's damage.
func (p *player) playHTTP(w http.ResponseWriter, r *http.Request, next http.Handler, id jsonrpc.ID) {
	q := p.plan.Reply
	if q == nil {
		q = &mutate.HTTPReply{}
	}
	if q.Redirect != "" {
		base := p.url()
		loc := map[string]string{"self": base + "/mcp", "loop": base + loopPath, "gone": base + gonePath, "closed": "http://127.0.0.1:1/mcp"}[q.Redirect]
		p.note("mcpcheck-fuzz", fmt.Sprintf("the answer to %s #%d is a redirect: HTTP %d to %s", p.plan.Trigger, p.plan.Nth, q.Status, loc))
		w.Header().Set("Location", loc)
		w.WriteHeader(q.Status)
		return
	}
	c := &capture{h: http.Header{}}
	next.ServeHTTP(c, r)
	if c.status == 0 {
		c.status = http.StatusOK
	}
	mt := strings.ToLower(strings.TrimSpace(strings.Split(c.h.Get("Content-Type"), ";")[0]))
	isSSE := mt == "text/event-stream"
	if c.status != http.StatusOK || (!isSSE && mt != "application/json") {
		p.note("mcpcheck-fuzz", fmt.Sprintf("the input was not played: the engine answered %s #%d with HTTP %d %s", p.plan.Trigger, p.plan.Nth, c.status, mt))
		copyHeader(w.Header(), c.h)
		w.WriteHeader(c.status)
		_, _ = w.Write(c.body.Bytes())
		return
	}
	// The events of the answer, the genuine answer among them.
	var events []sseEvent
	if isSSE {
		sr := wire.NewSSEReader(bytes.NewReader(c.body.Bytes()), maxBody)
		for {
			ev, err := sr.Next()
			if err != nil {
				break
			}
			f := ev.Frame()
			e := sseEvent{id: f.EventID, hasID: f.HasEventID, event: f.Event, data: f.Raw}
			if f.HasRetry {
				e.retry, e.hasRetry = strconv.FormatInt(f.Retry.Milliseconds(), 10), true
			}
			events = append(events, e)
		}
	} else {
		events = []sseEvent{{data: bytes.Clone(c.body.Bytes())}}
	}
	at := len(events) // where the input goes: before the genuine answer
	for i, e := range events {
		if m := jsonrpc.Decode(e.data); m.Shape.IsResponse() && m.ID == id {
			at = i
			break
		}
	}
	var hostile []sseEvent
	p.mu.Lock()
	idTok := p.idTok
	p.mu.Unlock()
	for _, l := range bytes.Split(bytes.Join(p.chunks(idTok), nil), []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			hostile = append(hostile, sseEvent{data: l})
		}
	}
	probe := p.probe && (len(hostile) > 0 || p.plan.Drop)
	if probe {
		hostile = append(hostile, sseEvent{data: probeRequest()})
	}
	var out []sseEvent
	out = append(out, events[:at]...)
	out = append(out, hostile...)
	if at < len(events) {
		if p.plan.Drop {
			p.note("mcpcheck-fuzz", "the genuine answer is never sent")
			at++
		}
		out = append(out, events[at:]...)
	}
	p.note("mcpcheck-fuzz", fmt.Sprintf("the input (%s, seed %d) goes out with the answer to %s #%d: %d message(s)", p.in.Mutator, p.in.Seed, p.plan.Trigger, p.plan.Nth, len(hostile)))

	// JSON stays JSON when nothing needs a stream.
	asSSE := isSSE || len(out) != 1 || q.SSE != nil
	h := w.Header()
	copyHeader(h, c.h)
	var body []byte
	if asSSE {
		h.Set("Content-Type", "text/event-stream")
		h.Del("Content-Length")
		body = renderSSE(out, q.SSE)
	} else if len(out) == 1 {
		body = out[0].data
	}
	if q.ReplaceBody {
		body = q.Body
	}
	for _, k := range q.Omit {
		h.Del(k)
	}
	for _, kv := range q.Header {
		h.Add(kv[0], kv[1])
	}
	status := http.StatusOK
	if q.Status != 0 {
		status = q.Status
	}
	if probe {
		p.mu.Lock()
		p.probedAt = time.Now()
		p.mu.Unlock()
	}
	switch {
	case q.DeclaredLength != 0:
		p.writeRaw(w, status, h, body, q.DeclaredLength)
	case q.SSE != nil && asSSE:
		p.writeSSE(w, r, status, body, q.SSE)
	default:
		w.WriteHeader(status)
		_, _ = w.Write(body)
		if p.in.CloseAfter {
			p.cut(w, "the server cut the connection after the input")
		}
	}
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}

// renderSSE writes events as a text/event-stream, with the damage d
// (nil: none) that concerns single events.
func renderSSE(events []sseEvent, d *mutate.SSEDamage) []byte {
	if d == nil {
		d = &mutate.SSEDamage{}
	}
	var b bytes.Buffer
	if d.BOM {
		b.WriteString("\ufeff")
	}
	for i, e := range events {
		id, hasID := e.id, e.hasID
		if d.ID != "" {
			id, hasID = d.ID, true
		}
		if hasID {
			b.WriteString("id: " + id + "\n")
		}
		if d.Event != "" {
			b.WriteString("event: " + d.Event + "\n")
		} else if e.event != "" {
			b.WriteString("event: " + e.event + "\n")
		}
		if d.Retry != "" {
			b.WriteString("retry: " + d.Retry + "\n")
		} else if e.hasRetry {
			b.WriteString("retry: " + e.retry + "\n")
		}
		for _, l := range dataLines(e.data, d.MultiLine) {
			b.WriteString("data: ")
			b.Write(l)
			b.WriteByte('\n')
		}
		if !(d.Unterminated && i == len(events)-1) {
			b.WriteByte('\n')
		}
	}
	out := b.Bytes()
	if d.LineEnd != "" && d.LineEnd != "\n" {
		out = bytes.ReplaceAll(out, []byte{'\n'}, []byte(d.LineEnd))
	}
	return out
}

// dataLines splits one message into the data lines of its event: one,
// or with multi, one per member boundary (the client joins them with LF,
// which is whitespace in JSON).
func dataLines(data []byte, multi bool) [][]byte {
	if len(data) == 0 {
		return [][]byte{nil}
	}
	lines := bytes.Split(data, []byte{'\n'})
	if !multi {
		return lines
	}
	var out [][]byte
	for _, l := range lines {
		prev := 0
		for _, at := range mutate.TokenBoundaries(l) {
			if at > prev && at < len(l) && (l[at-1] == ',' || l[at-1] == '{') {
				out = append(out, l[prev:at])
				prev = at
			}
		}
		out = append(out, l[prev:])
	}
	return out
}

// writeSSE writes an event stream with the damage that concerns the
// stream: split writes, an endless keep-alive, a cut connection.
func (p *player) writeSSE(w http.ResponseWriter, r *http.Request, status int, body []byte, d *mutate.SSEDamage) {
	rc := http.NewResponseController(w)
	w.WriteHeader(status)
	_ = rc.Flush()
	step := len(body)
	if d.Split > 0 {
		step = d.Split
	}
	for len(body) > 0 {
		n := min(step, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		body = body[n:]
	}
	if d.Unterminated {
		p.cut(w, "the server cut the connection inside the last event")
		return
	}
	if d.KeepAlive {
		p.note("mcpcheck-fuzz", "the stream stays open with a keep-alive comment every "+keepAliveEvery.String())
		t := time.NewTicker(keepAliveEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
					return
				}
				if rc.Flush() != nil {
					return
				}
			case <-r.Context().Done():
				return
			case <-p.done:
				return
			}
		}
	}
}

// cut ends the HTTP connection abruptly, after what was written.
func (p *player) cut(w http.ResponseWriter, why string) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	p.note("mcpcheck-fuzz", why)
	conn.Close()
}

// writeRaw writes the whole response by hand on the hijacked connection,
// with a Content-Length that lies, then closes the connection.
func (p *player) writeRaw(w http.ResponseWriter, status int, h http.Header, body []byte, declared int64) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second)) // a client that stops reading does not hold the handler
	p.note("mcpcheck-fuzz", fmt.Sprintf("a response written by hand: HTTP %d, Content-Length %d for a body of %d bytes; the connection is closed after it", status, declared, len(body)))
	bw := brw.Writer
	if bw == nil {
		bw = bufio.NewWriter(conn)
	}
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	_ = h.Write(bw)
	fmt.Fprintf(bw, "Content-Length: %d\r\nConnection: close\r\n\r\n", declared)
	_, _ = bw.Write(body)
	_ = bw.Flush()
}
