package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/harness/expect"
	"github.com/mcpcheck/mcpcheck/harness/wire"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
	"github.com/mcpcheck/mcpcheck/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// Lifecycle and version negotiation: the initialize handshake of the
// stateful era (2024-11-05..2025-11-25), the per-request version of the
// stateless era (2026-07-28), server/discover, and capabilities respected.

var stateful = []spec.Era{spec.Stateful}
var stateless = []spec.Era{spec.Stateless}

// unknownVersion is a version no server implements.
const unknownVersion = "1999-01-01"

var _ = Register(
	Def{
		ID: "lifecycle/initialize-result", Area: "lifecycle", Eras: stateful, Unsupported: true,
		Title:        "initialize is answered with protocolVersion, a capabilities object and serverInfo",
		Requirements: []string{"lifecycle.initialize.server-replies-capabilities", "base.layers.support-base-and-lifecycle", "base.response.id-matches-request"},
		Proofs: []Proof{
			{Fault: "init-no-server-info", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "response-ids-wrong", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "response-ids-wrong", Version: spec.V20241105, Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Fresh()
			_, r, _ := c.Stateful.Initialize(t.Ctx, nil)
			if r.WrongID() {
				// Answered, but not with initialize's id: no session can
				// start, and the id rule is what broke.
				t.JudgeAs(r.Observed, "base.response.id-matches-request")
				return
			}
			if !t.JudgeReply(r) {
				return
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(r.Result, &m); err != nil {
				t.Fail("an initialize result object", err.Error())
				return
			}
			var missing []string
			var pv string
			if json.Unmarshal(m["protocolVersion"], &pv) != nil || pv == "" {
				missing = append(missing, "protocolVersion (a string)")
			}
			if len(m["capabilities"]) == 0 || m["capabilities"][0] != '{' {
				missing = append(missing, "capabilities (an object)")
			}
			if !implementationInfo(m["serverInfo"]) {
				missing = append(missing, "serverInfo with name and version strings")
			}
			if len(missing) > 0 {
				t.Violation("lifecycle.initialize.server-replies-capabilities", "the initialize result carries protocolVersion, capabilities and serverInfo", "missing: "+strings.Join(missing, ", "))
			}
		},
	},
	Def{
		ID: "lifecycle/silent-before-initialize", Area: "lifecycle", Eras: stateful,
		Title:        "the server sends nothing before the client's initialize",
		Requirements: []string{"lifecycle.initialize.first-interaction"},
		Proofs: []Proof{
			{Fault: "speak-before-initialize", Version: spec.V20251125, Want: reports.Fail},
			{Fault: "speak-before-initialize", Version: spec.V20241105, Want: reports.Fail},
			{Fault: "speak-before-initialize", Version: spec.V20241105, Transport: "sse", Want: reports.Fail},
		},
		Body: func(t *T) {
			// Only the ordering duty that falls on the server is judged
			// here: it must not open the conversation. How it treats a
			// client that breaks the order (a request before initialize)
			// the specification leaves open, so that is not judged.
			if t.Transport() == "streamable" {
				t.NotApplicable("over streamable HTTP the server can only answer a POST, so it cannot speak first")
				return
			}
			// A ping (the one request a client may send before it
			// initializes) marks the moment the server has started and
			// read its input: whatever it wrote before answering, it wrote
			// before any initialize, however long its start took. A window
			// timed from connecting would see nothing of a server that
			// starts slowly (a busy machine) and speaks late.
			c := t.Fresh()
			s := c.Stateful
			t.Expect("no JSON-RPC message from the server before the client's initialize: none before its answer to a ping sent first (the answer shows it has started and read its input), none within %s after that", t.Quiet())
			id, _, err := s.Request(t.Ctx, spec.MethodPing, nil)
			t.must(err)
			spoke := func(f wire.Frame) bool { return f.Kind == wire.KindMessage && !f.IsResponseTo(id) }
			o := s.Wait(t.Ctx, expect.Never("a message before initialize", spoke), expect.AnyResponse(id))
			switch {
			case o.Status == expect.Matched:
				// It answered the ping and had said nothing before.
			case o.Status == expect.TimedOut:
				// It never answered the ping (the ping rule is judged
				// elsewhere) and said nothing for the whole wait.
			default:
				t.Judge(o)
				return
			}
			t.Judge(t.WaitQuiet(s, "a message before initialize", spoke))
		},
	},
	Def{
		ID: "lifecycle/no-requests-before-initialized", Area: "lifecycle", Eras: stateful,
		Title:        "until notifications/initialized the server sends no requests but ping",
		Requirements: []string{"lifecycle.initialize.server-only-ping-logging-before-initialized"},
		Proofs:       []Proof{{Fault: "request-before-initialized", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateful
			_, r, _ := s.Initialize(t.Ctx, nil)
			if !t.setupReply(r, "initialize") {
				return
			}
			bad := func(f wire.Frame) bool {
				return f.Kind == wire.KindMessage && f.Msg.Shape == jsonrpc.KindRequest && f.Msg.Method != spec.MethodPing
			}
			for _, f := range r.Observed.Others {
				if bad(f) {
					t.Fail("no request but ping before notifications/initialized", f.Describe())
					return
				}
			}
			t.Judge(t.WaitQuiet(s, "no request but ping before notifications/initialized", bad))
		},
	},
	Def{
		ID: "lifecycle/second-initialize", Area: "lifecycle", Eras: stateful,
		Title:        "a second initialize on a live session is answered and the session keeps working",
		Requirements: []string{"lifecycle.errors.handle-negotiation-failures"},
		Proofs:       []Proof{{Fault: "second-initialize-unanswered", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.Stateful
			p := s.InitializeParams()
			id, st, err := s.Request(t.Ctx, spec.MethodInitialize, p)
			t.must(err)
			if !t.Judge(t.answerOn(s, st, append([]expect.Alt{expect.AnyResponse(id)}, t.httpRefusal(st)...)...)) {
				return
			}
			if r := Sentinel(t.Ctx, s); !r.OK() {
				t.Fail("the session still answers ping after a second initialize", r.Describe())
			}
		},
	},
	Def{
		ID: "versioning/echo-supported", Area: "versioning", Eras: stateful, Unsupported: true,
		Title:        "initialize with a version the server implements is answered with exactly that version",
		Requirements: []string{"versioning.initialize.server-echoes-supported-version"},
		Proofs:       []Proof{{Fault: "init-wrong-version", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			v := t.Version()
			nego := t.vr.nego
			if nego == v {
				t.Expect("initialize with %s is answered with %s", v, v)
				t.Saw("answered %s", nego)
				t.Pass()
				return
			}
			claimed := t.claimedVersions()
			if !claimed[string(v)] {
				t.NotApplicable(fmt.Sprintf("the server answered %q to %s and does not claim to implement %s anywhere else (server/discover, -32022 data)", nego, v, v))
				return
			}
			t.Fail(fmt.Sprintf("the server lists %s among its supported versions, so initialize with %s is answered with %s", v, v, v), fmt.Sprintf("initialize with %s was answered with %q", v, nego))
		},
	},
	Def{
		ID: "versioning/unknown-version", Area: "versioning", Eras: stateful, Unsupported: true,
		Title:        "initialize with an unknown version is answered with a version the server implements, its newest",
		Requirements: []string{"versioning.initialize.server-counters-with-supported", "versioning.initialize.server-counters-latest"},
		Proofs:       []Proof{{Fault: "unknown-version-oldest", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			supported := t.statefulSupport()
			if len(supported) == 0 {
				t.NotApplicable("the server speaks no initialize-based version (a modern-only server; see versioning/modern-names-versions)")
				return
			}
			c := t.Fresh()
			p := c.Stateful.InitializeParams()
			p.ProtocolVersion = unknownVersion
			_, r, _ := c.Stateful.Initialize(t.Ctx, &p)
			if !r.OK() {
				t.Violation("versioning.initialize.server-counters-with-supported", "initialize with "+unknownVersion+" is answered with a result naming a version the server implements", r.Describe())
				return
			}
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = r.Decode(&res)
			got := spec.Version(res.ProtocolVersion)
			ok := slices.Contains(supported, got)
			if !ok && t.speaks(got) {
				// The run had not seen it speak the version (its own
				// handshake may have gone unanswered): asked for it, it
				// does.
				ok, supported = true, append(supported, got)
				slices.SortFunc(supported, func(a, b spec.Version) int { return a.Compare(b) })
			}
			if !ok {
				t.Violation("versioning.initialize.server-counters-with-supported", fmt.Sprintf("the counter-offer is a version the server implements (seen: %v)", supported), fmt.Sprintf("it answered %q", res.ProtocolVersion))
				return
			}
			newest := supported[len(supported)-1]
			if got != newest {
				t.Violation("versioning.initialize.server-counters-latest", fmt.Sprintf("the counter-offer is the newest version the server implements (%s)", newest), fmt.Sprintf("it answered %s", got))
				return
			}
			t.Saw("answered %s, the newest version it implements", got)
			t.Pass()
		},
	},
	Def{
		ID: "versioning/unsupported-version-error", Area: "versioning", Eras: stateless,
		Title:        "a request naming an unknown protocol version gets -32022 listing the supported versions",
		Requirements: []string{"versioning.negotiation.unsupported-version-error"},
		Proofs:       []Proof{{Fault: "unsupported-version-no-list", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			id, st := t.discoverWithMeta(s, func(meta mcp.Meta) { meta.SetProtocolVersion("2099-01-01") })
			t.Judge(t.answerOn(s, st, expect.ErrorWhere(id, "data.supported listing the versions it implements", []int64{-32022}, func(e *jsonrpc.ErrorObject) error {
				var d struct {
					Supported []string `json:"supported"`
				}
				if json.Unmarshal(e.Data, &d) != nil || len(d.Supported) == 0 {
					return fmt.Errorf("error.data.supported is missing or empty (data: %s)", wire.Excerpt(e.Data, 200))
				}
				return nil
			})))
		},
	},
	Def{
		ID: "versioning/modern-names-versions", Area: "versioning", Eras: stateless,
		Title:        "a modern-only server that refuses initialize names its supported versions",
		Requirements: []string{"versioning.compat.modern-server-names-versions"},
		Proofs:       []Proof{{Proxy: "modern-only-silent", Good: "modern-only", Version: spec.V20260728, Transport: "streamable", Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			b, err := jsonrpc.NewRequest(jsonrpc.StringID("mcpcheck-legacy-init"), spec.MethodInitialize, mcp.InitializeParams{
				ProtocolVersion: string(spec.V20251125), ClientInfo: mcp.Implementation{Name: "mcpcheck", Version: "1"},
			})
			t.must(err)
			st := t.SendLine(s, b)
			obs := t.answerOn(s, st, expect.AnyResponse(jsonrpc.StringID("mcpcheck-legacy-init")))
			if !obs.OK() {
				t.Judge(obs)
				return
			}
			if obs.Frame.Msg.Error == nil {
				t.NotApplicable("the server answered initialize: it is dual-era, not modern-only")
				return
			}
			e := obs.Frame.Msg.Error
			if strings.Contains(string(e.Data), string(spec.V20260728)) || strings.Contains(e.Message, string(spec.V20260728)) {
				t.Saw("the refusal names %s", spec.V20260728)
				t.Pass()
				return
			}
			t.Fail("the refusal of initialize names the versions the server supports (in data.supported or the message)", obs.Frame.Describe())
		},
	},
	Def{
		ID: "discovery/server-discover", Area: "discovery", Eras: stateless, Unsupported: true,
		Title:        "a 2026-07-28 server implements server/discover",
		Requirements: []string{"discovery.versioning.server-implements-discover", "base.response.id-matches-request"},
		Proofs: []Proof{
			{Fault: "no-server-discover", Version: spec.V20260728, Want: reports.Fail},
			{Fault: "response-ids-wrong", Version: spec.V20260728, Want: reports.Fail},
		},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			d, r, _ := s.Discover(t.Ctx)
			if r.WrongID() {
				t.JudgeAs(r.Observed, "base.response.id-matches-request")
				return
			}
			if r.OK() && d != nil {
				for _, v := range d.SupportedVersions {
					if v == string(spec.V20260728) {
						t.Saw("server/discover lists %v", d.SupportedVersions)
						t.Pass()
						return
					}
				}
			}
			// Does the server speak 2026-07-28 at all? Then discover is owed.
			// Being served is not enough: an older server that does not
			// enforce initialization answers tools/list whatever its _meta
			// says. A 2026-07-28 result always carries resultType, so only
			// a result with resultType shows the newer protocol.
			tl := s.Call(t.Ctx, spec.MethodToolsList, nil)
			if tl.OK() {
				if rt, ok := resultType(tl.Result); ok {
					t.Fail("a server that serves 2026-07-28 requests implements server/discover listing 2026-07-28", "server/discover: "+r.Describe()+"; yet tools/list with 2026-07-28 _meta was served with resultType "+rt)
					return
				}
				t.NotApplicable("the server does not speak 2026-07-28: server/discover: " + r.Describe() + "; tools/list was answered without resultType, as a pre-2026 server that does not enforce initialization would")
				return
			}
			t.NotApplicable("the server does not speak 2026-07-28: " + r.Describe())
		},
	},
	Def{
		ID: "base/meta-required", Area: "base", Eras: stateless,
		Title:        "a 2026-07-28 request without protocolVersion in _meta is refused with -32602",
		Requirements: []string{"base.meta.missing-required-invalid-params"},
		Proofs:       []Proof{{Fault: "meta-version-assumed", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			c := t.Fresh()
			s := c.Stateless
			params := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`)
			h, _ := s.Headers(spec.MethodServerDiscover, json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
			id := jsonrpc.StringID(noMetaProbeID)
			st, err := s.RequestRaw(t.Ctx, id, spec.MethodToolsList, params, h)
			t.must(err)
			if len(t.statefulSupport()) > 0 && t.Stdio() {
				// A dual-era stdio server cannot tell this request from a
				// legacy one sent before initialize, which it may refuse
				// or serve under the legacy rules: nothing is owed.
				obs := t.answerOn(s, st, expect.Error(id), expect.AnyResponse(id))
				if obs.OK() && obs.Alt == 1 && obs.Frame.Msg.Result != nil && mrtrResultType(obs.Frame.Msg.Result) != "" {
					t.Fail("a request without a protocol version is refused with -32602, or (dual-era stdio) served under the legacy rules", "it was served as a 2026-07-28 request (the result carries resultType "+mrtrResultType(obs.Frame.Msg.Result)+"): the server assumed a protocol version the request does not name")
					return
				}
				if obs.OK() && obs.Alt == 1 {
					t.Untestable("the server is dual-era: over stdio it served the request without a protocol version under the legacy rules, which it may; the -32602 rule can only be judged over HTTP or against a modern-only server")
					return
				}
				t.Expect("the server is dual-era: on stdio a request without a protocol version may be taken for a legacy one, so any error is accepted")
				t.Judge(obs)
				return
			}
			t.Judge(t.answerOn(s, st, expect.Error(id, jsonrpc.InvalidParams)))
		},
	},
	Def{
		ID: "lifecycle/capabilities-respected", Area: "lifecycle", Passive: true,
		Title:        "the server uses only what was negotiated with each session: no request for a client capability that session did not declare, no notification for a capability the server did not declare to it",
		Requirements: []string{"lifecycle.operation.respect-negotiated", "lifecycle.operation.respect-negotiated-advisory"},
		Proofs: []Proof{
			{Fault: "tools-list-changed-undeclared", Version: spec.V20251125, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "tools-list-changed-undeclared", Version: spec.V20250618, Also: []string{"base/response-id-echo"}, Want: reports.Fail},
			{Fault: "tools-list-changed-undeclared", Version: spec.V20250326, Also: []string{"base/response-id-echo"}, Want: reports.Warn},
			{Fault: "tools-list-changed-undeclared", Version: spec.V20241105, Transport: "sse", Also: []string{"base/response-id-echo"}, Want: reports.Warn},
			{Fault: "tools-list-changed-undeclared", Version: spec.V20251125, Transport: "streamable", Also: []string{"progress/no-token-no-progress"}, Want: reports.Fail},
			{Fault: "unprompted-client-request", Version: spec.V20251125, Also: []string{"lifecycle/client-capabilities-undeclared"}, Want: reports.Fail},
			{Fault: "unprompted-client-request", Version: spec.V20250618, Also: []string{"lifecycle/client-capabilities-undeclared"}, Want: reports.Fail},
			{Fault: "unprompted-client-request", Version: spec.V20250326, Also: []string{"lifecycle/client-capabilities-undeclared"}, Want: reports.Warn},
			{Fault: "unprompted-client-request", Version: spec.V20241105, Transport: "sse", Also: []string{"lifecycle/client-capabilities-undeclared"}, Want: reports.Warn},
			{Fault: "unprompted-client-request", Version: spec.V20251125, Transport: "streamable", Also: []string{"lifecycle/client-capabilities-undeclared"}, Want: reports.Fail},
		},
		Body: func(t *T) { t.judgeNegotiated() },
	},
)

// statefulSupport lists the initialize-based versions the server speaks,
// oldest first, probing each once.
func (t *T) statefulSupport() []spec.Version {
	var out []spec.Version
	for _, vr := range t.vr.r.allStateful() {
		vr.setup(t.Ctx)
		if vr.err == nil && vr.support {
			out = append(out, vr.v)
		}
	}
	return out
}

// speaks asks the target, on a fresh connection of its own, for the
// initialize-based version v and reports whether it negotiated it: the
// way to verify a counter-offer the run has not seen the server make
// good on.
func (t *T) speaks(v spec.Version) bool {
	if _, err := spec.ParseVersion(string(v)); err != nil || v.Era() != spec.Stateful {
		return false
	}
	c, err := t.vr.r.versionRunFor(v).open(t.Ctx, false)
	if err != nil {
		return false
	}
	defer func() {
		c.Close()
		c.route.drop(t.rec)
	}()
	ok := c.OpenErr == nil && c.Supported()
	t.Saw("asked for %s on a fresh connection, the server %s it", v, map[bool]string{true: "negotiated", false: "did not negotiate"}[ok])
	return ok
}

// claimedVersions are the versions the server says it implements outside
// initialize: server/discover's supportedVersions (asked on a fresh
// connection, once per run).
func (t *T) claimedVersions() map[string]bool {
	r := t.vr.r
	r.claimOnce.Do(func() {
		r.claimed = map[string]bool{}
		vr := r.versionRunFor(spec.V20260728)
		c, err := vr.open(t.Ctx, true)
		if err != nil {
			return
		}
		defer func() {
			c.Close()
			c.route.drop(t.rec)
		}()
		d, _, _ := c.Stateless.Discover(t.Ctx)
		if d != nil {
			for _, v := range d.SupportedVersions {
				r.claimed[v] = true
			}
		}
	})
	return r.claimed
}
