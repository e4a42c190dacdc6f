package server

import (
	"bytes"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestEditMemberKeepsBytes: the rewriters' edits change the member they
// name and leave every other byte as it was, member order included.
func TestEditMemberKeepsBytes(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":"a\u003cb","result":{"z":1,"tools":[{"name":"x","inputSchema":{"type":"object"}},{"name":"y","n":1.50}],"a":"caf\u00e9"}}`)
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"unchanged", editMember(msg, []string{"result", "missing", "deeper"}, func(v []byte) []byte { return []byte("1") }), string(msg)},
		{"replace", setMember(msg, []string{"result", "z"}, []byte(`2`)),
			`{"jsonrpc":"2.0","id":"a\u003cb","result":{"z":2,"tools":[{"name":"x","inputSchema":{"type":"object"}},{"name":"y","n":1.50}],"a":"caf\u00e9"}}`},
		{"remove", setMember(msg, []string{"result", "z"}, nil),
			`{"jsonrpc":"2.0","id":"a\u003cb","result":{"tools":[{"name":"x","inputSchema":{"type":"object"}},{"name":"y","n":1.50}],"a":"caf\u00e9"}}`},
		{"add", setMember(msg, []string{"result", "b"}, []byte(`true`)),
			`{"jsonrpc":"2.0","id":"a\u003cb","result":{"z":1,"tools":[{"name":"x","inputSchema":{"type":"object"}},{"name":"y","n":1.50}],"a":"caf\u00e9","b":true}}`},
		{"each element", editMember(msg, []string{"result", "tools"}, eachElement(func(e []byte) []byte {
			if n, _ := stringMember(e, "name"); n == "y" {
				return setMember(e, []string{"n"}, nil)
			}
			return e
		})), `{"jsonrpc":"2.0","id":"a\u003cb","result":{"z":1,"tools":[{"name":"x","inputSchema":{"type":"object"}},{"name":"y"}],"a":"caf\u00e9"}}`},
	}
	for _, c := range cases {
		if string(c.got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
}

// TestFaultRewritersBeforeRewrite: the rewrite faults act at the seam,
// before Options.Rewrite, which sees what they wrote.
func TestFaultRewritersBeforeRewrite(t *testing.T) {
	var mu sync.Mutex
	var seen [][]byte
	s := newTestServer(t, Options{
		Faults: []string{FaultPingNonEmpty, FaultRequestBeforeInitialized},
		Rewrite: func(o Outgoing) [][]byte {
			mu.Lock()
			seen = append(seen, o.Msg)
			mu.Unlock()
			if o.Method == spec.MethodPing {
				return [][]byte{bytes.Replace(o.Msg, []byte(`"pong":true`), []byte(`"pong":"rewritten"`), 1)}
			}
			return [][]byte{o.Msg}
		},
	})
	c := startStdio(t, s)
	c.initialize(spec.V20251125, nil)
	if m := c.next(); m.Method != spec.MethodRootsList {
		t.Fatalf("after the initialize response came %s, want the early roots/list request", m.raw)
	}
	res, _ := c.call(spec.MethodPing, nil)
	if string(res) != `{"pong":"rewritten"}` {
		t.Errorf("ping result = %s, want the fault's result as Options.Rewrite changed it", res)
	}
	mu.Lock()
	defer mu.Unlock()
	roots := false
	for _, b := range seen {
		roots = roots || bytes.Contains(b, []byte(`"method":"roots/list"`))
	}
	if !roots {
		t.Errorf("Options.Rewrite did not see the request the fault added: %q", seen)
	}
}
