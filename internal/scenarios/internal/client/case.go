package client

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Case is one finished scenario run: what the client and the stage sent,
// what the harness saw of the processes, and how the client ended. Checks
// read it through the methods below; it never changes once judged.
type Case struct {
	Scenario  *Scenario
	Version   spec.Version
	Transport wire.Transport
	// Events is the recording, in order (stage.Event).
	Events  []stage.Event
	Dropped int
	// Launched is false when the client could not be started (LaunchErr
	// says why).
	Launched  bool
	LaunchErr error
	// Exit says how the client process ended ("exited with status 0",
	// "killed by the harness after 15s").
	Exit     string
	ExitCode int
	// TimedOut is set when the harness had to stop a client that was
	// still running at the case's time limit.
	TimedOut bool
	// Stopped is set when the harness stopped the client after the
	// scenario had seen what it was about (Scenario.Done).
	Stopped bool
	// Interrupted is set when the run was stopped (a signal, its
	// deadline) while the client was still at work: the recording may be
	// only the start of what the client would have done.
	Interrupted bool
	// Stdout and Stderr are the tails of the client's output.
	Stdout, Stderr []byte
	// RodeOn is the official scenario the client was run as after it
	// refused this case's own (see Scenario.RidesOn); Refusal says how it
	// refused, in its own first error line. Both are "" otherwise.
	RodeOn, Refusal string
	// Transcript is the case's wire transcript for reports.
	Transcript []reports.WireEvent

	indexOnce sync.Once
	idx       caseIndex

	legacyOnce    sync.Once
	legacyVersion func(stage.Event) (spec.Version, bool)

	initOnce  sync.Once
	initSpans map[string]initSpan
}

// initSpan is where a session's first initialize went out and where the
// stage answered it (res 0: never).
type initSpan struct{ req, res int }

// BeforeInitializeResult reports whether the client sent e in a session
// whose initialize it had sent and the stage had not answered yet (a
// cancellation of it, a ping, a request that did not wait).
func (c *Case) BeforeInitializeResult(e stage.Event) bool {
	if e.From != stage.FromClient || !e.IsMessage() {
		return false
	}
	c.initOnce.Do(func() {
		c.initSpans = map[string]initSpan{}
		for _, s := range c.Sessions() {
			var span initSpan
			var id jsonrpc.ID
			for _, m := range s {
				if span.req == 0 && m.From == stage.FromClient && m.Msg.Method == spec.MethodInitialize && m.Msg.Shape == jsonrpc.KindRequest {
					span.req, id = m.Seq, m.Msg.ID
					continue
				}
				if span.req != 0 && m.From == stage.FromStage && m.Msg.Shape.IsResponse() && m.Msg.ID == id {
					span.res = m.Seq
					break
				}
			}
			if span.req != 0 {
				c.initSpans[c.Session(s[0])] = span
			}
		}
	})
	sp, ok := c.initSpans[c.Session(e)]
	if ok && e.HTTP != nil && c.index().early[e.Stream] != "" {
		return e.Seq > sp.req // sent before the result, though maybe recorded after it
	}
	return ok && e.Seq > sp.req && (sp.res == 0 || e.Seq < sp.res)
}

// caseIndex is what Session needs of the whole recording, built once.
type caseIndex struct {
	legacy  map[string]string // HTTP+SSE stream -> its session id
	refused map[string]bool   // client POST streams refused at the HTTP level
	sids    map[string]string // exchange stream -> the session id the stage's answer carried
	// early maps a client POST sent without Mcp-Session-Id while one
	// initialize was unanswered to that initialize's exchange: the client
	// could not have the session id yet, so the message is the pending
	// session's (a cancellation of that initialize, a request before its
	// result). Unanswered means recorded before the answer, or begun
	// (stage.Event.Began) before the stage first wrote the answer: a
	// request that crossed the answer can be recorded after it.
	early map[string]string
}

// initExchange is an initialize POST without a session id and how it
// ended: the stage's answer to it, or a refusal without one (end 0: not
// yet, or never).
type initExchange struct {
	req, end int
	began    time.Time // when the stage first wrote the answer or refusal
}

// pendingAt reports whether the exchange was unanswered when the client
// sent e: e was recorded after the initialize and before its end, or
// began before the stage first wrote the end.
func (x initExchange) pendingAt(e stage.Event) bool {
	if e.Seq <= x.req {
		return false
	}
	return x.end == 0 || e.Seq < x.end || !e.Began.IsZero() && !x.began.IsZero() && e.Began.Before(x.began)
}

func (c *Case) index() *caseIndex {
	c.indexOnce.Do(func() {
		ix := caseIndex{legacy: map[string]string{}, refused: map[string]bool{}, sids: map[string]string{}, early: map[string]string{}}
		status, answered := map[string]int{}, map[string]bool{}
		inits := map[string]*initExchange{}
		ids := map[string]jsonrpc.ID{}
		var early []stage.Event // client POSTs without a session id, initialize aside
		for _, e := range c.Events {
			if e.HTTP != nil && strings.HasPrefix(e.Stream, "post-") && e.IsMessage() {
				switch {
				case e.From == stage.FromClient && e.HTTP.Header.Get("Mcp-Session-Id") == "" && e.Msg.Method == spec.MethodInitialize && e.Msg.Shape == jsonrpc.KindRequest:
					inits[e.Stream], ids[e.Stream] = &initExchange{req: e.Seq}, e.Msg.ID
				case e.From == stage.FromClient && e.HTTP.Header.Get("Mcp-Session-Id") == "":
					early = append(early, e)
				case e.From == stage.FromStage:
					if x, ok := inits[e.Stream]; ok && x.end == 0 && e.Msg.Shape.IsResponse() && e.Msg.ID == ids[e.Stream] {
						x.end, x.began = e.Seq, e.Began
					}
				}
			}
			if x, ok := inits[e.Stream]; ok && x.end == 0 && e.From == stage.FromStage && e.HTTP != nil && e.HTTP.Status >= 400 && !e.IsMessage() {
				x.end, x.began = e.Seq, e.Began // refused without an answer
			}
			if e.From != stage.FromStage || e.HTTP == nil {
				continue
			}
			if e.Kind == wire.KindEndpoint {
				if sid := legacySession(strings.TrimSpace(string(e.Raw))); sid != "" {
					ix.legacy[e.Stream] = sid
				}
			}
			status[e.Stream] = e.HTTP.Status
			answered[e.Stream] = answered[e.Stream] || e.IsMessage()
			if sid := e.HTTP.Header.Get("Mcp-Session-Id"); sid != "" && ix.sids[e.Stream] == "" {
				ix.sids[e.Stream] = sid
			}
		}
		for _, e := range early {
			var pending []string
			for st, x := range inits {
				if x.pendingAt(e) {
					pending = append(pending, st)
				}
			}
			if len(pending) == 1 {
				ix.early[e.Stream] = pending[0]
			}
		}
		for st, code := range status {
			if code >= 400 && code < 500 && !answered[st] && strings.HasPrefix(st, "post-") {
				ix.refused[st] = true
			}
		}
		c.idx = ix
	})
	return &c.idx
}

// Msg is a message in a case: a stage.Event whose Kind is a message.
type Msg = stage.Event

// Traffic reports whether the client sent anything at all.
func (c *Case) Traffic() bool {
	for _, e := range c.Events {
		if e.From == stage.FromClient {
			return true
		}
	}
	return false
}

// From returns the message events one peer sent, in order.
func (c *Case) From(p stage.Peer) []Msg {
	var out []Msg
	for _, e := range c.Events {
		if e.From == p && e.IsMessage() {
			out = append(out, e)
		}
	}
	return out
}

// Client returns the messages the client sent.
func (c *Case) Client() []Msg { return c.From(stage.FromClient) }

// Frames returns everything the client put on the wire that was due to be
// a message: messages, garbage, lines over the limit (not the bodiless
// HTTP requests).
func (c *Case) Frames() []stage.Event {
	var out []stage.Event
	for _, e := range c.Events {
		if e.From == stage.FromClient && (e.Kind == wire.KindMessage || e.Kind == wire.KindGarbage || e.Kind == wire.KindTooLong) {
			out = append(out, e)
		}
	}
	return out
}

// Requests returns the client's requests of method ("" for all), those
// inside a batch included (see BatchElements): whether a batch was allowed
// is the base checks' to judge, and what it carried is still what the
// client asked.
func (c *Case) Requests(method string) []Msg {
	var out []Msg
	for _, ev := range c.Client() {
		for _, m := range BatchElements(ev) {
			if m.Msg.Shape == jsonrpc.KindRequest && (method == "" || m.Msg.Method == method) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Notifications returns the client's notifications of method ("" for
// all), those inside a batch included.
func (c *Case) Notifications(method string) []Msg {
	var out []Msg
	for _, ev := range c.Client() {
		for _, m := range BatchElements(ev) {
			if m.Msg.Shape == jsonrpc.KindNotification && (method == "" || m.Msg.Method == method) {
				out = append(out, m)
			}
		}
	}
	return out
}

// HTTPRequests returns every HTTP request of the client, with or without
// a body.
func (c *Case) HTTPRequests() []stage.Event {
	var out []stage.Event
	for _, e := range c.Events {
		if e.From == stage.FromClient && e.HTTP != nil {
			out = append(out, e)
		}
	}
	return out
}

// Notes returns the harness's observations of one kind (stage.Note*).
func (c *Case) Notes(what string) []stage.Event {
	var out []stage.Event
	for _, e := range c.Events {
		if e.From == stage.FromHarness && e.Note == what {
			out = append(out, e)
		}
	}
	return out
}

// StageRequests returns the requests the stage sent to the client.
func (c *Case) StageRequests() []Msg {
	var out []Msg
	for _, m := range c.From(stage.FromStage) {
		if m.Msg.Shape == jsonrpc.KindRequest {
			out = append(out, m)
		}
	}
	return out
}

// Answer pairs a response with the request it answers.
type Answer struct {
	Response Msg
	// Request is the request it answers; Found is false when no request
	// of the other peer had that id.
	Request Msg
	Found   bool
}

// ClientAnswers returns the client's responses with the stage's requests
// they answer (on the same connection).
func (c *Case) ClientAnswers() []Answer {
	return c.answers(stage.FromClient, stage.FromStage)
}

// StageAnswer returns the stage's response to the client request req
// (false when there was none).
func (c *Case) StageAnswer(req Msg) (Msg, bool) {
	for _, a := range c.answers(stage.FromStage, stage.FromClient) {
		if a.Found && a.Request.Seq == req.Seq && a.Request.Msg.ID == req.Msg.ID {
			return a.Response, true
		}
	}
	return Msg{}, false
}

func (c *Case) answers(from, to stage.Peer) []Answer {
	type key struct {
		conn int
		id   jsonrpc.ID
	}
	reqs := map[key]Msg{}
	var out []Answer
	for _, ev := range c.Events {
		for _, e := range BatchElements(ev) {
			if !e.IsMessage() || e.Msg.ID.IsZero() {
				continue
			}
			k := key{e.Conn, e.Msg.ID}
			switch {
			case e.From == to && e.Msg.Shape == jsonrpc.KindRequest:
				reqs[k] = e
			case e.From == from && e.Msg.Shape.IsResponse():
				r, ok := reqs[k]
				out = append(out, Answer{Response: e, Request: r, Found: ok})
			}
		}
	}
	return out
}

// BatchElements returns the messages of a JSON-RPC batch event, each as a
// copy of e (same Seq, Raw the whole batch) holding one element, or e
// alone when it is no batch.
func BatchElements(e Msg) []Msg {
	if !e.IsMessage() || !e.Msg.Has(jsonrpc.ReasonBatch) {
		return []Msg{e}
	}
	elems, ok := jsonrpc.DecodeBatch(e.Raw)
	if !ok {
		return []Msg{e}
	}
	out := make([]Msg, len(elems))
	for i := range elems {
		out[i] = e
		out[i].Msg = elems[i]
	}
	return out
}

// Session names the session an event belongs to: "stdio-N" for the Nth
// stdio connection; over streamable HTTP "http-ID" for the session with id
// ID (a client request without the header belongs to the session the
// stage's answer on the same exchange opened, as initialize does), "http-"
// for exchanges outside any session (a POST without the header sent while
// one initialize was unanswered is that initialize's session's: the client
// could not know the id yet); over the HTTP+SSE transport "sse-ID"
// for the session its endpoint event named (the GET stream and the POSTs
// to that endpoint); "refused-STREAM" for a client POST the stage refused
// at the HTTP level without a JSON-RPC answer (no session saw it).
func (c *Case) Session(e stage.Event) string {
	if e.HTTP == nil {
		return fmt.Sprintf("stdio-%d", e.Conn)
	}
	if sid := legacySession(e.HTTP.URL); sid != "" {
		return "sse-" + sid
	}
	ix := c.index()
	if sid := ix.legacy[e.Stream]; sid != "" {
		return "sse-" + sid
	}
	if init, ok := ix.early[e.Stream]; ok {
		switch {
		case ix.sids[init] != "":
			return "http-" + ix.sids[init]
		case ix.refused[init]:
			// The initialize was refused at the HTTP level (401 before
			// authorization): what the client sent while it was pending
			// (its cancellation) belongs with it.
			return "refused-" + init
		}
	}
	if e.From == stage.FromClient && ix.refused[e.Stream] {
		return "refused-" + e.Stream
	}
	if sid := e.HTTP.Header.Get("Mcp-Session-Id"); sid != "" {
		return "http-" + sid
	}
	if sid := ix.sids[e.Stream]; e.From == stage.FromClient && sid != "" {
		return "http-" + sid
	}
	return "http-"
}

// legacySession returns the sessionId query parameter of a request URL
// (the HTTP+SSE transport's message endpoint), "" when there is none.
func legacySession(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Query().Get("sessionId")
}

// Sessions groups the message events (both peers) by session, each group
// in recording order, the groups in order of their first event; a batch
// stands as its elements (see BatchElements).
func (c *Case) Sessions() [][]stage.Event {
	idx := map[string]int{}
	var out [][]stage.Event
	for _, e := range c.Events {
		if !e.IsMessage() {
			continue
		}
		k := c.Session(e)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		if at := c.earlyAt(out[i], e); at >= 0 {
			// Sent before the initialize result, recorded after it.
			out[i] = append(out[i][:at], append(BatchElements(e), out[i][at:]...)...)
			continue
		}
		out[i] = append(out[i], BatchElements(e)...)
	}
	return out
}

// earlyAt returns where in its session's events so far an early message
// (see caseIndex.early) goes: before the stage's answer to the pending
// initialize when that was recorded first; -1 to append it.
func (c *Case) earlyAt(s []stage.Event, e stage.Event) int {
	if e.HTTP == nil || e.From != stage.FromClient {
		return -1
	}
	init := c.index().early[e.Stream]
	if init == "" {
		return -1
	}
	for j, m := range s {
		if m.From == stage.FromStage && m.Stream == init && m.Msg.Shape.IsResponse() {
			return j
		}
	}
	return -1
}

// Initialize returns the client's first initialize request.
func (c *Case) Initialize() (Msg, mcp.InitializeParams, bool) {
	for _, m := range c.Requests(spec.MethodInitialize) {
		var p mcp.InitializeParams
		_ = json.Unmarshal(m.Msg.Params, &p)
		return m, p, true
	}
	return Msg{}, mcp.InitializeParams{}, false
}

// Negotiated is the protocol version the stage answered the client's
// first initialize with ("" when it answered none), or, in the stateless
// era, the version of the client's first request that declares one.
func (c *Case) Negotiated() spec.Version {
	if m, _, ok := c.Initialize(); ok {
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(ans.Msg.Result, &r) == nil {
				return spec.Version(r.ProtocolVersion)
			}
		}
		return ""
	}
	for _, m := range c.Requests("") {
		if v, ok := MetaVersion(m); ok {
			return spec.Version(v)
		}
	}
	return ""
}

// Declared returns the capabilities the client declared: in its first
// initialize, or else in the _meta of its first request that has them.
func (c *Case) Declared() (mcp.ClientCapabilities, bool) {
	if _, p, ok := c.Initialize(); ok {
		return p.Capabilities, true
	}
	for _, m := range c.Requests("") {
		if meta := metaOf(m); meta != nil {
			if caps, ok, err := meta.ClientCapabilities(); ok && err == nil {
				return caps, true
			}
		}
	}
	return mcp.ClientCapabilities{}, false
}

// metaOf returns the _meta of a request's params (nil when absent).
func metaOf(m Msg) mcp.Meta {
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(m.Msg.Params, &p) != nil {
		return nil
	}
	return p.Meta
}

func MetaVersion(m Msg) (string, bool) {
	meta := metaOf(m)
	if meta == nil {
		return "", false
	}
	v, ok, err := meta.ProtocolVersion()
	return v, ok && err == nil
}

// Describe names the case for a report: the scenario, version and how the
// client ended.
func (c *Case) Describe() string {
	s := fmt.Sprintf("scenario %s (%s)", c.Scenario.Name, c.Version)
	if c.RodeOn != "" {
		s += fmt.Sprintf(", played with the client told %q (it refused %s: %s)", c.RodeOn, c.Scenario.Name, c.Refusal)
	}
	if c.Exit != "" {
		s += ": the client " + c.Exit
	}
	return s
}

// UntestableWhy says why a case shows nothing to judge: the client did not
// start, sent nothing, or did not act out the scenario.
func (c *Case) UntestableWhy(needs string) string {
	switch {
	case !c.Launched:
		return fmt.Sprintf("the client could not be started for scenario %s: %v", c.Scenario.Name, c.LaunchErr)
	case c.refused() && c.Scenario.rides(Env{Version: c.Version, Transport: c.Transport}) != nil:
		return fmt.Sprintf("the client refused scenario %s and every official scenario it could ride on (%s) (%s)", c.Scenario.Name, strings.Join(c.Scenario.rides(Env{Version: c.Version, Transport: c.Transport}), ", "), refusalOf(c))
	case c.refused():
		return fmt.Sprintf("the client refused scenario %s (%s)", c.Scenario.Name, refusalOf(c))
	case !c.Traffic():
		return fmt.Sprintf("the client sent nothing in scenario %s (it %s); its output: %s", c.Scenario.Name, c.Exit, outputGist(c.Stderr, c.Stdout))
	}
	if c.RodeOn != "" {
		return fmt.Sprintf("in scenario %s the client did not %s: it refused the scenario (%s), so it was run as %q, whose flow does not (%s)", c.Scenario.Name, needs, c.Refusal, c.RodeOn, rideActs(c.RodeOn))
	}
	return fmt.Sprintf("in scenario %s the client did not %s (a scripted client would: %s)", c.Scenario.Name, needs, c.Scenario.acts())
}

// rideActs says what a scripted client does in the official scenario it
// was run as.
func rideActs(name string) string {
	switch name {
	case rideInitialize:
		return "connect and list the tools"
	case rideEveryTool:
		return "connect, list the tools and call each one it keeps"
	case rideToolCalls:
		return "connect, list the tools and make the tool calls MCP_CONFORMANCE_CONTEXT gives it, here the scenario's own tools"
	case rideElicitation:
		return "declare form elicitation, list the tools and call test_client_elicitation_defaults"
	case RideAuth:
		return AuthActs
	}
	return "its own flow"
}

// SpeaksStateless reports whether the client showed in this case that it
// speaks the 2026-07-28 (stateless) protocol: a server/discover request,
// or a request carrying a stateless version in its _meta or in the
// MCP-Protocol-Version header, on its own or inside a batch. Offered lists the versions its initialize
// requests offered, for a client that did not.
func (c *Case) SpeaksStateless() (speaks bool, offered []string) {
	seen := map[string]bool{}
	var msgs []Msg
	for _, ev := range c.Client() {
		// A request inside a batch shows the version it speaks as well
		// as one on its own: whether it may be batched is judged by the
		// checks, never by calling the version unspoken.
		msgs = append(msgs, BatchElements(ev)...)
	}
	for _, m := range msgs {
		if m.Msg.Shape != jsonrpc.KindRequest {
			continue
		}
		if m.Msg.Method == spec.MethodServerDiscover {
			return true, nil
		}
		if m.HTTP != nil {
			if v := spec.Version(m.HTTP.Header.Get("MCP-Protocol-Version")); v.Known() && v.Era() == spec.Stateless {
				return true, nil
			}
		}
		var p struct {
			Meta            map[string]json.RawMessage `json:"_meta"`
			ProtocolVersion string                     `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		var mv string
		if json.Unmarshal(p.Meta[mcp.MetaProtocolVersion], &mv) == nil && spec.Version(mv).Known() && spec.Version(mv).Era() == spec.Stateless {
			return true, nil
		}
		if m.Msg.Method == spec.MethodInitialize && p.ProtocolVersion != "" && !seen[p.ProtocolVersion] {
			seen[p.ProtocolVersion] = true
			offered = append(offered, p.ProtocolVersion)
		}
	}
	return false, offered
}

// SchemaVersion is the version whose schema m is held to: the case's,
// except, in a 2026-07-28 case, for the messages of a legacy session (see
// LegacyVersions): a dual-era client that falls back to initialize speaks
// the version it offered or negotiated there. Whether falling back was
// right is judged by the versioning checks, not by the schema.
func (c *Case) SchemaVersion(m Msg) spec.Version {
	if c.Version.Era() != spec.Stateless {
		return c.Version
	}
	c.legacyOnce.Do(func() { c.legacyVersion = c.LegacyVersions() })
	if v, ok := c.legacyVersion(m); ok {
		return v
	}
	return c.Version
}

// SentOrder puts an HTTP initialize back where the client sent it. The
// stage records a POST once its body is read, so a sessionless POST the
// client sent after its initialize, while that was unanswered (a
// cancellation of it, a request before its result), can be recorded
// first: the TS SDK streams the initialize body (chunked) and its second
// POST, small and whole, is read before the initialize's last chunk. Such
// a POST, whose handler began after the initialize's, follows the
// initialize here, and the events are numbered again (Seq), so every
// check sees the order the client sent in. Nothing else moves.
func SentOrder(evs []stage.Event) []stage.Event {
	sessionless := func(e stage.Event) bool {
		return e.From == stage.FromClient && e.HTTP != nil && strings.HasPrefix(e.Stream, "post-") && e.IsMessage() &&
			e.HTTP.Header.Get("Mcp-Session-Id") == "" && !e.Began.IsZero()
	}
	moved := false
	for i := 0; i < len(evs); i++ {
		a := evs[i]
		if !sessionless(a) || a.Msg.Method != spec.MethodInitialize || a.Msg.Shape != jsonrpc.KindRequest {
			continue
		}
		at := i
		for j := i - 1; j >= 0; j-- {
			b := evs[j]
			if b.From == stage.FromStage && b.HTTP != nil && b.Stream == a.Stream {
				break // nothing of its own exchange can precede it
			}
			if sessionless(b) && b.Msg.Method != spec.MethodInitialize && b.Began.After(a.Began) {
				at = j
			}
		}
		if at == i {
			continue
		}
		copy(evs[at+1:i+1], evs[at:i])
		evs[at] = a
		moved = true
	}
	if moved {
		for i := range evs {
			evs[i].Seq = i + 1
		}
	}
	return evs
}

// AuthActs is what a scripted client does in the official auth scenarios.
const AuthActs = "answer the 401 with the OAuth flow (metadata discovery, client registration, the authorization code flow with PKCE; the stage's authorization endpoint redirects at once), list the tools and call test-tool"
