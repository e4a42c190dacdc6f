package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

// Meta is the _meta object that requests, notifications, results and many
// nested types may carry (all versions). Values are kept as raw JSON so that
// keys mcpcheck does not know round-trip unchanged; typed accessors cover the
// keys the protocol reserves. A nil Meta is absent: fields of this type carry
// omitzero, and an empty non-nil Meta encodes as {}.
type Meta map[string]json.RawMessage

// Reserved _meta keys.
const (
	// MetaProgressToken opts a request into progress notifications (all
	// versions).
	MetaProgressToken = "progressToken"
	// MetaRelatedTask associates a message with a task (2025-11-25).
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaModelImmediateResponse is an optional string a server may put in a
	// CreateTaskResult's _meta for the host to pass to the model at once
	// (2025-11-25).
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
	// MetaProtocolVersion is the protocol version of a request; required on
	// every request (2026-07-28 on).
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities is the client's capabilities relevant to a
	// request; required on every request (2026-07-28 on).
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo names the client program (2026-07-28 on; recommended).
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaLogLevel is the lowest log level the server should emit while
	// handling a request (2026-07-28 on; replaces logging/setLevel).
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo names the server program in a result (2026-07-28 on;
	// recommended).
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaSubscriptionID carries, on every message of a subscriptions/listen
	// stream, the JSON-RPC id of the listen request (2026-07-28 on).
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaTraceparent, MetaTracestate and MetaBaggage carry OpenTelemetry
	// trace context (reserved in 2026-07-28).
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
	MetaBaggage     = "baggage"
)

// Has reports whether key is present.
func (m Meta) Has(key string) bool {
	_, ok := m[key]
	return ok
}

// Get decodes the value at key into v. It reports false with a nil error
// when the key is absent, and an error naming the key when the value does not
// decode into v.
func (m Meta) Get(key string, v any) (bool, error) {
	raw, ok := m[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("mcp: _meta[%q] holds %s that does not decode as %T: %v", key, jsonKind(raw), v, err)
	}
	return true, nil
}

// Set encodes v and stores it at key, allocating the map when it is nil.
func (m *Meta) Set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcp: cannot encode _meta[%q]: %v", key, err)
	}
	if *m == nil {
		*m = Meta{}
	}
	(*m)[key] = raw
	return nil
}

// mustSet stores a value whose encoding cannot fail.
func (m *Meta) mustSet(key string, v any) {
	if err := m.Set(key, v); err != nil {
		panic(err) // only called with strings, tokens and ids
	}
}

// ProgressToken returns the progressToken, if present and well-formed.
func (m Meta) ProgressToken() (ProgressToken, bool, error) {
	var t ProgressToken
	ok, err := m.Get(MetaProgressToken, &t)
	return t, ok, err
}

// SetProgressToken stores t as the progressToken.
func (m *Meta) SetProgressToken(t ProgressToken) { m.mustSet(MetaProgressToken, t) }

// ProtocolVersion returns the 2026-07-28 per-request protocol version.
func (m Meta) ProtocolVersion() (string, bool, error) {
	var s string
	ok, err := m.Get(MetaProtocolVersion, &s)
	return s, ok, err
}

// SetProtocolVersion stores the per-request protocol version.
func (m *Meta) SetProtocolVersion(v string) { m.mustSet(MetaProtocolVersion, v) }

// ClientCapabilities returns the 2026-07-28 per-request client capabilities.
func (m Meta) ClientCapabilities() (ClientCapabilities, bool, error) {
	var c ClientCapabilities
	ok, err := m.Get(MetaClientCapabilities, &c)
	return c, ok, err
}

// SetClientCapabilities stores the per-request client capabilities.
func (m *Meta) SetClientCapabilities(c ClientCapabilities) error {
	return m.Set(MetaClientCapabilities, c)
}

// ClientInfo returns the 2026-07-28 per-request client identity.
func (m Meta) ClientInfo() (Implementation, bool, error) {
	var i Implementation
	ok, err := m.Get(MetaClientInfo, &i)
	return i, ok, err
}

// SetClientInfo stores the per-request client identity.
func (m *Meta) SetClientInfo(i Implementation) error { return m.Set(MetaClientInfo, i) }

// ServerInfo returns the 2026-07-28 server identity of a result.
func (m Meta) ServerInfo() (Implementation, bool, error) {
	var i Implementation
	ok, err := m.Get(MetaServerInfo, &i)
	return i, ok, err
}

// SetServerInfo stores the server identity of a result.
func (m *Meta) SetServerInfo(i Implementation) error { return m.Set(MetaServerInfo, i) }

// LogLevel returns the 2026-07-28 per-request log level. A value that is not
// one of the eight levels is an error.
func (m Meta) LogLevel() (LoggingLevel, bool, error) {
	var l LoggingLevel
	ok, err := m.Get(MetaLogLevel, &l)
	if ok && err == nil && !l.Valid() {
		return l, true, fmt.Errorf("mcp: _meta[%q] is %q, which is not a logging level; use one of %v", MetaLogLevel, l, LoggingLevels)
	}
	return l, ok, err
}

// SetLogLevel stores the per-request log level.
func (m *Meta) SetLogLevel(l LoggingLevel) { m.mustSet(MetaLogLevel, l) }

// SubscriptionID returns the 2026-07-28 subscription id of a message on a
// subscriptions/listen stream.
func (m Meta) SubscriptionID() (jsonrpc.ID, bool, error) {
	var id jsonrpc.ID
	ok, err := m.Get(MetaSubscriptionID, &id)
	return id, ok, err
}

// SetSubscriptionID stores the subscription id.
func (m *Meta) SetSubscriptionID(id jsonrpc.ID) { m.mustSet(MetaSubscriptionID, id) }

// RelatedTask returns the 2025-11-25 related-task metadata.
func (m Meta) RelatedTask() (RelatedTaskMetadata, bool, error) {
	var r RelatedTaskMetadata
	ok, err := m.Get(MetaRelatedTask, &r)
	return r, ok, err
}

// SetRelatedTask stores the related-task metadata for taskID.
func (m *Meta) SetRelatedTask(taskID string) {
	m.mustSet(MetaRelatedTask, RelatedTaskMetadata{TaskID: taskID})
}

// RequestMeta builds the _meta every 2026-07-28 request must carry: the
// protocol version and client capabilities, plus the client identity when
// info is not nil.
func RequestMeta(version string, caps ClientCapabilities, info *Implementation) (Meta, error) {
	var m Meta
	m.SetProtocolVersion(version)
	if err := m.SetClientCapabilities(caps); err != nil {
		return nil, err
	}
	if info != nil {
		if err := m.SetClientInfo(*info); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MissingRequestMeta lists the reserved keys a 2026-07-28 request's _meta
// must carry but does not; servers reject such requests with -32602.
func (m Meta) MissingRequestMeta() []string {
	var out []string
	for _, k := range []string{MetaProtocolVersion, MetaClientCapabilities} {
		if !m.Has(k) {
			out = append(out, k)
		}
	}
	return out
}
