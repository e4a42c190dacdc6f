package gen

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mcpcheck/mcpcheck/spec"
)

// ProbeMethod is the liveness probe of a version: ping while sessions exist,
// server/discover in the stateless era.
func ProbeMethod(v spec.Version) string {
	if v.Era() == spec.Stateless {
		return spec.MethodServerDiscover
	}
	return spec.MethodPing
}

// PingFor builds the liveness probe request of version v with a string id.
func PingFor(v spec.Version, id string) []byte {
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": ProbeMethod(v)}
	if v.Era() == spec.Stateless {
		req["params"] = map[string]any{"_meta": StatelessMeta(v)}
	}
	return Marshal(req)
}

// StatelessMeta is the request _meta mcpcheck sends in the stateless era:
// the protocol version, empty client capabilities and its client info.
func StatelessMeta(v spec.Version) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    string(v),
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpcheck-fuzz", "version": "0"},
	}
}

// Request builds a request of version v, adding the stateless _meta.
func Request(v spec.Version, id any, method string, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	if v.Era() == spec.Stateless {
		params["_meta"] = StatelessMeta(v)
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
}

// WithProgress is the _meta of a request of version v that asks for
// progress with token (in the stateless era, with the stateless _meta).
func WithProgress(v spec.Version, token any) map[string]any {
	meta := map[string]any{"progressToken": token}
	if v.Era() == spec.Stateless {
		meta = StatelessMeta(v)
		meta["progressToken"] = token
	}
	return meta
}

// Cancelled is the notification that cancels request id.
func Cancelled(v spec.Version, id any) []byte {
	return Marshal(map[string]any{"jsonrpc": "2.0", "method": spec.MethodCancelled,
		"params": map[string]any{"requestId": id, "reason": "mcpcheck fuzz"}})
}

// InitializeRequest is the initialize request mcpcheck sends: version v, no
// client capabilities.
func InitializeRequest(v spec.Version, id string) []byte {
	return Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": spec.MethodInitialize, "params": map[string]any{
		"protocolVersion": string(v),
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpcheck-fuzz", "version": "0"},
	}})
}

// InitializedNotification is the notification that ends the handshake.
func InitializedNotification() []byte {
	return Marshal(map[string]any{"jsonrpc": "2.0", "method": spec.MethodInitialized})
}

// Marshal encodes a value the fuzzer built; one that cannot be encoded is
// the fuzzer's bug, and panics.
func Marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fuzz: marshal a generated value: %v", err))
	}
	return b
}

// Example draws one value of gen deterministically from seed, turning the
// generator's failure into an error.
func Example[V any](gen interface{ Example(...int) V }, seed uint64) (v V, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fuzz: the generator failed for seed %d: %v", seed, p)
		}
	}()
	return gen.Example(int(seed & math.MaxInt64)), nil
}
