package session

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/schema"
)

// Validator is a wire.Tap that validates every message the target sends
// against the schema of a protocol version, learning which method each
// response answers from the requests it sees being sent. Attach it to a
// Conn with Observe; sessions do so themselves.
//
// Concurrency: safe for concurrent use, as a Tap must be.
type Validator struct {
	version atomic.Value // spec.Version
	max     int

	mu       sync.Mutex
	methods  map[string]string // request id (wire form) -> method
	findings []Finding
	dropped  int
	checked  int64
}

// maxPending bounds the request ids remembered while waiting for answers.
const maxPending = 100000

// NewValidator returns a validator for version v that keeps up to max
// findings (10000 when max <= 0).
func NewValidator(v spec.Version, max int) *Validator {
	if max <= 0 {
		max = 10000
	}
	val := &Validator{max: max, methods: map[string]string{}}
	val.version.Store(v)
	return val
}

// SetVersion changes the version messages are validated against, for
// example once initialize has negotiated one.
func (v *Validator) SetVersion(ver spec.Version) { v.version.Store(ver) }

// Version is the version messages are validated against.
func (v *Validator) Version() spec.Version { return v.version.Load().(spec.Version) }

// Sent learns the method of each request sent.
func (v *Validator) Sent(o wire.Outgoing) {
	m := jsonrpc.Decode(o.Raw)
	if m.Shape == jsonrpc.KindRequest && !m.ID.IsZero() && m.Method != "" {
		v.mu.Lock()
		if len(v.methods) >= maxPending {
			v.methods = map[string]string{} // a target that never answers must not grow this forever
		}
		v.methods[m.ID.String()] = m.Method
		v.mu.Unlock()
	}
}

// Received validates a message frame.
func (v *Validator) Received(f wire.Frame) {
	if f.Kind != wire.KindMessage {
		return
	}
	ver := v.Version()
	if !ver.Known() {
		return
	}
	method := f.Msg.Method
	if f.Msg.Shape.IsResponse() && !f.Msg.ID.IsZero() {
		v.mu.Lock()
		method = v.methods[f.Msg.ID.String()]
		v.mu.Unlock()
	}
	if _, ok := spec.LookupMethod(ver, method); method != "" && !ok && f.Msg.Shape.IsResponse() {
		// We asked for a method this version lacks (on purpose, to test
		// the answer): judge the response's envelope only.
		method = ""
	}
	vs := schema.Validate(ver, spec.ServerToClient, method, f.Raw)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.checked++
	if len(vs) == 0 {
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
	v.findings = append(v.findings, Finding{Kind: FindingSchema, Method: method, Stream: f.Stream, Raw: f.Raw, Violations: vs, Time: t})
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
