package mutate

import (
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/spec"
)

// protocolMutators send well-formed messages at the wrong moment or in the
// wrong combination.
var protocolMutators = []Mutator{
	{Name: "protocol/valid", Doc: "sends a valid, plausible generated message (its answer is still judged)", Mutate: func(r *rand.Rand, b Base) Input {
		return Single(b.Msg.Raw())
	}},
	{Name: "protocol/before-initialize", Doc: "sends a request to a fresh instance before initialize (stateless versions, which have no handshake and no session state: to the shared instance)", FreshIn: []spec.Era{spec.Stateful}, Mutate: func(r *rand.Rand, b Base) Input {
		in := Single(b.Msg.Raw())
		in.Fresh = b.Version.Era() == spec.Stateful
		return in
	}},
	{Name: "protocol/double-initialize", Doc: "sends initialize again on an initialized session (stateless versions: initialize on an instance of its own)", FreshIn: []spec.Era{spec.Stateless}, Mutate: func(r *rand.Rand, b Base) Input {
		in := Single(gen.InitializeRequest(b.Version, "mcpcheck-init-again"))
		in.Methods = []string{spec.MethodInitialize}
		return in
	}},
	{Name: "protocol/response-to-nothing", Doc: "sends a result or error response for an id that was never requested", Mutate: func(r *rand.Rand, b Base) Input {
		id := pick(r, []any{"mcpcheck-nobody", int64(r.IntN(1 << 30)), int64(0), int64(-1)})
		msg := map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{}}
		if r.IntN(2) == 0 {
			msg = map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "no"}}
		}
		return Single(gen.Marshal(msg))
	}},
	{Name: "protocol/cancel-unknown", Doc: "cancels a request id that was never sent", Mutate: func(r *rand.Rand, b Base) Input {
		id := pick(r, []any{"mcpcheck-ghost", int64(r.IntN(1 << 30)), int64(-5)})
		return Single(gen.Cancelled(b.Version, id))
	}},
	{Name: "protocol/cancel-initialize", Doc: "on a fresh instance, sends initialize and at once cancels it, then carries on", FreshIn: []spec.Era{spec.Stateful}, Mutate: func(r *rand.Rand, b Base) Input {
		if b.Version.Era() == spec.Stateless {
			return Single(gen.Cancelled(b.Version, "mcpcheck-init"))
		}
		in := Single(gen.InitializeRequest(b.Version, "mcpcheck-init"), gen.Cancelled(b.Version, "mcpcheck-init"), gen.InitializedNotification())
		in.Fresh = true
		in.Methods = []string{spec.MethodInitialize, spec.MethodCancelled}
		return in
	}},
	{Name: "protocol/progress-token-reuse", Doc: "sends two requests in flight with the same progress token", Mutate: func(r *rand.Rand, b Base) Input {
		token := pick(r, []any{"mcpcheck-token", int64(1)})
		var out [][]byte
		for i := 0; i < 2; i++ {
			req := map[string]any{"jsonrpc": "2.0", "id": "mcpcheck-progress-" + strconv.Itoa(i), "method": spec.MethodToolsList,
				"params": map[string]any{"_meta": gen.WithProgress(b.Version, token)}}
			out = append(out, gen.Marshal(req))
		}
		in := Single(out...)
		in.Methods = []string{spec.MethodToolsList}
		return in
	}},
	{Name: "protocol/unknown-method", Doc: "sends a request for a method no version defines", Mutate: func(r *rand.Rand, b Base) Input {
		m := pick(r, []string{"mcpcheck/unknown", "tools/lists", "TOOLS/LIST", "tools/list/", "rpc.discover", "$/cancelRequest", "", " ping"})
		return Single(gen.Marshal(gen.Request(b.Version, "mcpcheck-unknown", m, nil)))
	}},
	{Name: "protocol/removed-method", Doc: "sends a method that exists in another protocol version but not in this one", Mutate: func(r *rand.Rand, b Base) Input {
		var names []string
		seen := map[string]bool{}
		for _, m := range spec.Methods {
			if _, ok := spec.LookupMethod(b.Version, m.Name); !ok && !seen[m.Name] && m.Direction.Allows(spec.ClientToServer) {
				names = append(names, m.Name)
				seen[m.Name] = true
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			names = []string{"mcpcheck/unknown"}
		}
		name := pick(r, names)
		in := Single(gen.Marshal(gen.Request(b.Version, "mcpcheck-removed", name, nil)))
		in.Methods = []string{name}
		return in
	}},
	{Name: "protocol/duplicate-id", Doc: "sends two requests with the same id back to back", Mutate: func(r *rand.Rand, b Base) Input {
		m := b.Msg.Raw()
		return Single(m, m)
	}},
	{Name: "protocol/wrong-direction", Doc: "sends, as the client, a request or notification only a server may send", Mutate: func(r *rand.Rand, b Base) Input {
		var names []string
		for _, m := range spec.MethodsIn(b.Version) {
			if m.Direction == spec.ServerToClient {
				names = append(names, m.Name)
			}
		}
		name := pick(r, names)
		m, _ := spec.LookupMethod(b.Version, name)
		if m.Kind == spec.NotificationMethod {
			return Single(gen.Marshal(map[string]any{"jsonrpc": "2.0", "method": name, "params": map[string]any{}}))
		}
		return Single(gen.Marshal(gen.Request(b.Version, "mcpcheck-wrong-way", name, nil)))
	}},
	{Name: "protocol/notification-with-id", Doc: "sends a notification method with an id, as if it were a request", Mutate: func(r *rand.Rand, b Base) Input {
		name := spec.MethodCancelled
		if b.Version.Era() == spec.Stateful && r.IntN(2) == 0 {
			name = spec.MethodInitialized
		}
		return Single(gen.Marshal(map[string]any{"jsonrpc": "2.0", "id": "mcpcheck-notif", "method": name, "params": map[string]any{"requestId": "x" + strconv.Itoa(r.IntN(100))}}))
	}},
	{Name: "protocol/request-without-id", Doc: "sends a request method without an id, as if it were a notification", Mutate: func(r *rand.Rand, b Base) Input {
		val := cloneValue(b.Msg.Value).(map[string]any)
		delete(val, "id")
		return Single(gen.Marshal(val))
	}},
	{Name: "protocol/sequence", Doc: "runs a whole generated session (the state machine of Sequence) on a fresh instance", Cost: Costly, Mutate: func(r *rand.Rand, b Base) Input {
		seq, err := gen.Example(gen.Sequences(b.Version, 12), r.Uint64())
		if err != nil {
			return Single(b.Msg.Raw())
		}
		in := Single(seq.Lines...)
		in.Fresh = true
		in.Methods = append([]string(nil), seq.Methods...)
		return in
	}},
	{Name: "protocol/tool-call", Doc: "calls one of the target's tools with arguments generated from its inputSchema (or a made-up tool)", Mutate: func(r *rand.Rand, b Base) Input {
		name, args := "mcpcheck-no-such-tool", map[string]any{}
		if len(b.Tools) > 0 {
			tool := pick(r, b.Tools)
			name = tool.Name
			if g, err := gen.ToolArguments(tool.InputSchema); err == nil {
				if a, err := gen.Example(g, r.Uint64()); err == nil {
					args = a
				}
			}
			// Random values, but never a yes to a confirmation.
			toolpolicy.Defuse(args)
		}
		req := gen.Request(b.Version, "mcpcheck-call", spec.MethodToolsCall, map[string]any{"name": name, "arguments": args})
		in := Single(gen.Marshal(req))
		in.Methods = []string{spec.MethodToolsCall}
		return in
	}},
}
