package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// Message is one generated MCP message of one protocol version.
type Message struct {
	Version spec.Version
	// Method is the message's method, or for a response the method of the
	// request it answers ("" for an error response that answers nothing in
	// particular).
	Method string
	// Kind is jsonrpc.KindRequest, KindNotification, KindResponse or
	// KindErrorResponse.
	Kind jsonrpc.Kind
	// From is the peer that sends it: spec.ClientToServer or
	// spec.ServerToClient.
	From spec.Direction
	// Value is the whole JSON-RPC message.
	Value map[string]any
}

// Raw encodes the message as compact JSON without a newline.
func (m Message) Raw() []byte {
	b, err := json.Marshal(m.Value)
	if err != nil {
		// Generated values are plain JSON types; this cannot happen.
		panic(fmt.Sprintf("fuzz: a generated %s %s does not encode: %v", m.Method, m.Kind, err))
	}
	return b
}

// Messages generates the messages of one protocol version from mcpcheck's
// JSON Schema for it (internal/spec/schema), so every message it draws is valid
// against that schema. Build one with NewMessages; it is safe for concurrent
// use.
type Messages struct {
	v       spec.Version
	gen     *SchemaGen
	methods []schema.MethodInfo // JSON-RPC methods (carrier shapes left out)

	clientOnce                     sync.Once
	clientRequest, clientNotifying *rapid.Generator[Message]
}

var messagesCache sync.Map // spec.Version -> *Messages

// NewMessages returns the message generators of version v. It fails when
// internal/spec/schema has no schema for v.
func NewMessages(v spec.Version) (*Messages, error) {
	if m, ok := messagesCache.Load(v); ok {
		return m.(*Messages), nil
	}
	raw, err := schema.Raw(v)
	if err != nil {
		return nil, fmt.Errorf("fuzz: cannot generate messages of %s: %w", v, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, errSchema("the schema of "+string(v), err)
	}
	infos, err := schema.Methods(v)
	if err != nil {
		return nil, fmt.Errorf("fuzz: cannot read the method table of %s: %w", v, err)
	}
	m := &Messages{v: v, gen: NewSchemaGen(doc, 6)}
	for _, info := range infos {
		if !info.Carrier {
			m.methods = append(m.methods, info)
		}
	}
	got, _ := messagesCache.LoadOrStore(v, m)
	return got.(*Messages), nil
}

// Version is the protocol version the generators produce.
func (m *Messages) Version() spec.Version { return m.v }

// Methods lists the JSON-RPC methods of the version, sorted.
func (m *Messages) Methods() []schema.MethodInfo {
	return append([]schema.MethodInfo(nil), m.methods...)
}

// Schema is the schema generator of the whole version file, for drawing
// single definitions (m.Schema().Def("Tool")).
func (m *Messages) Schema() *SchemaGen { return m.gen }

// Info returns the schema's facts about method.
func (m *Messages) Info(method string) (schema.MethodInfo, error) {
	for _, i := range m.methods {
		if i.Name == method {
			return i, nil
		}
	}
	return schema.MethodInfo{}, fmt.Errorf("fuzz: %s has no JSON-RPC method %q; see Messages.Methods", m.v, method)
}

func senders(d spec.Direction) []spec.Direction {
	switch d {
	case spec.ClientToServer, spec.ServerToClient:
		return []spec.Direction{d}
	}
	return []spec.Direction{spec.ClientToServer, spec.ServerToClient}
}

// Request generates requests of method.
func (m *Messages) Request(method string) *rapid.Generator[Message] {
	return rapid.Custom(func(t *rapid.T) Message {
		info, err := m.Info(method)
		if err != nil || info.Request == "" {
			t.Fatalf("fuzz: %s is not a request method of %s", method, m.v)
		}
		val := m.gen.draw(t, m.gen.defs[info.Request], 0).(map[string]any)
		from := rapid.SampledFrom(senders(info.Direction)).Draw(t, "from")
		return Message{Version: m.v, Method: method, Kind: jsonrpc.KindRequest, From: from, Value: val}
	})
}

// Notification generates notifications of method.
func (m *Messages) Notification(method string) *rapid.Generator[Message] {
	return rapid.Custom(func(t *rapid.T) Message {
		info, err := m.Info(method)
		if err != nil || info.Notification == "" {
			t.Fatalf("fuzz: %s is not a notification of %s", method, m.v)
		}
		val := m.gen.draw(t, m.gen.defs[info.Notification], 0).(map[string]any)
		from := rapid.SampledFrom(senders(info.Direction)).Draw(t, "from")
		return Message{Version: m.v, Method: method, Kind: jsonrpc.KindNotification, From: from, Value: val}
	})
}

// Result generates success responses to method.
func (m *Messages) Result(method string) *rapid.Generator[Message] {
	return rapid.Custom(func(t *rapid.T) Message {
		info, err := m.Info(method)
		if err != nil || info.Result == "" {
			t.Fatalf("fuzz: %s is not a request method of %s", method, m.v)
		}
		res := m.gen.draw(t, m.gen.defs[info.Result], 0)
		id := m.gen.draw(t, m.gen.defs["RequestId"], 0)
		// The answering peer is the one the request goes to.
		asker := rapid.SampledFrom(senders(info.Direction)).Draw(t, "asker")
		return Message{Version: m.v, Method: method, Kind: jsonrpc.KindResponse, From: opposite(asker),
			Value: map[string]any{"jsonrpc": "2.0", "id": id, "result": res}}
	})
}

// ErrorResponse generates error responses.
func (m *Messages) ErrorResponse() *rapid.Generator[Message] {
	return rapid.Custom(func(t *rapid.T) Message {
		val := m.gen.draw(t, m.gen.defs["JSONRPCErrorResponse"], 0).(map[string]any)
		from := rapid.SampledFrom([]spec.Direction{spec.ClientToServer, spec.ServerToClient}).Draw(t, "from")
		return Message{Version: m.v, Kind: jsonrpc.KindErrorResponse, From: from, Value: val}
	})
}

// Method generates any message (request, notification, result) of one
// method.
func (m *Messages) Method(method string) *rapid.Generator[Message] {
	info, err := m.Info(method)
	if err != nil {
		return rapid.Custom(func(t *rapid.T) Message { t.Fatalf("%v", err); return Message{} })
	}
	if info.Notification != "" {
		return m.Notification(method)
	}
	return rapid.OneOf(m.Request(method), m.Result(method))
}

// Any generates any message of the version: every request, notification,
// result and error response shape.
func (m *Messages) Any() *rapid.Generator[Message] {
	gens := []*rapid.Generator[Message]{m.ErrorResponse()}
	for _, info := range m.methods {
		gens = append(gens, m.Method(info.Name))
	}
	return rapid.OneOf(gens...)
}

// ClientRequest generates requests a client sends, with plausible values
// where the protocol pins them (see Plausible), for methods drawn from
// the version's client-to-server requests.
func (m *Messages) ClientRequest() *rapid.Generator[Message] {
	m.clientOnce.Do(m.clientGens)
	return m.clientRequest
}

// ClientNotification generates notifications a client sends.
func (m *Messages) ClientNotification() *rapid.Generator[Message] {
	m.clientOnce.Do(m.clientGens)
	return m.clientNotifying
}

func (m *Messages) clientGens() {
	m.clientRequest = m.clientRequestGen()
	m.clientNotifying = m.clientNotificationGen()
}

func (m *Messages) clientRequestGen() *rapid.Generator[Message] {
	var names []string
	for _, info := range m.methods {
		if info.Request != "" && info.Direction.Allows(spec.ClientToServer) {
			names = append(names, info.Name)
		}
	}
	sort.Strings(names)
	return rapid.Custom(func(t *rapid.T) Message {
		name := rapid.SampledFrom(names).Draw(t, "method")
		msg := m.Request(name).Draw(t, "request")
		msg.From = spec.ClientToServer
		return Plausible(msg)
	})
}

func (m *Messages) clientNotificationGen() *rapid.Generator[Message] {
	var names []string
	for _, info := range m.methods {
		if info.Notification != "" && info.Direction.Allows(spec.ClientToServer) {
			names = append(names, info.Name)
		}
	}
	sort.Strings(names)
	return rapid.Custom(func(t *rapid.T) Message {
		name := rapid.SampledFrom(names).Draw(t, "method")
		msg := m.Notification(name).Draw(t, "notification")
		msg.From = spec.ClientToServer
		return Plausible(msg)
	})
}

func opposite(d spec.Direction) spec.Direction {
	if d == spec.ClientToServer {
		return spec.ServerToClient
	}
	return spec.ClientToServer
}

// Plausible rewrites the members of a generated message that a real peer
// checks before anything else, so the message reaches deeper code: the
// protocol version in initialize and in 2026-07-28 request _meta becomes
// the message's version. The message stays valid against the schema.
func Plausible(msg Message) Message {
	params, _ := msg.Value["params"].(map[string]any)
	if params == nil {
		return msg
	}
	if msg.Method == spec.MethodInitialize {
		params["protocolVersion"] = string(msg.Version)
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		if _, ok := meta["io.modelcontextprotocol/protocolVersion"]; ok {
			meta["io.modelcontextprotocol/protocolVersion"] = string(msg.Version)
		}
	}
	return msg
}
