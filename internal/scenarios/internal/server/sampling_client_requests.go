package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Server-to-client requests, judged from the server side (2024-11-05 ..
// 2025-11-25): the sampling tool loop keeps tool_use / tool_result balance
// and never mixes tool results with other content; sampling with tools,
// the shape of sampling requests (elicitation in
// elicitation_client_requests.go). They need a fixture that makes the server ask
// (the official test_sampling / test_elicitation* or mcpcheck's ref_*),
// and are untestable without one.

// clientTrigger is a fixture tool that makes the server send a request to
// the client, with the arguments it needs.
type clientTrigger struct {
	tool string
	args string
}

var clientTriggers = []clientTrigger{
	{"test_sampling", `{"prompt":"mcpcheck"}`},
	{"ref_sampling_tools", `{}`},
	{"test_elicitation", `{"message":"mcpcheck"}`},
	{"test_elicitation_sep1034_defaults", `{}`},
	{"test_elicitation_sep1330_enums", `{}`},
	{"ref_elicit_url", `{}`},
	{"ref_list_roots", `{}`},
}

// clientFixtureLabels labels the checks with the trigger fixtures.
func clientFixtureLabels(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, FeatureFixture(n))
	}
	return out
}

// clientSession opens a stateful session on a new connection whose client
// declares caps (and samples with tools when useTools).
func clientSession(t *T, caps mcp.ClientCapabilities, useTools bool) (*session.Stateful, bool) {
	c := t.Fresh()
	cfg := c.Stateful.Config()
	cfg.Capabilities = &caps
	cfg.Sampling.UseTools = useTools
	c.Stateful.Detach()
	s := session.NewStateful(c.Conn, cfg)
	if _, err := s.Open(t.Ctx); err != nil {
		t.Error(fmt.Errorf("the handshake with client capabilities %s failed: %v", clientCapsText(caps), err))
		return nil, false
	}
	t.transportGetStream(c)
	return s, true
}

func clientCapsText(caps mcp.ClientCapabilities) string {
	b, _ := json.Marshal(caps)
	return string(b)
}

// clientRun calls every available trigger among names on s and returns the
// server requests it received meanwhile; ran counts the triggers called.
func clientRun(t *T, s *session.Stateful, names ...string) (reqs []session.ServerRequest, ran []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	before := len(s.ServerRequests())
	var frames []wire.Frame
	for _, tr := range clientTriggers {
		if !want[tr.tool] {
			continue
		}
		if _, ok := t.Tool(tr.tool); !ok {
			continue
		}
		ran = append(ran, tr.tool)
		r := featuresCallTracked(t, s, tr.tool, json.RawMessage(tr.args))
		if !r.OK() && r.Error == nil {
			t.Taint() // an answer may still come
		}
		frames = append(frames, featuresFrames(r)...)
		t.Saw("%s: %s", tr.tool, r.Describe())
	}
	all := s.ServerRequests()
	if before < len(all) {
		reqs = all[before:]
	}
	clientAwaitCompletions(t, s, reqs, frames)
	return reqs, ran
}

// clientAwaitCompletions gives the completion notifications of the
// url-mode elicitations among reqs that did not come with the calls
// (frames) a quiet window to arrive: over HTTP they travel on the GET
// stream and may trail the response, and elicitation/complete-id judges
// them once the session may already be closed.
func clientAwaitCompletions(t *T, s *session.Stateful, reqs []session.ServerRequest, frames []wire.Frame) {
	pending := map[string]bool{}
	for _, r := range reqs {
		m := clientParams(r)
		if mode, _ := clientStr(m, "mode"); r.Frame.Msg.Method != spec.MethodElicitationCreate || mode != "url" {
			continue
		}
		if id, ok := clientStr(m, "elicitationId"); ok && id != "" {
			pending[id] = true
		}
	}
	done := func(fs []wire.Frame) {
		for _, f := range fs {
			if f.Kind != wire.KindMessage || f.Msg.Method != spec.MethodElicitationComplete {
				continue
			}
			var p struct {
				ElicitationID string `json:"elicitationId"`
			}
			_ = json.Unmarshal(f.Msg.Params, &p)
			delete(pending, p.ElicitationID)
		}
	}
	done(frames)
	for len(pending) > 0 {
		obs := s.WaitFor(t.Ctx, expect.Options{Timeout: t.Quiet()}, expect.Notification(spec.MethodElicitationComplete, nil),
			expect.Silence("no more elicitation completions"))
		done(obs.Others)
		if !obs.OK() || obs.Frame.Kind == 0 {
			return
		}
		n := len(pending)
		done([]wire.Frame{obs.Frame})
		if len(pending) == n {
			return // a completion of no pending elicitation: judged by elicitation/complete-id
		}
	}
}

func clientParams(r session.ServerRequest) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r.Frame.Msg.Params, &m)
	return m
}

func clientStr(m map[string]json.RawMessage, k string) (string, bool) {
	var s string
	raw, ok := m[k]
	if !ok {
		return "", false
	}
	return s, json.Unmarshal(raw, &s) == nil
}

var _ = Register(
	Def{
		ID: "sampling/tool-loop-balance", Area: "sampling", Eras: Stateful, Labels: clientFixtureLabels("ref_sampling_tools"),
		Title:        "in a sampling tool loop every assistant tool_use is answered by a user message of tool_result blocks only, one per use",
		Requirements: []string{"sampling.messages.tool-use-answered", "sampling.messages.tool-results-not-mixed"},
		Proofs:       []Proof{{Fault: "sampling-tool-results-mixed", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if _, ok := t.RequireTool("ref_sampling_tools"); !ok {
				return
			}
			caps := session.DefaultCapabilities(t.Version())
			// A non-empty marker: the built-in client takes an empty
			// sampling.tools object ({}) for an undeclared one.
			caps.Sampling = &mcp.SamplingCapability{Tools: mcp.Object{"mcpcheck": json.RawMessage(`true`)}}
			s, ok := clientSession(t, caps, true)
			if !ok {
				return
			}
			reqs, _ := clientRun(t, s, "ref_sampling_tools")
			n := 0
			for _, r := range reqs {
				if r.Frame.Msg.Method == spec.MethodSamplingCreateMessage {
					n++
				}
			}
			for _, f := range s.Findings() {
				if f.Kind != session.FindingToolBalance {
					continue
				}
				req := "sampling.messages.tool-use-answered"
				if strings.Contains(strings.ToLower(f.Detail), "mix") || strings.Contains(strings.ToLower(f.Detail), "only tool_result") {
					req = "sampling.messages.tool-results-not-mixed"
				}
				t.Violation(req, "sampling follow-ups keep tool_use / tool_result balance and send tool results alone", f.String())
			}
			if n < 2 {
				if t.Open() {
					t.Untestable(fmt.Sprintf("the server sent %d sampling request(s); a follow-up after a tool use is needed to judge the balance", n))
				}
				return
			}
			if t.Open() {
				t.Saw("%d sampling requests in the tool loop, balanced", n)
				t.Pass()
			}
		},
	},
	Def{
		ID: "sampling/tools-only-if-declared", Area: "sampling", Eras: Stateful, Labels: clientFixtureLabels("ref_sampling_tools"),
		Title:        "a server sends no sampling/createMessage with tools or toolChoice to a client that did not declare sampling.tools",
		Requirements: []string{"sampling.tools.server-requires-tools-capability"},
		Proofs:       []Proof{{Fault: "sampling-tools-undeclared", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if _, ok := t.RequireTool("ref_sampling_tools"); !ok {
				return
			}
			caps := session.DefaultCapabilities(t.Version())
			caps.Sampling = &mcp.SamplingCapability{}
			s, ok := clientSession(t, caps, false)
			if !ok {
				return
			}
			reqs, _ := clientRun(t, s, "ref_sampling_tools")
			for _, r := range reqs {
				if r.Frame.Msg.Method != spec.MethodSamplingCreateMessage {
					continue
				}
				m := clientParams(r)
				if _, has := m["tools"]; has {
					t.Fail("no tools in sampling requests to a client without sampling.tools", r.Frame.Describe())
					return
				}
				if _, has := m["toolChoice"]; has {
					t.Fail("no toolChoice in sampling requests to a client without sampling.tools", r.Frame.Describe())
					return
				}
			}
			t.Saw("%d server requests, none with tools", len(reqs))
			t.Pass()
		},
	},
)

// hasAny reports whether the target lists one of the tools.
func hasAny(t *T, names ...string) bool {
	_, ok := featuresFirstTool(t, names...)
	return ok
}

var _ = Register(
	Def{
		ID: "sampling/input-request-messages", Area: "sampling", Eras: Stateless, Labels: clientFixtureLabels("test_input_required_result_sampling"),
		Title:        "in 2026-07-28 every sampling message an input_required result asks for has role user or assistant and a content",
		Requirements: []string{"sampling.messages.role-and-content"},
		Proofs:       []Proof{{Fault: "sampling-input-bad-role", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			names := []string{"test_input_required_result_sampling", "test_input_required_result_multiple_inputs"}
			if !t.RequireFixture(hasAny(t, names...), fixtureWhy(t, "the target offers no tool that asks for sampling input ("+strings.Join(names, ", ")+")", names...)) {
				return
			}
			c := t.Session()
			n := 0
			for _, name := range names {
				if _, ok := t.Tool(name); !ok {
					continue
				}
				r := t.CallTool(c.S(), name, json.RawMessage(`{}`), nil)
				for _, rr := range append(append([]session.Reply(nil), r.Rounds...), r) {
					var res struct {
						InputRequests map[string]struct {
							Method string `json:"method"`
							Params struct {
								Messages []map[string]json.RawMessage `json:"messages"`
							} `json:"params"`
						} `json:"inputRequests"`
					}
					_ = json.Unmarshal(rr.Result, &res)
					for key, ir := range res.InputRequests {
						if ir.Method != spec.MethodSamplingCreateMessage {
							continue
						}
						for i, m := range ir.Params.Messages {
							n++
							role, _ := clientStr(m, "role")
							if (role != "user" && role != "assistant") || len(m["content"]) == 0 || string(m["content"]) == "null" {
								t.Fail("sampling messages with role user or assistant and a content", fmt.Sprintf("%s, input %q, message %d: role %q, content %s", name, key, i, role, Clip(m["content"])))
								return
							}
						}
					}
				}
			}
			if n == 0 {
				t.Untestable("no input_required result asked for sampling")
				return
			}
			t.Saw("%d sampling messages, all with role and content", n)
			t.Pass()
		},
	},
)

func init() {
	Exclude(map[string]string{
		"security.sampling.validate-message-content": "judging how a server treats an invalid sampling completion needs the client to answer sampling/createMessage with malformed content; mcpcheck's built-in client answers only with a valid canned result, and what the server then does with bad content is not defined on the wire",
	})
}
