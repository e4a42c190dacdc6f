package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Ping (2024-11-05 through 2025-11-25), and the scenario in which the
// stage asks the client things: while serving the client's first request
// after initialization it sends ping, then roots/list, sampling and
// elicitation requests for what the client declared, and notifications the
// client must take in silence; a last ping shows the client still answers.
// In 2025-03-26 a batch of two pings and one more ping follow.

// AskTimeout bounds how long the stage waits for each answer of the client.
const AskTimeout = 5 * time.Second

// ServerRequestsScenario is the name of the scenario in which the stage asks
// the client things.
const ServerRequestsScenario = "mcpcheck-server-requests"

var _ = RegisterScenarios(Scenario{
	Name: ServerRequestsScenario, Eras: stateful, RidesOn: []string{rideElicitation},
	Title: "while serving the client's first request the stage sends it ping, roots/list, sampling/createMessage and elicitation/create (for what it declared) and notifications it must ignore",
	Stage: func(env Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: OnFirstRequest(provoke)}}
	},
})

// OnFirstRequest makes a Director that runs provoke once, while serving
// the client's first request after initialization (initialize, ping and a
// server/discover probe do not count).
func OnFirstRequest(provoke func(c *server.Call)) server.Director {
	var asked atomic.Bool
	return func(c *server.Call) (any, error, bool) {
		switch c.Method() {
		case spec.MethodInitialize, spec.MethodPing, spec.MethodServerDiscover:
			return nil, nil, false
		}
		if asked.CompareAndSwap(false, true) {
			provoke(c)
		}
		return nil, nil, false
	}
}

// askBounded sends the client a request while serving c and waits for
// the answer at most AskTimeout.
func askBounded(c *server.Call, method string, params any) {
	ctx, cancel := context.WithTimeout(c.Context(), AskTimeout)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Request(method, params)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// provoke sends the client the scenario's requests and notifications, each
// answer awaited at most AskTimeout.
func provoke(c *server.Call) {
	ask := func(method string, params any) { askBounded(c, method, params) }
	caps := c.ClientCapabilities()
	v := c.Version()
	ask(spec.MethodPing, nil)
	// Notifications a client must take in silence: a cancellation of a
	// request it never sent, progress for a token it never gave, and a
	// cancellation of the ping it has just answered (the stage's first
	// request in the session, id 1), as if the two had crossed.
	c.Notify(spec.MethodCancelled, map[string]any{"requestId": "mcpcheck-never-sent", "reason": "mcpcheck: no such request"})
	c.Notify(spec.MethodProgress, map[string]any{"progressToken": "mcpcheck-unknown-token", "progress": 1})
	c.Notify(spec.MethodCancelled, map[string]any{"requestId": 1, "reason": "mcpcheck: this crossed your answer"})
	if caps.Roots != nil {
		ask(spec.MethodRootsList, nil)
	}
	if caps.Sampling != nil {
		ask(spec.MethodSamplingCreateMessage, mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "mcpcheck asks: say hello"})}},
			MaxTokens: 50,
		})
	}
	if caps.Elicitation != nil && v.Compare(spec.V20250618) >= 0 {
		// The name is optional: an accept with empty content is a valid
		// answer, so an SDK that refuses its host's empty answer (go-sdk
		// checks content against the schema) is not taken for a client
		// refusing the missing mode (client/elicitation/form-without-mode).
		ask(spec.MethodElicitationCreate, map[string]any{
			"message":         "mcpcheck asks for your name",
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		})
	}
	if caps.Elicitation != nil && caps.Elicitation.SupportsURL() && v == spec.V20251125 {
		c.Notify(spec.MethodElicitationComplete, map[string]any{"elicitationId": "mcpcheck-unknown-elicitation"})
	}
	ask(spec.MethodPing, nil)
	if v == spec.V20250326 {
		// 2025-03-26 has JSON-RPC batches: two pings in one, sent last,
		// since a client that cannot take a batch often drops the
		// connection on it (go-sdk v1.8.0 does) and would then be asked
		// nothing else. A ping after it gives the answers time to come
		// before the tool's result lets the client go.
		c.SendRaw([]byte(pingBatch))
		ask(spec.MethodPing, nil)
	}
}

// pingBatch is the batch of two pings the stage sends in 2025-03-26.
const pingBatch = `[{"jsonrpc":"2.0","id":"mcpcheck-batch-1","method":"ping"},{"jsonrpc":"2.0","id":"mcpcheck-batch-2","method":"ping"}]`

var _ = Register(
	Def{
		ID: "client/ping/answers", Area: "ping", Eras: stateful, Scenarios: []string{ServerRequestsScenario},
		Title:        "the client answers the stage's ping promptly with an empty result",
		Requirements: []string{"ping.response.prompt-empty-result"},
		Proofs:       []Proof{{Fault: "ping-nonempty-result", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad, asked := 0, 0, 0
			for _, c := range t.Cases() {
				for _, req := range c.StageRequests() {
					if req.Msg.Method != spec.MethodPing {
						continue
					}
					asked++
					ans, ok := c.ClientAnswer(req)
					if !ok && afterUnansweredBatch(c, req.Seq) {
						// The client broke on the 2025-03-26 batch before it:
						// one defect, judged by client/base/batch-answered.
						t.Saw("ping id %s went unanswered after the client left the stage's batch unanswered (%s; client/base/batch-answered judges it)", req.Msg.ID, c.Scenario.Name)
						continue
					}
					n++
					switch {
					case !ok:
						bad++
						t.Fail("an answer to ping within "+AskTimeout.String(), fmt.Sprintf("no answer to ping id %s (%s)", req.Msg.ID, c.Scenario.Name))
					case ans.Msg.Shape != jsonrpc.KindResponse:
						bad++
						t.Fail("a result (an empty object) for ping", ans.Describe()+" ("+c.Scenario.Name+")")
					case ans.Time.Sub(req.Time) > AskTimeout:
						bad++
						t.Fail("an answer to ping within "+AskTimeout.String(), fmt.Sprintf("it came after %v (%s)", ans.Time.Sub(req.Time).Round(time.Millisecond), c.Scenario.Name))
					default:
						if empty, why := isEmptyObject(ans.Msg.Result); !empty {
							bad++
							t.Fail("ping's result is an empty object", why+": "+Excerpt(ans)+" ("+c.Scenario.Name+")")
						}
					}
				}
			}
			if asked == 0 {
				t.NeedAction(false, "make a request other than ping after initialization (the stage pings while serving it)")
				return
			}
			if n == 0 {
				t.Untestable("every ping the stage sent came after the client left its JSON-RPC batch unanswered (client/base/batch-answered judges that)")
				return
			}
			t.Settle(n, bad, "", "%d pings answered with an empty result")
		},
	},
)

// afterUnansweredBatch reports whether the stage sent, before seq, a
// JSON-RPC batch holding a request the client never answered.
func afterUnansweredBatch(c *Case, seq int) bool {
	answered := map[int]map[jsonrpc.ID]bool{}
	for _, a := range c.ClientAnswers() {
		if a.Found {
			if answered[a.Request.Seq] == nil {
				answered[a.Request.Seq] = map[jsonrpc.ID]bool{}
			}
			answered[a.Request.Seq][a.Request.Msg.ID] = true
		}
	}
	for _, e := range c.Events {
		if e.Seq >= seq {
			break
		}
		if e.From != stage.FromStage || !e.IsMessage() || !e.Msg.Has(jsonrpc.ReasonBatch) {
			continue
		}
		for _, el := range BatchElements(e) {
			if el.Msg.Shape == jsonrpc.KindRequest && !answered[e.Seq][el.Msg.ID] {
				return true
			}
		}
	}
	return false
}

// ClientAnswer returns the client's answer to the stage's request req.
func (c *Case) ClientAnswer(req Msg) (Msg, bool) {
	for _, a := range c.ClientAnswers() {
		if a.Found && a.Request.Seq == req.Seq {
			return a.Response, true
		}
	}
	return Msg{}, false
}

// isEmptyObject reports whether raw is {} (a _meta member is tolerated).
func isEmptyObject(raw json.RawMessage) (bool, string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, "the result is not an object"
	}
	for k := range m {
		if k != "_meta" {
			return false, "the result has member " + k
		}
	}
	return true, ""
}

func init() {
	Exclude(map[string]string{
		"ping.schedule.periodic":             "whether a client pings from time to time shows only over long idle periods; no bounded case can tell a client that never pings from one with a long interval",
		"ping.schedule.not-excessive":        "the specification gives no rate; a bounded case cannot judge 'noticeable network load'",
		"ping.timeout.is-connection-failure": "a client's own pings are rare and unprompted; how it then treats the connection is its own business, not a message on the wire",
	})
}
