package scenarios

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Ping (2024-11-05..2025-11-25; removed in 2026-07-28).

// emptyResult accepts a result that is {} (a _meta member is tolerated).
func emptyResult(raw json.RawMessage) error {
	if ok, why := emptyObject(raw); !ok {
		return fmt.Errorf("%s, not an empty object", why)
	}
	return nil
}

var _ = Register(
	Def{
		ID: "ping/empty-result", Area: "ping",
		Title:        "ping is answered promptly with an empty result",
		Requirements: []string{"ping.response.prompt-empty-result"},
		Body: func(t *T) {
			c := t.Session()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.must(err)
			t.Judge(s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()}, expect.Result(id, "an empty object {}", emptyResult)))
		},
	},
	Def{
		ID: "ping/before-initialize", Area: "ping", Eras: stateful, Unsupported: true,
		Title:        "ping before initialize is answered with an empty result (pings are allowed then)",
		Requirements: []string{"ping.response.prompt-empty-result"},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateful
			id, st, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.must(err)
			t.Judge(s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()}, expect.Result(id, "an empty object {}", emptyResult)))
		},
	},
)
