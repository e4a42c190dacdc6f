package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"

	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The stateless era (2026-07-28): the names, stages and judging helpers
// the checks of several areas share (base_stateless.go,
// versioning_stateless.go, transport/http_stateless.go,
// transport/stdio_stateless.go, and base, caching, discovery, extensions,
// inputs, mrtr, sampling and security where they judge 2026-07-28): what
// every client request carries (_meta, and on HTTP the request-metadata
// headers), which message kinds a client may send at all, how it reads
// resultType, how it negotiates the version without a handshake and how it
// opens a stdio connection.
//
// The scenarios are in the sub-package stateless. Most checks judge every
// 2026-07-28 scenario. Those about a reaction (a refused version, results
// without or with an unknown resultType, response headers in unusual
// letter case, another server identity) judge a scenario that provokes
// it, and the comparative ones hold the client to what it did in the
// baseline scenario mcpcheck-stateless-flow, which serves the same single
// tool in the ordinary way.

// Names of the stateless-era scenarios of this file.
const (
	StatelessScenFlow            = "mcpcheck-stateless-flow"
	StatelessScenResultAbsent    = "mcpcheck-result-type-absent"
	StatelessScenResultUnknown   = "mcpcheck-result-type-unknown"
	StatelessScenResultUnnegot   = "mcpcheck-result-type-unnegotiated"
	StatelessScenIdentity        = "mcpcheck-server-identity"
	StatelessScenHeaderCase      = "mcpcheck-http-header-case"
	StatelessScenRequestMetadata = "request-metadata"
	StatelessScenCustomHeaders   = "http-custom-headers"
	StatelessUnknownResultType   = "partial"
	StatelessUnnegotiatedResult  = "task"
	StatelessOtherServerName     = "mcpcheck-other-server"
	slStageServerName            = "mcp-conformance-test-server"
	StatelessEchoTool            = "echo"
)

var (
	StatelessEra   = []spec.Era{spec.Stateless}
	StatelessHTTP  = []wire.Transport{Streamable}
	StatelessStdio = []wire.Transport{Stdio}
)

// StatelessFlowStage serves the echo tool and nothing else: the baseline of the
// comparative checks, and the base of the scenarios compared with it.
func StatelessFlowStage() stage.Config {
	return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}}}
}

// StatelessStripResultType removes resultType from a result message.
func StatelessStripResultType(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return msg
	}
	if _, ok := res["resultType"]; !ok {
		return msg
	}
	delete(res, "resultType")
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// StatelessNoResponses fails every JSON-RPC response the client sent outside
// a session it opened with initialize (2026-07-28 has nothing for a client
// to answer), batched ones included.
func StatelessNoResponses(t *T) {
	n, bad := 0, 0
	for _, c := range t.Cases() {
		legacy, ep := StatelessLegacy(c), StatelessEndpoint(c)
		for _, e := range c.Frames() {
			if e.Kind != wire.KindMessage || legacy(e) || e.HTTP != nil && StatelessPath(e) != ep {
				continue
			}
			n++
			elems := []jsonrpc.Message{e.Msg}
			if e.Msg.Has(jsonrpc.ReasonBatch) {
				elems, _ = jsonrpc.DecodeBatch(e.Raw)
			}
			for _, m := range elems {
				if m.Shape.IsResponse() {
					bad++
					t.Fail("only requests and notifications from the client; in 2026-07-28 the server asks nothing the client could answer",
						fmt.Sprintf("a response: %s (%s)", wire.Excerpt(m.Raw, 200), Where(c, e)))
					break
				}
			}
		}
	}
	t.Settle(n, bad, "the client sent no 2026-07-28 message", "%d messages, none a response")
}

// StatelessProbeFirst holds the first request of a launch's stdio connections to
// the probe: server/discover naming a 2026-07-28-era version. The probe
// is of the server (the command): a client that probed it on one
// connection and then starts it again (after ending the first process, or
// to fall back to initialize as the probe's outcome says) has probed that
// server, so a later connection of the same launch is not held to open
// with server/discover again.
func StatelessProbeFirst(t *T) {
	n, bad, later := 0, 0, 0
	for _, c := range t.Cases() {
		probed := false
		for _, s := range c.Sessions() {
			var first *Msg
			for i := range s {
				if s[i].From == stage.FromClient && s[i].Msg.Shape == jsonrpc.KindRequest {
					first = &s[i]
					break
				}
			}
			if first == nil {
				continue
			}
			if probed {
				later++
				continue
			}
			n++
			v, _ := MetaVersion(*first)
			switch {
			case first.Msg.Method != spec.MethodServerDiscover:
				bad++
				t.Fail("the first request on a stdio connection is server/discover", fmt.Sprintf("the first request was %s (%s)", first.Msg.Method, Where(c, *first)))
			case spec.Version(v).Era() != spec.Stateless:
				bad++
				probed = true
				t.Fail("the server/discover probe names the client's preferred 2026-07-28-era version in _meta", fmt.Sprintf("it named %q (%s)", v, Where(c, *first)))
			default:
				probed = true
			}
		}
	}
	if later > 0 {
		t.Saw("%d later stdio connections of launches that had probed the server already, not held to probe again", later)
	}
	t.Settle(n, bad, "the client made no request on stdio", "%d stdio connections, each opened with a server/discover probe")
}

// slModernRequest adapts a judgement of one 2026-07-28 request for
// EachMessage: requests in sessions the client opened with initialize (a
// dual-era fallback) are not counted.
func slModernRequest(judge func(c *Case, m Msg) string) func(c *Case, m Msg) (bool, string) {
	legacy := map[*Case]func(stage.Event) bool{}
	return func(c *Case, m Msg) (bool, string) {
		if legacy[c] == nil {
			legacy[c] = StatelessLegacy(c)
		}
		if m.Msg.Shape != jsonrpc.KindRequest || m.Msg.Has(jsonrpc.ReasonBatch) || legacy[c](m) {
			return false, ""
		}
		return true, judge(c, m)
	}
}

// StatelessLegacy returns a test for the events of c that belong to a legacy
// session: the client's initialize requests (always an initialize-based
// message), and, from an initialize the stage answered with a result on,
// everything in that session (Case.Session) — a dual-era client that fell
// back, whose messages there follow the version it negotiated.
func StatelessLegacy(c *Case) func(e stage.Event) bool {
	start := map[string]int{}
	for _, m := range c.Requests(spec.MethodInitialize) {
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			if _, seen := start[c.Session(m)]; !seen {
				start[c.Session(m)] = m.Seq
			}
		}
	}
	return func(e stage.Event) bool {
		if e.IsMessage() && e.From == stage.FromClient && e.Msg.Method == spec.MethodInitialize {
			return true
		}
		if len(start) == 0 {
			return false
		}
		seq, ok := start[c.Session(e)]
		return ok && e.Seq >= seq
	}
}

// LegacyVersions returns, for the events of a case, the initialize-based
// version they follow when they belong to a legacy session (see StatelessLegacy):
// the protocolVersion of the stage's initialize result in their session,
// or, for an initialize request without such a result, the version it
// offered (2025-11-25 when that is no initialize-based one). A dual-era
// client falls back to such a session in a 2026-07-28 case; checks that
// judge messages by the run's version (client/base/jsonrpc) should judge
// these by the version this returns. It reads the case once; the function
// it returns is cheap.
func (c *Case) LegacyVersions() func(e stage.Event) (spec.Version, bool) {
	legacy := StatelessLegacy(c)
	negotiated := map[string]spec.Version{}
	for _, m := range c.Requests(spec.MethodInitialize) {
		ans, ok := c.StageAnswer(m)
		if !ok || ans.Msg.Shape != jsonrpc.KindResponse {
			continue
		}
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(ans.Msg.Result, &r)
		v := spec.Version(r.ProtocolVersion)
		if _, seen := negotiated[c.Session(m)]; !seen && v.Known() && v.Era() == spec.Stateful {
			negotiated[c.Session(m)] = v
		}
	}
	return func(e stage.Event) (spec.Version, bool) {
		if !legacy(e) {
			return "", false
		}
		if v, ok := negotiated[c.Session(e)]; ok {
			return v, true
		}
		var p mcp.InitializeParams
		_ = json.Unmarshal(e.Msg.Params, &p)
		if v := spec.Version(p.ProtocolVersion); v.Known() && v.Era() == spec.Stateful {
			return v, true
		}
		return spec.V20251125, true
	}
}

// StatelessEndpoint is the path of the MCP endpoint in a case: where the client
// POSTed its first JSON-RPC request ("" when it POSTed none). POSTs
// elsewhere (an authorization server's endpoints) are not MCP messages.
func StatelessEndpoint(c *Case) string {
	for _, e := range c.HTTPRequests() {
		if e.HTTP.Method == http.MethodPost && e.Kind == wire.KindMessage && e.Msg.Shape == jsonrpc.KindRequest {
			return StatelessPath(e)
		}
	}
	return ""
}

// StatelessPath is the path of an HTTP request event's URL.
func StatelessPath(e stage.Event) string {
	if u, err := url.Parse(e.HTTP.URL); err == nil {
		return u.Path
	}
	return e.HTTP.URL
}

// slConnections returns the client's messages grouped by stdio
// connection, or over HTTP as one group (one origin), outside legacy
// sessions.
func slConnections(c *Case) [][]Msg {
	legacy := StatelessLegacy(c)
	idx := map[string]int{}
	var out [][]Msg
	for _, m := range c.Client() {
		s := c.Session(m)
		if legacy(m) {
			continue
		}
		key := "http"
		if m.HTTP == nil {
			key = s
		}
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], m)
	}
	return out
}

// StatelessParams returns the members of a message's params object.
func StatelessParams(m Msg) map[string]json.RawMessage {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Msg.Params, &p)
	return p
}

// StatelessTarget returns what a tools/call or prompts/get names (params.name),
// or what a resources/read reads (params.uri); "" for other requests.
func StatelessTarget(m Msg) string {
	s, _ := StatelessNameTarget(m)
	return s
}

// StatelessNameTarget returns the body value Mcp-Name mirrors, and whether the
// request's method has one.
func StatelessNameTarget(m Msg) (string, bool) {
	var key string
	switch m.Msg.Method {
	case spec.MethodToolsCall, spec.MethodPromptsGet:
		key = "name"
	case spec.MethodResourcesRead:
		key = "uri"
	default:
		return "", false
	}
	var s string
	_ = json.Unmarshal(StatelessParams(m)[key], &s)
	return s, true
}

// slRequestVersion is the protocol version a request names: _meta, the
// offered version of an initialize, or over HTTP the MCP-Protocol-Version
// header when neither names one.
func slRequestVersion(m Msg) string {
	if v, ok := MetaVersion(m); ok {
		return v
	}
	if m.Msg.Method == spec.MethodInitialize {
		// A fallback to the initialize handshake offers its version there.
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Msg.Params, &p)
		return p.ProtocolVersion
	}
	if m.HTTP != nil {
		return m.HTTP.Header.Get("Mcp-Protocol-Version")
	}
	return ""
}

// slHasMRTRFields reports whether a request carries inputResponses or
// requestState.
func slHasMRTRFields(m Msg) bool {
	p := StatelessParams(m)
	_, a := p["inputResponses"]
	_, b := p["requestState"]
	return a || b
}

// slToolCalls returns the client's tools/call requests of the tool name.
func slToolCalls(c *Case, name string) []Msg {
	var out []Msg
	for _, m := range c.Requests(spec.MethodToolsCall) {
		if StatelessTarget(m) == name {
			out = append(out, m)
		}
	}
	return out
}

// slCalled reports whether the client called the tool name.
func slCalled(c *Case, name string) bool { return len(slToolCalls(c, name)) > 0 }

// StatelessUntestableIn ends a check that judges every scenario untestable,
// giving the reason of the one scenario that provokes what it needs (the
// others do not, so their reasons would only be noise).
func StatelessUntestableIn(t *T, scenario, needs string) {
	for _, c := range t.Cases() {
		if c.Scenario.Name == scenario {
			t.Untestable(c.UntestableWhy(needs))
			return
		}
	}
	t.NeedAction(false, needs)
}

// StatelessCasesByName maps the check's cases by scenario name.
func StatelessCasesByName(t *T) map[string]*Case {
	out := map[string]*Case{}
	for _, c := range t.Cases() {
		out[c.Scenario.Name] = c
	}
	return out
}

// StatelessCompareWithFlow tells whether the client called the echo tool in c as it
// did in the baseline flow; why is set when the baseline shows no call
// (or did not run), so there is nothing to compare with, and when c did
// not run its course while the baseline did: a launch that never
// connected, or one stopped at the case's time limit while the baseline
// ended by itself, differs for another reason than the scenario's (a
// host starting slowly under load).
func StatelessCompareWithFlow(base, c *Case) (ok bool, why string) {
	switch {
	case base == nil:
		return false, "the baseline scenario " + StatelessScenFlow + " did not run"
	case !slCalled(base, StatelessEchoTool):
		return false, base.UntestableWhy("call the tool " + StatelessEchoTool + " in the baseline, so there is nothing to compare with")
	case slCalled(c, StatelessEchoTool):
		return true, ""
	case !c.Traffic():
		return false, "nothing to compare with the baseline: " + c.UntestableWhy("")
	case c.TimedOut && !base.TimedOut:
		return false, fmt.Sprintf("nothing to compare with the baseline: in %s the client was stopped at the case's time limit while in %s it %s", c.Scenario.Name, base.Scenario.Name, base.Exit)
	}
	return false, ""
}

// slAnsweredResultType reports whether the stage answered a request of
// method with a result whose resultType is rt.
func slAnsweredResultType(c *Case, method, rt string) bool {
	for _, m := range c.Requests(method) {
		if ans, ok := c.StageAnswer(m); ok && ans.Msg.Shape == jsonrpc.KindResponse {
			if got, err := mcp.ResultTypeOf(ans.Msg.Result); err == nil && string(got) == rt {
				return true
			}
		}
	}
	return false
}

// slRequestSummary lists the client's requests other than server/discover
// as "method target", sorted: what it asked, whatever the order.
func slRequestSummary(c *Case) []string {
	var out []string
	for _, m := range c.Requests("") {
		if m.Msg.Method == spec.MethodServerDiscover {
			continue
		}
		s := m.Msg.Method
		if tg := StatelessTarget(m); tg != "" {
			s += " " + tg
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func slIsString(raw json.RawMessage) bool {
	var s string
	return raw != nil && json.Unmarshal(raw, &s) == nil
}

func slIsObject(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	return raw != nil && json.Unmarshal(raw, &o) == nil && o != nil
}

func slDescribeRaw(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return wire.Excerpt(raw, 80)
}
