package client

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Progress as the client uses it: the tokens it puts on its requests are
// strings or integers, never shared by two of its requests active at once,
// and the progress it reports itself is only for the stage's requests that
// asked for it and are still going. prScenario offers a tool whose calls
// wait for each other (bounded), so a client that asks for progress on
// concurrent calls has two requests active at once.

// prScenario is the server with the progress tool.
const prScenario = "mcpcheck-progress"

// prPairWait bounds how long a call of the progress tool waits for a
// second one to arrive.
const prPairWait = 4 * time.Second

var _ = RegisterScenarios(Scenario{
	Name:  prScenario,
	Title: "a server whose tool progress_pair reports progress for the call's token and answers once a second call is in (or after 4 s), so two concurrent calls overlap",
	Acts:  "call progress_pair twice at the same time, asking for progress on each",
	Stage: func(env Env) stage.Config {
		var mu sync.Mutex
		calls := 0
		both := make(chan struct{})
		tool := server.Tool{
			Def: mcp.Tool{Name: "progress_pair", Description: "Reports progress, then answers once a second call is in (or after 4 s)", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			Run: func(c *server.Call) (any, error) {
				if tok, ok, err := c.Meta().ProgressToken(); ok && err == nil {
					c.Notify(spec.MethodProgress, map[string]any{"progressToken": tok, "progress": 1, "total": 2})
				}
				mu.Lock()
				if calls++; calls == 2 {
					close(both)
				}
				mu.Unlock()
				t := time.NewTimer(prPairWait)
				defer t.Stop()
				select {
				case <-both:
				case <-t.C:
				case <-c.Context().Done():
				}
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text("done")}}, nil
			},
		}
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{tool}}}
	},
})

// prToken returns the progressToken of a message's params._meta.
func prToken(m Msg) (json.RawMessage, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Msg.Params, &p) != nil {
		return nil, false
	}
	raw, ok := p.Meta[mcp.MetaProgressToken]
	return raw, ok
}

// prActive reports whether request req of peer was unanswered at seq.
func prActive(c *Case, req Msg, seq int, answerOf func(Msg) (Msg, bool)) bool {
	if req.Seq >= seq {
		return false
	}
	ans, ok := answerOf(req)
	return !ok || ans.Seq > seq
}

var _ = Register(
	OnlyIf(Def{
		ID: "client/progress/token-type", Area: "progress",
		Title:        "every progressToken the client puts on a request is a string or an integer",
		Requirements: []string{"progress.token.string-or-integer"},
		Proofs:       []Proof{{Fault: "progress-token-float", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, m := range c.Requests("") {
					raw, ok := prToken(m)
					if !ok {
						continue
					}
					n++
					var tok mcp.ProgressToken
					if json.Unmarshal(raw, &tok) != nil {
						bad++
						t.Fail("a progressToken that is a string or an integer", fmt.Sprintf("%s carries progressToken %s (%s)", m.Msg.Method, raw, c.Scenario.Name))
					}
				}
			}
			t.SettleActed(n, bad, "ask for progress on a request", "%d progress tokens, each a string or an integer")
		},
	}, doesAskProgress),
	OnlyIf(Def{
		ID: "client/progress/unique-tokens", Area: "progress",
		Title:        "no two of the client's requests active at the same time carry the same progressToken",
		Requirements: []string{"progress.token.unique-among-active", "progress.token.client-unique-among-active"},
		Proofs:       []Proof{{Fault: "progress-token-reused", Version: spec.V20251125, Want: reports.Fail}, {Fault: "progress-token-reused", Version: spec.V20260728, Transport: Streamable, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				reqs := c.Requests("")
				for i, m := range reqs {
					raw, ok := prToken(m)
					if !ok {
						continue
					}
					n++
					for _, other := range reqs[:i] {
						oraw, ok := prToken(other)
						if !ok || string(oraw) != string(raw) || !prActive(c, other, m.Seq, c.StageAnswer) {
							continue
						}
						bad++
						t.Fail("a progressToken no other active request of the client carries",
							fmt.Sprintf("%s (id %s) carries progressToken %s, which %s (id %s) still active carries too (%s)", m.Msg.Method, m.Msg.ID, raw, other.Msg.Method, other.Msg.ID, c.Scenario.Name))
						break
					}
				}
			}
			t.SettleActed(n, bad, "ask for progress on requests", "%d progress tokens, none shared by active requests")
		},
	}, doesAskProgress),
	Def{
		ID: "client/progress/own-notifications", Area: "progress",
		Title:        "the progress the client reports names a token of a stage request that asked for it and is still unanswered",
		Requirements: []string{"progress.notify.only-active-tokens"},
		Proofs:       []Proof{{Fault: "progress-unknown-token", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				stageReqs := c.StageRequests()
				for _, m := range c.Notifications(spec.MethodProgress) {
					n++
					var p struct {
						ProgressToken json.RawMessage `json:"progressToken"`
					}
					_ = json.Unmarshal(m.Msg.Params, &p)
					found := false
					for _, r := range stageReqs {
						if raw, ok := prToken(r); ok && string(raw) == string(p.ProgressToken) && prActive(c, r, m.Seq, c.ClientAnswer) {
							found = true
							break
						}
					}
					if !found {
						bad++
						t.Fail("progress only for a stage request that gave the token and is still unanswered",
							fmt.Sprintf("notifications/progress with progressToken %s, which no unanswered stage request carries (%s)", p.ProgressToken, c.Scenario.Name))
					}
				}
			}
			t.Settle(n, bad, "the client reported no progress", "%d progress notifications, each for an active stage request")
		},
	},
)
