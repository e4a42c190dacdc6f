package session

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Validator is a wire.Tap that validates every message the target sends
// against the schema of a protocol version (rules.Schema), learning which
// method each response answers from the requests it sees being sent
// (rules.Methods). Attach it to a Conn with Observe; sessions do so
// themselves.
//
// Concurrency: safe for concurrent use, as a Tap must be.
type Validator struct {
	version atomic.Value // spec.Version
	max     int
	from    spec.Direction
	methods *rules.Methods

	mu       sync.Mutex
	findings []Finding
	dropped  int
	checked  int64
	// posts: the POST stream (streamable HTTP) -> the id of the message
	// it carried, compact JSON text ("" for none or a batch), for telling
	// an answer that came on a request's own stream with another id.
	posts map[string]string
	// gets: the streams of GETs without Last-Event-ID (streamable HTTP).
	// A response on one answers no request: the transport keeps
	// responses off them (the transport-http checks judge one that
	// comes), and the request's answer is still due on its POST stream.
	gets map[string]bool
}

// maxPosts bounds Validator.posts.
const maxPosts = 4096

// NewValidator returns a validator of what a server sends in version v
// that keeps up to max findings (10000 when max <= 0).
func NewValidator(v spec.Version, max int) *Validator {
	return NewValidatorOf(spec.ServerToClient, v, max)
}

// NewValidatorOf returns a validator of the messages a peer sends (from is
// spec.ServerToClient for a server, spec.ClientToServer for a client, as
// the stage judges one) in version v, keeping up to max findings (10000
// when max <= 0).
func NewValidatorOf(from spec.Direction, v spec.Version, max int) *Validator {
	if max <= 0 {
		max = 10000
	}
	val := &Validator{max: max, from: from, methods: rules.NewMethods(0)}
	val.version.Store(v)
	return val
}

// SetVersion changes the version messages are validated against, for
// example once initialize has negotiated one.
func (v *Validator) SetVersion(ver spec.Version) { v.version.Store(ver) }

// Version is the version messages are validated against.
func (v *Validator) Version() spec.Version { return v.version.Load().(spec.Version) }

// Sent learns the method of each request sent, the id each POST of
// streamable HTTP carried, and which streams plain GETs opened.
func (v *Validator) Sent(o wire.Outgoing) {
	v.methods.Sent(o.Raw)
	if o.HTTP == nil || o.Stream == wire.StreamSSE {
		return
	}
	if o.HTTP.Method == http.MethodGet && o.HTTP.Header.Get(wire.HeaderLastEventID) == "" {
		v.mu.Lock()
		if v.gets == nil || len(v.gets) >= maxPosts {
			v.gets = map[string]bool{}
		}
		v.gets[o.Stream] = true
		v.mu.Unlock()
		return
	}
	if o.HTTP.Method != http.MethodPost {
		return
	}
	id := rules.RawID(bytes.TrimRight(o.Raw, "\r\n"))
	v.mu.Lock()
	if v.posts == nil || len(v.posts) >= maxPosts {
		v.posts = map[string]string{}
	}
	v.posts[o.Stream] = id
	v.mu.Unlock()
}

// plainGet reports whether stream is one a GET without Last-Event-ID
// opened: a response on it answers nothing.
func (v *Validator) plainGet(stream string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.gets[stream]
}

// answers is the method a response answers, "" when it answers no
// request it can be judged as: its id is unknown, every request with its
// id was answered already (a duplicate, or another request's id mangled
// into one used before: 1.5 rounded to 1), it came on the stream of a
// POST whose message carried another id (it answers that message, with a
// wrong id), or it came on a stream a plain GET opened (a copy there
// answers nothing: the answer is due on the request's POST stream). The base/ checks charge such answers to the id-echo rule;
// their envelope is still judged.
func (v *Validator) answers(f wire.Frame) string {
	if f.Msg.ID.IsZero() {
		return ""
	}
	v.mu.Lock()
	own, get := v.posts[f.Stream], v.gets[f.Stream]
	v.mu.Unlock()
	if get || (own != "" && !rules.SameID(own, f.Msg.ID.String())) {
		return ""
	}
	m, awaited := v.methods.Answer(f.Msg.ID)
	if !awaited {
		return ""
	}
	return m
}

// Received validates a message frame.
func (v *Validator) Received(f wire.Frame) {
	if f.Kind != wire.KindMessage {
		return
	}
	method := f.Msg.Method
	if f.Msg.Shape.IsResponse() {
		method = v.answers(f) // counted whatever the version
	}
	ver := v.Version()
	if !ver.Known() {
		return
	}
	if f.Msg.Shape.IsResponse() {
		// A request sent on purpose with a method the version lacks (to
		// test the answer) has its answer's envelope judged only.
		method = rules.Answerable(ver, v.from, method)
	}
	kind := FindingSchema
	var vs []schema.Violation
	if len(f.Raw) > MaxValidatedBytes {
		kind = FindingNotValidated
	} else {
		vs = rules.Schema(ver, v.from, method, f.Msg)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.checked++
	if len(vs) == 0 && kind == FindingSchema {
		return
	}
	if len(v.findings) >= v.max {
		v.dropped++
		return
	}
	t := f.Time
	if t.IsZero() {
		t = time.Now()
	}
	fd := Finding{Kind: kind, Method: method, Stream: f.Stream, Raw: f.Raw, Violations: vs, Time: t}
	if kind == FindingNotValidated {
		fd.Raw = bytes.Clone(f.Raw[:1024]) // not a slice of it: that would keep it all
		fd.Detail = fmt.Sprintf("a message of %d bytes, over the %d the schema is checked on", len(f.Raw), MaxValidatedBytes)
	}
	v.findings = append(v.findings, fd)
}

// Noted ignores observations.
func (v *Validator) Noted(string, time.Time) {}

func (v *Validator) add(f Finding) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.findings) >= v.max {
		v.dropped++
		return
	}
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	v.findings = append(v.findings, f)
}

// Findings returns a copy of the findings so far.
func (v *Validator) Findings() []Finding {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Finding(nil), v.findings...)
}

// Checked is how many messages were validated.
func (v *Validator) Checked() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.checked
}

// Dropped is how many findings were not kept.
func (v *Validator) Dropped() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.dropped
}

var _ wire.Tap = (*Validator)(nil)
