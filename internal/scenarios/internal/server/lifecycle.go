package server

import (
	"encoding/json"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Lifecycle: the initialize handshake of the stateful era
// (2024-11-05..2025-11-25) and capabilities respected. Version negotiation
// is in versioning.go, server/discover in discovery.go, the 2026-07-28
// _meta in base_meta.go.

var Stateful = []spec.Era{spec.Stateful}
var Stateless = []spec.Era{spec.Stateless}

// unknownVersion is a version no server implements.
const unknownVersion = "1999-01-01"

var _ = Register(
	Def{
		ID: "lifecycle/initialize-result", Area: "lifecycle", Eras: Stateful, Unsupported: true,
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
		ID: "lifecycle/silent-before-initialize", Area: "lifecycle", Eras: Stateful,
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
			t.Must(err)
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
		ID: "lifecycle/no-requests-before-initialized", Area: "lifecycle", Eras: Stateful,
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
		ID: "lifecycle/second-initialize", Area: "lifecycle", Eras: Stateful,
		Title:        "a second initialize on a live session is answered and the session keeps working",
		Requirements: []string{"lifecycle.errors.handle-negotiation-failures"},
		Proofs:       []Proof{{Fault: "second-initialize-unanswered", Version: spec.V20251125, Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Session()
			t.Taint()
			s := c.Stateful
			p := s.InitializeParams()
			id, st, err := s.Request(t.Ctx, spec.MethodInitialize, p)
			t.Must(err)
			if !t.Judge(t.AnswerOn(s, st, append([]expect.Alt{expect.AnyResponse(id)}, t.httpRefusal(st)...)...)) {
				return
			}
			if r := Sentinel(t.Ctx, s); !r.OK() {
				t.Fail("the session still answers ping after a second initialize", r.Describe())
			}
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
		Body: func(t *T) { judgeNegotiated(t) },
	},
)

// StatefulSupport lists the initialize-based versions the server speaks,
// oldest first, probing each once.
func (t *T) StatefulSupport() []spec.Version {
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
func speaks(t *T, v spec.Version) bool {
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
func claimedVersions(t *T) map[string]bool {
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
