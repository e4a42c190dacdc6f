package gen

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
	"github.com/mcpcheck/mcpcheck/spec"
	"pgregory.net/rapid"
)

// perCheck messages are drawn in each of rapid's checks (100 by default), so
// every version sees thousands of messages.
const perCheck = 30

// TestGeneratedMessagesAreValid draws thousands of messages of every version
// and validates each against our schema: zero violations allowed.
func TestGeneratedMessagesAreValid(t *testing.T) {
	t.Parallel()
	for _, v := range schema.Available() {
		t.Run(string(v), func(t *testing.T) {
			gens, err := NewMessages(v)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			total := 0
			n := perCheck
			if raceEnabled {
				n = perCheck / 3 // the property still holds; the race detector only needs the code paths
			}
			rapid.Check(t, func(rt *rapid.T) {
				for i := 0; i < n; i++ {
					msg := gens.Any().Draw(rt, "message")
					raw := msg.Raw()
					total++
					seen[msg.Method+"/"+msg.Kind.String()] = true
					if vs := schema.Validate(v, msg.From, msg.Method, raw); len(vs) > 0 {
						rt.Fatalf("%s %s %s from %s is not valid against our schema:\n%s\n%v", v, msg.Method, msg.Kind, msg.From, raw, vs)
					}
					if d := jsonrpc.Decode(raw); d.Kind != msg.Kind {
						rt.Fatalf("the codec reads a generated %s as %s (%v): %s", msg.Kind, d.Kind, d.Problems, raw)
					}
				}
			})
			if total < 1000 && !raceEnabled {
				t.Errorf("only %d messages were checked; want thousands", total)
			}
			t.Logf("%s: %d messages validated, %d method/kind shapes", v, total, len(seen))
		})
	}
}

// TestEveryMethodGenerates draws every shape of every method of every version
// (requests, results, notifications, plausible client requests) and validates
// it, so a shape Any rarely picks is still proven.
func TestEveryMethodGenerates(t *testing.T) {
	t.Parallel()
	for _, v := range schema.Available() {
		gens, err := NewMessages(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range gens.Methods() {
			info := info
			t.Run(string(v)+"/"+info.Name, func(t *testing.T) {
				t.Parallel()
				var g []*rapid.Generator[Message]
				if info.Notification != "" {
					g = append(g, gens.Notification(info.Name))
				} else {
					g = append(g, gens.Request(info.Name), gens.Result(info.Name))
				}
				rapid.Check(t, func(rt *rapid.T) {
					for _, gen := range g {
						msg := gen.Draw(rt, "message")
						if info.Direction.Allows(spec.ClientToServer) && msg.Kind != jsonrpc.KindResponse {
							msg = Plausible(msg)
						}
						if vs := schema.Validate(v, msg.From, msg.Method, msg.Raw()); len(vs) > 0 {
							rt.Fatalf("%s %s:\n%s\n%v", info.Name, msg.Kind, msg.Raw(), vs)
						}
					}
				})
			})
		}
	}
}

func TestClientMessagesArePlausible(t *testing.T) {
	for _, v := range schema.Available() {
		gens, _ := NewMessages(v)
		rapid.Check(t, func(rt *rapid.T) {
			msg := gens.ClientRequest().Draw(rt, "request")
			if vs := schema.Validate(v, spec.ClientToServer, msg.Method, msg.Raw()); len(vs) > 0 {
				rt.Fatalf("%s\n%v", msg.Raw(), vs)
			}
			if msg.Method == spec.MethodInitialize {
				if pv := msg.Value["params"].(map[string]any)["protocolVersion"]; pv != string(v) {
					rt.Fatalf("initialize names %v, want %s", pv, v)
				}
			}
		})
	}
}
