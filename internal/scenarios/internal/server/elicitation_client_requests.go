package server

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Elicitation requests, judged from the server side (2024-11-05 ..
// 2025-11-25): only the modes the client declared, the shape of the
// requests, the ids of completion notifications. They need a fixture that
// makes the server ask (clientTrigger, in sampling_client_requests.go).

var _ = Register(
	Def{
		ID: "elicitation/declared-modes", Area: "elicitation", Eras: Stateful, Labels: clientFixtureLabels("ref_elicit_url", "test_elicitation"),
		Title:        "a server sends only elicitation modes the client declared (no url mode to a form-only client)",
		Requirements: []string{"elicitation.capability.server-respects-modes"},
		Proofs:       []Proof{{Fault: "elicit-url-undeclared", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			if !t.RequireFixture(hasAny(t, "ref_elicit_url", "test_elicitation"), fixtureWhy(t, "the target offers no elicitation trigger (ref_elicit_url, test_elicitation)", "ref_elicit_url", "test_elicitation")) {
				return
			}
			caps := session.DefaultCapabilities(t.Version())
			caps.Elicitation = &mcp.ElicitationCapability{Form: mcp.Present()}
			s, ok := clientSession(t, caps, false)
			if !ok {
				return
			}
			reqs, _ := clientRun(t, s, "ref_elicit_url", "test_elicitation")
			for _, r := range reqs {
				if r.Frame.Msg.Method != spec.MethodElicitationCreate {
					continue
				}
				if mode, _ := clientStr(clientParams(r), "mode"); mode == "url" {
					t.Fail("only form-mode elicitation to a client that declared elicitation.form only", r.Frame.Describe())
					return
				}
			}
			t.Saw("%d server requests, no url-mode elicitation", len(reqs))
			t.Pass()
		},
	},
	Def{
		ID: "elicitation/request-shape", Area: "elicitation", Eras: Stateful, Labels: clientFixtureLabels("test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "ref_elicit_url"),
		Title:        "elicitation/create carries a message and a mode; form mode a requestedSchema object, url mode a valid url and an elicitationId",
		Requirements: []string{"elicitation.request.mode-and-message", "elicitation.form.mode-and-schema", "elicitation.url.required-fields", "elicitation.url.valid-url"},
		Proofs:       []Proof{{Fault: "elicit-url-invalid", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			names := []string{"test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "ref_elicit_url"}
			if !t.RequireFixture(hasAny(t, names...), fixtureWhy(t, "the target offers no elicitation trigger ("+strings.Join(names, ", ")+")", names...)) {
				return
			}
			c := t.Session()
			t.transportGetStream(c)
			reqs, _ := clientRun(t, c.Stateful, names...)
			n := 0
			for _, r := range reqs {
				if r.Frame.Msg.Method != spec.MethodElicitationCreate {
					continue
				}
				n++
				m := clientParams(r)
				where := r.Frame.Describe()
				if msg, ok := clientStr(m, "message"); !ok || msg == "" {
					t.Violation("elicitation.request.mode-and-message", "every elicitation/create carries a string message", where)
				}
				mode, hasMode := clientStr(m, "mode")
				switch {
				case !hasMode && len(m["mode"]) > 0:
					t.Violation("elicitation.request.mode-and-message", "mode is the string form or url", where)
				case !hasMode || mode == "form":
					if rs := m["requestedSchema"]; len(rs) == 0 || rs[0] != '{' {
						t.Violation("elicitation.form.mode-and-schema", "a form-mode elicitation includes a requestedSchema object", where)
					}
				case mode == "url":
					u, okU := clientStr(m, "url")
					if eid, ok := clientStr(m, "elicitationId"); !ok || eid == "" || !okU {
						t.Violation("elicitation.url.required-fields", "a url-mode elicitation has message, url and a string elicitationId", where)
					}
					if p, err := url.Parse(u); okU && (err != nil || p.Scheme == "" || p.Host == "") {
						t.Violation("elicitation.url.valid-url", "the url of a url-mode elicitation parses as a valid URL", fmt.Sprintf("url %q", u))
					}
				default:
					t.Violation("elicitation.request.mode-and-message", "mode is form or url", fmt.Sprintf("mode %q: %s", mode, where))
				}
			}
			if n == 0 {
				if t.Open() {
					t.Untestable("the triggers sent no elicitation/create")
				}
				return
			}
			if t.Open() {
				t.Saw("%d elicitation requests, well formed", n)
				t.Pass()
			}
		},
	},
	Def{
		ID: "elicitation/complete-id", Area: "elicitation", Passive: true, Eras: Stateful,
		Title:        "notifications/elicitation/complete names the elicitationId of a url-mode elicitation sent on the same connection",
		Requirements: []string{"elicitation.complete.carries-elicitation-id", "elicitation.complete.only-to-initiating-client"},
		Proofs:       []Proof{{Fault: "elicit-complete-wrong-id", Version: spec.V20251125, Also: []string{"elicitation/request-shape"}, Want: reports.Fail}},
		Body: func(t *T) {
			obs, _ := t.Observed()
			ids := map[int]map[string]bool{}
			n := 0
			for _, o := range obs {
				if o.Kind != wire.KindMessage {
					continue
				}
				if e := o.Msg.Error; e != nil && e.Code == -32042 {
					var d struct {
						Elicitations []struct {
							ElicitationID string `json:"elicitationId"`
						} `json:"elicitations"`
					}
					_ = json.Unmarshal(e.Data, &d)
					for _, x := range d.Elicitations {
						if ids[o.Conn] == nil {
							ids[o.Conn] = map[string]bool{}
						}
						ids[o.Conn][x.ElicitationID] = true
					}
				}
				switch o.Msg.Method {
				case spec.MethodElicitationCreate:
					var p struct {
						ElicitationID string `json:"elicitationId"`
					}
					_ = json.Unmarshal(o.Msg.Params, &p)
					if p.ElicitationID != "" {
						if ids[o.Conn] == nil {
							ids[o.Conn] = map[string]bool{}
						}
						ids[o.Conn][p.ElicitationID] = true
					}
				case spec.MethodElicitationComplete:
					n++
					var p struct {
						ElicitationID string `json:"elicitationId"`
					}
					_ = json.Unmarshal(o.Msg.Params, &p)
					if !ids[o.Conn][p.ElicitationID] {
						t.Fail("the completion names a url elicitation this connection received", fmt.Sprintf("connection %d: %s", o.Conn, wire.Excerpt(o.Raw, 200)))
						return
					}
				}
			}
			if n == 0 {
				t.NotApplicable("the server sent no notifications/elicitation/complete in this run")
				return
			}
			t.Saw("%d completion notifications, each for an elicitation of its connection", n)
			t.Pass()
		},
	},
)
