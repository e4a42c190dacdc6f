package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Lifecycle (2024-11-05 through 2025-11-25): initialize first, the
// initialized notification, nothing but ping while initialize is
// unanswered, initialize never batched.

// addNumbers is the official tools_call scenario's tool.
var addNumbers = server.Tool{
	Def: mcp.Tool{Name: "add_numbers", Description: "Adds two numbers", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
	Run: func(c *server.Call) (any, error) {
		var a, b float64
		_ = json.Unmarshal(c.Arguments()["a"], &a)
		_ = json.Unmarshal(c.Arguments()["b"], &b)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(fmt.Sprintf("The sum of %v and %v is %v", a, b, a+b))}}, nil
	},
}

// EchoTool is the one tool of scenarios that need the client to make a
// request and nothing more.
var EchoTool = server.Tool{
	Def: mcp.Tool{Name: "echo", Description: "Echoes its text", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
	Run: func(c *server.Call) (any, error) {
		var s string
		_ = json.Unmarshal(c.Arguments()["text"], &s)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}}, nil
	},
}

var _ = RegisterScenarios(
	Scenario{
		Name: "initialize", Title: "a server with nothing to offer: the client connects and lists tools",
		Acts:  "connect and list the tools",
		Stage: func(Env) stage.Config { return stage.Config{Server: server.Options{NoFixtures: true}} },
	},
	Scenario{
		Name: "tools_call", Title: "a server with one tool, add_numbers: the client lists the tools and calls it",
		Acts: "list the tools and call add_numbers with two numbers",
		Stage: func(Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{addNumbers}}}
		},
	},
)

var stateful = []spec.Era{spec.Stateful}

// lcSlowInitScenario is a server slow to initialize: what a client sends
// while it waits (a ping may go, nothing else; never a cancellation of the
// initialize) is judged as sent before the initialize result.
const lcSlowInitScenario = "mcpcheck-slow-initialize"

// lcSlowInit is how long the stage holds the initialize result back.
const lcSlowInit = 2 * time.Second

var _ = RegisterScenarios(Scenario{
	Name: lcSlowInitScenario, Eras: stateful,
	Title: "a slow server: the stage answers initialize after " + lcSlowInit.String() + " (over HTTP with application/json, so the session id comes with the result), then serves the echo tool",
	Stage: func(Env) stage.Config {
		return stage.Config{
			HTTP: server.HTTPOptions{JSONResponses: true},
			Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: func(c *server.Call) (any, error, bool) {
				if c.Method() == spec.MethodInitialize {
					t := time.NewTimer(lcSlowInit)
					defer t.Stop()
					select {
					case <-t.C:
					case <-c.Context().Done():
					}
				}
				return nil, nil, false
			}},
		}
	},
})

var _ = Register(
	Def{
		ID: "client/lifecycle/initialize-first", Area: "lifecycle", Eras: stateful,
		Title:        "every session opens with the client's initialize request",
		Requirements: []string{"lifecycle.initialize.first-interaction", "lifecycle.initialize.client-sends-initialize", "base.layers.support-base-and-lifecycle"},
		Proofs:       []Proof{{Fault: "skip-initialize", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, s := range c.Sessions() {
					first, probes := firstClientMessage(c, s)
					if first == nil || strings.HasPrefix(c.Session(*first), "refused-") {
						// A POST refused at the HTTP level (401, 403) never
						// reached the protocol: the client sends it again
						// once authorized, where it is judged.
						continue
					}
					n++
					if first.Msg.Method != spec.MethodInitialize {
						bad++
						t.Fail("the client's first message in a session is initialize (a server/discover probe of a dual-era client answered with an error may come before it)",
							fmt.Sprintf("the first message was %s (%s)", first.Describe(), c.Scenario.Name))
					} else if probes > 0 {
						t.Saw("a server/discover probe before initialize, as a dual-era client may send (%s)", c.Scenario.Name)
					}
				}
			}
			t.Settle(n, bad, "the client opened no session", "%d sessions, each opened with initialize")
		},
	},
	Def{
		ID: "client/lifecycle/initialized", Area: "lifecycle", Eras: stateful,
		Title:        "after a successful initialize the client sends notifications/initialized before anything but ping",
		Requirements: []string{"lifecycle.initialized.client-sends-notification"},
		Proofs:       []Proof{{Fault: "no-initialized", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, s := range c.Sessions() {
					after, ok := afterInitializeResult(s)
					if !ok {
						continue
					}
					var next *stage.Event
					for i := range after {
						e := &after[i]
						if e.From != stage.FromClient || e.Msg.Method == spec.MethodPing || e.Msg.Shape.IsResponse() || e.Msg.Method == spec.MethodCancelled {
							continue
						}
						next = e
						break
					}
					if next == nil {
						continue // the client said nothing more: it disconnected
					}
					n++
					if next.Msg.Method != spec.MethodInitialized {
						bad++
						t.Fail("notifications/initialized comes before the client's other requests and notifications",
							fmt.Sprintf("after the initialize result the client sent %s first (%s)", next.Describe(), c.Scenario.Name))
					}
				}
			}
			t.Settle(n, bad, "no session went on after initialize", "%d sessions, each went on with notifications/initialized")
		},
	},
	Def{
		ID: "client/lifecycle/ping-only-before-result", Area: "lifecycle", Eras: stateful,
		Title:        "while its initialize is unanswered the client sends no request but ping",
		Requirements: []string{"lifecycle.initialize.client-only-ping-before-result"},
		Proofs:       []Proof{{Fault: "request-before-initialize-result", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, s := range c.Sessions() {
					init := -1
					for i, e := range s {
						if e.From == stage.FromClient && e.Msg.Method == spec.MethodInitialize && e.Msg.Shape == jsonrpc.KindRequest {
							init = i
							break
						}
					}
					if init < 0 {
						continue
					}
					n++
					for _, e := range s[init+1:] {
						if e.From == stage.FromStage && e.Msg.Shape.IsResponse() && e.Msg.ID == s[init].Msg.ID {
							break
						}
						if e.From == stage.FromClient && e.Msg.Shape == jsonrpc.KindRequest && e.Msg.Method != spec.MethodPing {
							bad++
							t.Fail("nothing but ping while initialize is unanswered", fmt.Sprintf("%s before the initialize result (%s)", e.Describe(), c.Scenario.Name))
							break
						}
					}
				}
			}
			t.Settle(n, bad, "the client sent no initialize", "%d initialize exchanges, nothing else asked before the result")
		},
	},
	Def{
		ID: "client/lifecycle/initialize-not-batched", Area: "lifecycle", Since: spec.V20250326, Until: spec.V20250326,
		Title:        "the client sends initialize on its own, never inside a batch",
		Requirements: []string{"lifecycle.initialize.not-batched"},
		Unprovable:   "the reference client never batches (it implements no batching at all), so no fault switch can send a batched initialize through it; the check judges the wire: a JSON array holding an initialize request",
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, e := range c.Frames() {
					n++
					if e.Kind != 0 && e.Msg.Has(jsonrpc.ReasonBatch) {
						elems, _ := jsonrpc.DecodeBatch(e.Raw)
						for _, m := range elems {
							if m.Method == spec.MethodInitialize {
								bad++
								t.Fail("initialize travels as a message of its own", "a batch holding initialize: "+Excerpt(e)+" ("+c.Scenario.Name+")")
								break
							}
						}
					}
				}
			}
			t.Settle(n, bad, "the client sent nothing", "%d messages, no batched initialize")
		},
	},
)

var _ = Register(Def{
	ID: "client/lifecycle/initialize-params", Area: "lifecycle", Eras: stateful,
	Title:        "every initialize request holds protocolVersion (a string), capabilities (an object) and clientInfo (an object with a name and a version)",
	Requirements: []string{"lifecycle.initialize.client-sends-initialize"},
	Proofs: []Proof{{Fault: "initialize-no-client-info", Version: spec.V20251125, Want: reports.Fail}, {Fault: "initialize-no-client-info", Version: spec.V20241105, Transport: Streamable, Want: reports.Fail},
		{Fault: "initialize-no-protocol-version", Version: spec.V20251125, Want: reports.Fail}, {Fault: "initialize-no-capabilities", Version: spec.V20251125, Transport: Streamable, Want: reports.Fail}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			for _, m := range c.Requests(spec.MethodInitialize) {
				n++
				if why := lcInitializeParams(m.Msg.Params); why != "" {
					bad++
					t.Fail("initialize params with protocolVersion, capabilities and clientInfo {name, version}", fmt.Sprintf("%s: %s (%s)", why, Excerpt(m), c.Scenario.Name))
				}
			}
		}
		t.Settle(n, bad, "the client sent no initialize", "%d initialize requests, each with protocolVersion, capabilities and clientInfo")
	},
})

// lcInitializeParams says what initialize params lack of what every
// initialize must hold ("" when nothing).
func lcInitializeParams(raw json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil || p == nil {
		return "the params are not an object"
	}
	var missing []string
	var v string
	if json.Unmarshal(p["protocolVersion"], &v) != nil {
		missing = append(missing, "protocolVersion (a string)")
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(p["capabilities"], &caps) != nil || caps == nil {
		missing = append(missing, "capabilities (an object)")
	}
	var info map[string]json.RawMessage
	if json.Unmarshal(p["clientInfo"], &info) != nil || info == nil {
		missing = append(missing, "clientInfo (an object)")
	} else {
		var name, version string
		if json.Unmarshal(info["name"], &name) != nil {
			missing = append(missing, "clientInfo.name (a string)")
		}
		if json.Unmarshal(info["version"], &version) != nil {
			missing = append(missing, "clientInfo.version (a string)")
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "it has no " + strings.Join(missing, ", no ")
}

// lcInitializeParamPointers are the schema violations of an initialize
// request that client/lifecycle/initialize-params judges, left out of the
// schema check (one defect, one verdict).
var lcInitializeParamPointers = map[string]bool{
	"/params": true, "/params/protocolVersion": true, "/params/capabilities": true,
	"/params/clientInfo": true, "/params/clientInfo/name": true, "/params/clientInfo/version": true,
}

// firstClientMessage returns the client's first message in a session that
// is not a server/discover probe (see Case.IsDiscoverProbe), and how many
// such probes came before it.
func firstClientMessage(c *Case, s []stage.Event) (*stage.Event, int) {
	probes := 0
	for i := range s {
		e := &s[i]
		if e.From != stage.FromClient {
			continue
		}
		if c.IsDiscoverProbe(*e) {
			probes++
			continue
		}
		return e, probes
	}
	return nil, probes
}

// IsDiscoverProbe reports whether m is a dual-era client's probe in a case
// of an initialize-based version: a server/discover request, sent before
// any initialize of its session, that the stage did not answer with a
// result. 2026-07-28 asks clients that speak both eras to open this way,
// so the probe is judged by the 2026 rules, not by the run's version.
func (c *Case) IsDiscoverProbe(m Msg) bool {
	if m.From != stage.FromClient || m.Msg.Method != spec.MethodServerDiscover || c.Version.Era() != spec.Stateful {
		return false
	}
	if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
		return false
	}
	session := c.Session(m)
	for _, e := range c.Events {
		if e.Seq >= m.Seq {
			break
		}
		if e.From == stage.FromClient && e.IsMessage() && e.Msg.Method == spec.MethodInitialize && c.Session(e) == session {
			return false
		}
	}
	return true
}

// afterInitializeResult returns the events of a session after the stage's
// successful answer to the client's initialize, and whether there was one.
func afterInitializeResult(s []stage.Event) ([]stage.Event, bool) {
	var id jsonrpc.ID
	for i, e := range s {
		switch {
		case id.IsZero() && e.From == stage.FromClient && e.Msg.Method == spec.MethodInitialize && e.Msg.Shape == jsonrpc.KindRequest:
			id = e.Msg.ID
		case !id.IsZero() && e.From == stage.FromStage && e.Msg.ID == id && e.Msg.Shape == jsonrpc.KindResponse:
			return s[i+1:], true
		}
	}
	return nil, false
}

func joinVersions() string {
	var vs []string
	for _, v := range spec.Versions {
		if v.Era() == spec.Stateful {
			vs = append(vs, string(v))
		}
	}
	return strings.Join(vs, ", ")
}

// lcFeatureOf maps a client request method to the server capability it
// needs ("" for methods every server takes).
func lcFeatureOf(method string) string {
	switch {
	case strings.HasPrefix(method, "prompts/"):
		return "prompts"
	case strings.HasPrefix(method, "resources/"):
		return "resources"
	case strings.HasPrefix(method, "tools/"):
		return "tools"
	case method == spec.MethodCompletionComplete:
		return "completions"
	case method == spec.MethodLoggingSetLevel:
		return "logging"
	}
	return ""
}

var _ = Register(Def{
	ID: "client/lifecycle/negotiated-features", Area: "lifecycle", Eras: stateful, Scenarios: []string{prNoPromptsScenario},
	Title:        "after initialization the client uses only the features the server declared (mcpcheck-no-prompts declares no prompts)",
	Requirements: []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory"},
	Proofs:       []Proof{{Fault: "undeclared-feature-request", Version: spec.V20251125, Want: reports.Fail}, {Fault: "undeclared-feature-request", Version: spec.V20250326, Want: reports.Warn}},
	Body: func(t *T) {
		n, bad := 0, 0
		for _, c := range t.Cases() {
			m, _, ok := c.Initialize()
			if !ok {
				continue
			}
			ans, ok := c.StageAnswer(m)
			if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
				continue
			}
			var r struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			_ = json.Unmarshal(ans.Msg.Result, &r)
			for _, req := range c.Requests("") {
				f := lcFeatureOf(req.Msg.Method)
				if f == "" || req.Seq < ans.Seq {
					continue
				}
				n++
				if _, declared := r.Capabilities[f]; !declared {
					bad++
					t.Fail("requests only for features the server declared",
						fmt.Sprintf("the server declared no %s, yet the client sent %s (%s)", f, Excerpt(req), c.Scenario.Name))
				}
			}
		}
		t.Settle(n, bad, "the client made no feature request", "%d feature requests, each for a declared capability")
	},
})

// lcUnknownVersionScenario answers initialize with a revision no client
// implements.
const lcUnknownVersionScenario = "mcpcheck-unknown-version"

// lcUnknownVersion is the revision the stage's initialize result names.
const lcUnknownVersion = "2099-01-01"

var _ = RegisterScenarios(Scenario{
	Name: lcUnknownVersionScenario, Eras: stateful,
	Title: "a server whose initialize result names the revision 2099-01-01, which no client implements",
	Stage: func(env Env) stage.Config {
		return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Rewrite: func(o server.Outgoing) [][]byte {
			if o.Method != spec.MethodInitialize {
				return [][]byte{o.Msg}
			}
			var msg, res map[string]json.RawMessage
			if json.Unmarshal(o.Msg, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || res == nil {
				return [][]byte{o.Msg}
			}
			res["protocolVersion"] = json.RawMessage(`"` + lcUnknownVersion + `"`)
			msg["result"], _ = json.Marshal(res)
			b, err := json.Marshal(msg)
			if err != nil {
				return [][]byte{o.Msg}
			}
			return [][]byte{b}
		}}}
	},
})

// lcWentOn returns the client's first message after a session's
// initialize result other than a cancellation, and whether there was one.
func lcWentOn(s []stage.Event) (Msg, bool) {
	rest, _ := afterInitializeResult(s)
	for _, e := range rest {
		if e.From == stage.FromClient && e.IsMessage() && e.Msg.Method != "" && e.Msg.Method != spec.MethodCancelled {
			return e, true
		}
	}
	return Msg{}, false
}

// lcOffer returns the revision a session's initialize offered and the one
// the stage's result named.
func lcOffer(c *Case, s []stage.Event) (offer, countered spec.Version, ok bool) {
	for _, e := range s {
		if e.From != stage.FromClient || e.Msg.Method != spec.MethodInitialize || e.Msg.Shape != jsonrpc.KindRequest {
			continue
		}
		var p, r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(e.Msg.Params, &p)
		if ans, found := c.StageAnswer(e); found && ans.Msg.Shape == jsonrpc.KindResponse {
			_ = json.Unmarshal(ans.Msg.Result, &r)
		}
		return spec.Version(p.ProtocolVersion), spec.Version(r.ProtocolVersion), true
	}
	return "", "", false
}
