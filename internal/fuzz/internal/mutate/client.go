package mutate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// ClientPlan is what makes an Input one of a client campaign, where
// mcpcheck plays a hostile server: the input's chunks are bytes the stage
// writes to the client, and the plan says when (with the answer to which
// of the client's requests) and what else happens to that answer.
type ClientPlan struct {
	// Trigger is the method of the client request whose answer the input
	// goes with ("initialize", "tools/list", "tools/call" ...), and Nth
	// which of the client's requests of that method (1 for the first).
	// An empty Trigger plays nothing (a clean run).
	Trigger string `json:"trigger,omitempty"`
	Nth     int    `json:"nth,omitempty"`
	// Drop leaves the engine's own answer to the trigger out: the chunks
	// replace it and the client never gets a genuine answer. Without Drop
	// the chunks (and the liveness ping) go out right before it.
	Drop bool `json:"drop,omitempty"`
	// Reply, when set, bends the HTTP answer to the trigger (HTTP clients
	// only): its status, headers, redirects, length and SSE framing.
	Reply *HTTPReply `json:"reply,omitempty"`
}

// HTTPReply describes how the stage bends its HTTP answer to a client's
// request: a description, applied by the stage to the answer the engine
// made (as HTTPRequest is for the requests of server campaigns).
type HTTPReply struct {
	// Status replaces the answer's status (0 keeps it).
	Status int `json:"status,omitempty"`
	// Header sets header fields in order (a name may repeat); Omit removes
	// fields the engine set (Content-Type, Mcp-Session-Id ...).
	Header [][2]string `json:"header,omitempty"`
	Omit   []string    `json:"omit,omitempty"`
	// Redirect, with a 3xx Status, answers with a Location instead of the
	// answer: "self" (the endpoint itself), "loop" (a path that redirects
	// to itself), "gone" (a path that answers 404) or "closed" (a loopback
	// port nothing listens on).
	Redirect string `json:"redirect,omitempty"`
	// ReplaceBody replaces the body with Body (which may be empty).
	ReplaceBody bool   `json:"replaceBody,omitempty"`
	Body        []byte `json:"body,omitempty"`
	// DeclaredLength, when non-zero, is sent as Content-Length instead of
	// the body's real length, on a response written by hand; the
	// connection is closed after the body.
	DeclaredLength int64 `json:"declaredLength,omitempty"`
	// SSE breaks the framing of an event-stream answer (a JSON answer is
	// turned into one first).
	SSE *SSEDamage `json:"sse,omitempty"`
}

// SSEDamage says how the stage breaks the text/event-stream framing of an
// answer. Every field is a separate damage; several may be combined.
type SSEDamage struct {
	// Split writes the stream Split bytes at a time, each write flushed on
	// its own (events cut anywhere, even inside "data:").
	Split int `json:"split,omitempty"`
	// LineEnd ends every line with this instead of LF ("\r\n" or "\r").
	LineEnd string `json:"lineEnd,omitempty"`
	// ID gives every event this id field; Retry adds a retry field with
	// this literal value ("0", "-1", "99999999999999", "soon").
	ID    string `json:"id,omitempty"`
	Retry string `json:"retry,omitempty"`
	// Event names the event type of every event.
	Event string `json:"event,omitempty"`
	// MultiLine spreads each message over several data lines (which the
	// client must join with LF).
	MultiLine bool `json:"multiLine,omitempty"`
	// BOM starts the stream with a UTF-8 byte order mark.
	BOM bool `json:"bom,omitempty"`
	// Unterminated leaves out the blank line that ends the last event and
	// cuts the connection.
	Unterminated bool `json:"unterminated,omitempty"`
	// KeepAlive writes comment lines after the last event and keeps the
	// stream open until the client goes away or the execution ends.
	KeepAlive bool `json:"keepAlive,omitempty"`
}

// TriggerID is the id token of a client campaign's base message that
// answers the trigger: the stage writes the trigger request's id in its
// place when it plays the input.
const TriggerID = `"mcpcheck:trigger-id"`

// triggerIDValue is TriggerID unquoted.
const triggerIDValue = "mcpcheck:trigger-id"

// clientMutators are the mutators that exist for client campaigns only:
// server-to-client storms, an answer that never comes, and the HTTP answer
// (status, headers, redirects, lengths, SSE framing), which no stream
// mutator can describe.
var clientMutators = []Mutator{
	{Name: "server/storm", Doc: "sends 10 to 300 server-to-client requests of one method (sampling, elicitation, roots, ping) at once, each with an id of its own", Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		methods := stormMethods(b.Gens)
		method := spec.MethodPing // the versions without server requests get bare pings
		if len(methods) > 0 {
			method = pick(r, methods)
		}
		n := pick(r, []int{10, 50, 300})
		var all []byte
		for i := 0; i < n; i++ {
			msg := gen.Message{Value: map[string]any{"jsonrpc": "2.0", "method": method}}
			if len(methods) > 0 {
				var err error
				if msg, err = gen.Example(b.Gens.Request(method), r.Uint64()); err != nil {
					msg = gen.Message{Value: map[string]any{"jsonrpc": "2.0", "method": method, "params": map[string]any{}}}
				}
			}
			msg.Value["id"] = "mcpcheck-storm-" + strconv.Itoa(i)
			all = append(all, Line(msg.Raw())...)
		}
		return Input{Chunks: [][]byte{all}, Methods: []string{method}}
	}},
	{Name: "server/notification-storm", Doc: "sends 10 to 300 generated server notifications (progress, logs, list changes, cancellations) at once", Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		names := serverMethods(b.Gens, false)
		n := pick(r, []int{10, 50, 300})
		var all []byte
		for i := 0; i < n; i++ {
			msg, err := gen.Example(b.Gens.Notification(pick(r, names)), r.Uint64())
			if err != nil {
				continue
			}
			all = append(all, Line(msg.Raw())...)
		}
		if len(all) == 0 {
			all = Line(b.Msg.Raw())
		}
		return Input{Chunks: [][]byte{all}}
	}},
	{Name: "server/no-answer", Doc: "never answers the request: the client must give up on its own (costs the client's request timeout)", Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		return Input{Client: &ClientPlan{Drop: true}}
	}},
	{Name: "server/instead", Doc: "answers the request with a generated message of the version instead of its answer, which never comes", Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		in := Single(b.Msg.Raw())
		in.Client = &ClientPlan{Drop: true}
		return in
	}},
	{Name: "reply/status", Doc: "answers with a 4xx or 5xx status, with the answer's body or a text, HTML or JSON error body", Over: OverHTTP, Mutate: func(r *rand.Rand, b Base) Input {
		q := &HTTPReply{Status: pick(r, []int{400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 500, 502, 503, 504})}
		if r.IntN(2) == 0 {
			q.ReplaceBody = true
			q.Body = []byte(pick(r, []string{"<html><body>Bad Gateway</body></html>", "Internal Server Error", `{"error":"nope"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"x"}}`}))
			q.Header = [][2]string{{"Content-Type", pick(r, []string{"text/html", "text/plain", "application/json"})}}
			q.Omit = []string{"Content-Type"}
		}
		return replyInput(q)
	}},
	{Name: "reply/empty", Doc: "answers a request with 202, 204 or 200 and no body: the answer never comes (costs the client's request timeout)", Over: OverHTTP, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{Status: pick(r, []int{200, 202, 204}), ReplaceBody: true})
	}},
	{Name: "reply/content-type", Doc: "answers with a wrong or missing Content-Type: the client may read no answer in the body (costs the client's request timeout)", Over: OverHTTP, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		q := &HTTPReply{Omit: []string{"Content-Type"}}
		if ct := pick(r, []string{"", "text/html", "application/octet-stream", "application/json; charset=utf-16", "text/event-stream", "application/json", "text/event-stream; charset=latin1", "*/*"}); ct != "" {
			q.Header = [][2]string{{"Content-Type", ct}}
		}
		return replyInput(q)
	}},
	{Name: "reply/header", Doc: "answers with bent headers: a new, garbage or doubled Mcp-Session-Id, a huge header, a bogus MCP-Protocol-Version", Over: OverHTTP, Mutate: func(r *rand.Rand, b Base) Input {
		q := &HTTPReply{}
		switch r.IntN(4) {
		case 0:
			q.Omit = []string{"Mcp-Session-Id"}
			q.Header = [][2]string{{"Mcp-Session-Id", pick(r, []string{"mcpcheck-new-session", "\x01\x02", "ünïcödé", "", " ", "../../etc/passwd", string(bytes.Repeat([]byte("s"), 8<<10))})}}
		case 1:
			q.Header = [][2]string{{"Mcp-Session-Id", "mcpcheck-second-session"}}
		case 2:
			q.Header = [][2]string{{pick(r, []string{"X-Mcpcheck", "Link", "Set-Cookie", "WWW-Authenticate"}), string(bytes.Repeat([]byte("h"), pick(r, []int{4 << 10, 64 << 10})))}}
		default:
			q.Header = [][2]string{{"MCP-Protocol-Version", pick(r, []string{"1999-01-01", "2024-11-05", "garbage", ""})}}
		}
		return replyInput(q)
	}},
	{Name: "reply/redirect", Doc: "answers with a 307 or 308 to the endpoint itself, or a 301, 302, 303, 307 or 308 into a redirect loop, to a 404 or to a closed port", Over: OverHTTP, Mutate: func(r *rand.Rand, b Base) Input {
		if r.IntN(4) == 0 {
			return replyInput(&HTTPReply{Status: pick(r, []int{307, 308}), Redirect: "self"})
		}
		return replyInput(&HTTPReply{Status: pick(r, []int{301, 302, 303, 307, 308}), Redirect: pick(r, []string{"loop", "gone", "closed"})})
	}},
	{Name: "reply/lying-length", Doc: "declares a Content-Length longer or shorter than the body, written by hand and the connection closed after it (a cut answer may cost the client's request timeout)", Over: OverHTTP, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{DeclaredLength: pick(r, []int64{-1, 1, 10, 1 << 20, 1 << 40})})
	}},
	{Name: "sse/split", Doc: "writes the event stream 1 to 16 bytes at a time, each write flushed apart", Over: OverHTTP, Cost: Costly, ValidSSE: true, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{SSE: &SSEDamage{Split: 1 + r.IntN(16)}})
	}},
	{Name: "sse/bogus-id", Doc: "gives every event a bogus id: huge, non-ASCII, with NUL, repeated, or empty", Over: OverHTTP, Mutate: func(r *rand.Rand, b Base) Input {
		id := pick(r, []string{" ", "0", "-1", "ünïcödé", "a\x00b", "mcpcheck", string(bytes.Repeat([]byte("9"), 64<<10)), "../../"})
		return replyInput(&HTTPReply{SSE: &SSEDamage{ID: id}})
	}},
	{Name: "sse/retry", Doc: "adds retry fields of extreme or broken values (0, -1, 2^63, 99999999999999, text)", Over: OverHTTP, ValidSSE: true, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{SSE: &SSEDamage{Retry: pick(r, []string{"0", "-1", "1", "9223372036854775808", "99999999999999", "soon", "1.5", ""})}})
	}},
	{Name: "sse/keep-alive", Doc: "keeps the stream open after the last event with endless comment lines", Over: OverHTTP, Cost: Costly, ValidSSE: true, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{SSE: &SSEDamage{KeepAlive: true}})
	}},
	{Name: "sse/framing", Doc: "ends lines with CR or CR LF, spreads messages over data lines, starts with a BOM (all valid SSE)", Over: OverHTTP, ValidSSE: true, Mutate: func(r *rand.Rand, b Base) Input {
		d := &SSEDamage{}
		switch r.IntN(3) {
		case 0:
			d.LineEnd = pick(r, []string{"\r", "\r\n"})
		case 1:
			d.MultiLine = true
		default:
			d.BOM = true
		}
		return replyInput(&HTTPReply{SSE: d})
	}},
	{Name: "sse/event-type", Doc: "sends every event, the answer's included, under an event type other than message: the answer never comes (costs the client's request timeout)", Over: OverHTTP, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{SSE: &SSEDamage{Event: pick(r, []string{"error", "endpoint", "mcpcheck", "ping", "message "})}})
	}},
	{Name: "sse/unterminated", Doc: "leaves the last event without its blank line and cuts the connection: the answer is lost (costs the client's request timeout)", Over: OverHTTP, Cost: Slow, Mutate: func(r *rand.Rand, b Base) Input {
		return replyInput(&HTTPReply{SSE: &SSEDamage{Unterminated: true}})
	}},
}

// replyInput is an input that only bends the HTTP answer.
func replyInput(q *HTTPReply) Input { return Input{Client: &ClientPlan{Reply: q}} }

// MayLoseAnswer reports whether a correct client may never see the answer
// to the trigger under the plan (it is dropped, or the HTTP answer is
// bent): only the client's own request timeout ends such a run, so it is
// held to the campaign's ClientTimeout instead of its clean run's pace.
func (p ClientPlan) MayLoseAnswer() bool { return p.Drop || p.Reply != nil }

// ClientMutators returns the mutators of client campaigns, sorted by name:
// the stream families (bytes, json and protocol, and framing for stdio
// clients), which mutate a server message the stage sends (an answer to
// the client's request, a server request or a notification), and the
// families that exist for clients only: server (storms, no answer) and,
// for HTTP clients, reply (status, headers, redirects, lengths) and sse.
// The http family, which describes hostile requests, is left out.
func ClientMutators(http bool) []Mutator {
	var out []Mutator
	for _, m := range allMutators() {
		// The http family describes hostile requests: a server's part.
		if m.Family() == "http" || !m.appliesTo(http) {
			continue
		}
		out = append(out, m)
	}
	for _, m := range clientMutators {
		if m.appliesTo(http) {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ClientMutatorNames returns the names of every client campaign mutator
// (both transports), sorted.
func ClientMutatorNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, http := range []bool{false, true} {
		for _, m := range ClientMutators(http) {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// LookupClientMutator finds a client campaign mutator by name.
func LookupClientMutator(name string) (Mutator, bool) {
	for _, m := range clientMutators {
		if m.Name == name {
			return m, true
		}
	}
	m, ok := LookupMutator(name)
	return m, ok && m.Family() != "http"
}

// ScheduleClient expands a client mutator list as Schedule does, with the
// client families' costs: cheap mutators 64 times, costly ones 16 times,
// and the ones that cost the client's request timeout (seconds, for a
// correct client) once.
func ScheduleClient(ms []Mutator) []Mutator {
	var out []Mutator
	for _, m := range ms {
		n := 64
		switch {
		case m.Cost == Slow:
			n = 1
		case m.CostlyIn(spec.V20251125):
			// A client is launched for every execution, so no input needs
			// an instance of its own; the server mutators keep the weights
			// they have against a stateful server.
			n = 16
		}
		for i := 0; i < n; i++ {
			out = append(out, m)
		}
	}
	return out
}

// stormMethods are the server-to-client requests of a storm that the
// version's generators can draw (none in a version without server
// requests).
func stormMethods(g *gen.Messages) []string {
	can := map[string]bool{}
	for _, m := range serverMethods(g, true) {
		can[m] = true
	}
	var out []string
	for _, m := range []string{spec.MethodSamplingCreateMessage, spec.MethodElicitationCreate, spec.MethodRootsList, spec.MethodPing} {
		if can[m] {
			out = append(out, m)
		}
	}
	return out
}

// serverMethods lists the version's server-to-client requests (or
// notifications), sorted.
func serverMethods(g *gen.Messages, requests bool) []string {
	var out []string
	for _, info := range g.Methods() {
		if info.Carrier || !info.Direction.Allows(spec.ServerToClient) {
			continue
		}
		if requests && info.Request != "" || !requests && info.Notification != "" {
			out = append(out, info.Name)
		}
	}
	return out
}

// MakeClientBase draws the base message of one seed of a client campaign:
// a message the server sends to the client in version v. Three times in
// eight it is a generated answer to trigger (the request the input goes
// with) whose id is TriggerID, once an error answer, twice a server
// request and twice a server notification.
func MakeClientBase(v spec.Version, seed uint64, trigger string) (Base, error) {
	gens, err := gen.NewMessages(v)
	if err != nil {
		return Base{}, err
	}
	r := newRand(seed, nameSalt("client-base"))
	var g *rapid.Generator[gen.Message]
	kind := seed % 8
	if kind < 3 {
		if info, err := gens.Info(trigger); err != nil || info.Result == "" || info.Carrier {
			kind = 3 // no generated answer for a method the version lacks
		}
	}
	switch {
	case kind < 3:
		g = gens.Result(trigger)
	case kind == 3:
		g = gens.ErrorResponse()
	case kind < 6:
		if names := serverMethods(gens, true); len(names) > 0 {
			g = gens.Request(pick(r, names))
		}
	default:
		if names := serverMethods(gens, false); len(names) > 0 {
			g = gens.Notification(pick(r, names))
		}
	}
	if g == nil {
		g = gens.ErrorResponse()
	}
	msg, err := gen.Example(g, seed)
	if err != nil {
		return Base{}, err
	}
	msg.From = spec.ServerToClient
	switch {
	case msg.Value["result"] != nil || msg.Value["error"] != nil:
		msg.Value["id"] = triggerIDValue
		if res, ok := msg.Value["result"].(map[string]any); ok && trigger == spec.MethodInitialize {
			res["protocolVersion"] = string(v) // plausible: the version the client asked for
		}
	case msg.Value["id"] != nil:
		msg.Value["id"] = "mcpcheck-s2c-" + strconv.FormatUint(seed, 36)
	}
	return Base{Version: v, Msg: msg, Gens: gens}, nil
}

// MakeClientInput builds the input of one client campaign mutator for
// version v from seed. requests are the methods of the requests the client
// made in its clean run, in order: the input goes with the answer to one
// of them, drawn from the seed. The same arguments always give the same
// input.
func MakeClientInput(v spec.Version, mutator string, seed uint64, requests []string) (Input, error) {
	m, ok := LookupClientMutator(mutator)
	if !ok {
		return Input{}, fmt.Errorf("fuzz: there is no client mutator %q; ClientMutatorNames lists them", mutator)
	}
	if len(requests) == 0 {
		return Input{}, fmt.Errorf("fuzz: the client made no request in its clean run; there is nothing to answer with a hostile message")
	}
	r := newRand(seed, nameSalt("client-trigger"))
	at := r.IntN(len(requests))
	trigger, nth := requests[at], 0
	for _, m := range requests[:at+1] {
		if m == trigger {
			nth++
		}
	}
	b, err := MakeClientBase(v, seed, trigger)
	if err != nil {
		return Input{}, err
	}
	in := m.Mutate(newRand(seed, nameSalt(m.Name)), b)
	in.Mutator, in.Seed = m.Name, seed
	plan := ClientPlan{}
	if in.Client != nil {
		plan = *in.Client
	}
	if in.Fresh {
		// "Before initialize": with the answer to the client's first
		// request, before it.
		trigger, nth, in.Fresh = requests[0], 1, false
	}
	plan.Trigger, plan.Nth = trigger, nth
	in.Client = &plan
	in.HTTP = nil
	if len(in.Methods) == 0 && b.Msg.Method != "" {
		in.Methods = []string{b.Msg.Method}
	}
	return in, nil
}
