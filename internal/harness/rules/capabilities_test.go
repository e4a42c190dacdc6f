package rules

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

func TestNeedsCapability(t *testing.T) {
	cases := []struct {
		v      spec.Version
		from   spec.Direction
		raw    string
		paths  []string
		theirs []bool
	}{
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`, []string{"sampling"}, []bool{true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[]}}`, []string{"sampling", "sampling.tools"}, []bool{true, true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":null}}`, []string{"sampling"}, []bool{true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m"}}`, []string{"elicitation", "elicitation.url"}, []bool{true, true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}}`, []string{"elicitation", "elicitation.form"}, []bool{true, true}},
		{spec.V20250618, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}}`, []string{"elicitation"}, []bool{true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, []string{"roots"}, []bool{true}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, []string{"tools.listChanged"}, []bool{false}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`, []string{"resources.subscribe"}, []bool{false}},
		{spec.V20251125, spec.ServerToClient, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, nil},
		{spec.V20251125, spec.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"x"}}`, []string{"resources.subscribe"}, []bool{true}},
		{spec.V20251125, spec.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, []string{"tools"}, []bool{true}},
		{spec.V20251125, spec.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, nil},
	}
	for _, c := range cases {
		need, theirs := NeedsCapability(c.v, c.from, msg(c.raw))
		var paths []string
		for _, n := range need {
			paths = append(paths, n.Path)
		}
		if len(paths) != len(c.paths) || len(theirs) != len(c.theirs) {
			t.Errorf("%s %s: needs %v (%v), want %v (%v)", c.v, c.raw, paths, theirs, c.paths, c.theirs)
			continue
		}
		for i := range paths {
			if paths[i] != c.paths[i] || theirs[i] != c.theirs[i] {
				t.Errorf("%s %s: needs %v (%v), want %v (%v)", c.v, c.raw, paths, theirs, c.paths, c.theirs)
			}
		}
	}
}

func TestDeclared(t *testing.T) {
	caps := func(s string) Capabilities {
		c, ok := DecodeCapabilities(json.RawMessage(`{"capabilities":` + s + `}`))
		if !ok {
			t.Fatalf("%s does not decode", s)
		}
		return c
	}
	cases := []struct {
		caps, path string
		want       bool
	}{
		{`{}`, "sampling", false},
		{`{"sampling":{}}`, "sampling", true},
		{`{"sampling":null}`, "sampling", false},
		{`{"sampling":{}}`, "sampling.tools", false},
		{`{"sampling":{"tools":{}}}`, "sampling.tools", true},
		{`{"elicitation":{}}`, "elicitation.form", true},
		{`{"elicitation":{}}`, "elicitation.url", false},
		{`{"elicitation":{"url":{}}}`, "elicitation.form", false},
		{`{"elicitation":{"url":{},"form":{}}}`, "elicitation.form", true},
		{`{}`, "elicitation.form", false},
		{`{"tools":{"listChanged":false}}`, "tools.listChanged", false},
		{`{"tools":{"listChanged":true}}`, "tools.listChanged", true},
	}
	for _, c := range cases {
		if got := Declared(caps(c.caps), c.path); got != c.want {
			t.Errorf("Declared(%s, %s) = %v, want %v", c.caps, c.path, got, c.want)
		}
	}
	if _, ok := DecodeCapabilities(json.RawMessage(`{"protocolVersion":"x"}`)); ok {
		t.Error("params without capabilities decoded as a capabilities object")
	}
}
