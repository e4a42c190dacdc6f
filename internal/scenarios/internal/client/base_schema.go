package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/harness/rules"
	"github.com/mcpcheck/mcpcheck/internal/harness/stage"
	"github.com/mcpcheck/mcpcheck/internal/reference/server"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// JSON Schema as a client meets it (2025-11-25 on): a schema it hands to
// the server is valid in its dialect (the official preservation scenario,
// in which the client passes a tool's inputSchema back), an elicitation
// whose requestedSchema names a dialect the client lacks is refused with an
// error instead of validated under another dialect, and (2026-07-28) a
// tool whose inputSchema refers to a schema nobody can resolve is left
// alone rather than called as if the schema accepted anything.

// The official preservation scenario and its tools.
const (
	scPreserveScenario = "json-schema-2020-12-preservation"
	scFocalTool        = "json_schema_2020_12_tool"
	scEchoTool         = "json_schema_echo"
)

// scDialectScenario asks a form-capable client to fill in a form whose
// schema names an unknown dialect.
const scDialectScenario = "mcpcheck-schema-dialect"

// scUnknownDialect is a $schema no implementation supports.
const scUnknownDialect = "https://mcpcheck.invalid/json-schema/dialect-nobody-supports"

// scRefScenario lists a tool whose inputSchema refers to a schema that
// cannot be resolved, next to a plain one.
const scRefScenario = "mcpcheck-schema-unresolved-ref"

// The tools of scRefScenario.
const (
	scPlainTool      = "mcpcheck_plain"
	scUnresolvedTool = "mcpcheck_unresolved_ref"
)

// scFocalSchema uses what a 2020-12 schema may hold beyond the basics: a
// declared dialect, $defs with an $anchor, a local $ref, composition,
// conditionals and additionalProperties.
const scFocalSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {"$anchor": "postal", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}, "required": ["city"]}
	},
	"properties": {
		"kind": {"anyOf": [{"const": "person"}, {"const": "company"}]},
		"name": {"type": "string", "minLength": 1},
		"address": {"$ref": "#/$defs/address"}
	},
	"allOf": [{"required": ["kind"]}],
	"if": {"properties": {"kind": {"const": "company"}}},
	"then": {"required": ["address"]},
	"else": {"required": ["name"]},
	"additionalProperties": false
}`

var _ = RegisterScenarios(
	Scenario{
		Name: scPreserveScenario, Since: spec.V20251125,
		Title: "the official preservation scenario: " + scFocalTool + " has an inputSchema using the 2020-12 vocabulary; " + scEchoTool + " takes a schema and echoes it",
		Acts:  "list the tools and call " + scEchoTool + " with the inputSchema of " + scFocalTool + " as its schema argument",
		Stage: func(Env) stage.Config {
			text := func(s string) func(*server.Call) (any, error) {
				return func(*server.Call) (any, error) {
					return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(s)}}, nil
				}
			}
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{
				{Def: mcp.Tool{Name: scFocalTool, Description: "A tool whose inputSchema uses the JSON Schema 2020-12 vocabulary", InputSchema: json.RawMessage(scFocalSchema)}, Run: text("ok")},
				{Def: mcp.Tool{Name: scEchoTool, Description: "Echoes the schema it is given (pass the other tool's inputSchema as schema)",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"schema":{"type":"object"}},"required":["schema"]}`)}, Run: text("echoed")},
			}}}
		},
	},
	Scenario{
		Name: scDialectScenario, RidesOn: []string{rideElicitation}, Since: spec.V20251125, Until: spec.V20251125,
		Title: "while serving the client's first request the stage sends a form elicitation (to a client that declared form mode) whose requestedSchema names a dialect nobody supports",
		Stage: func(Env) stage.Config {
			var asked atomic.Bool
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{EchoTool}, Director: func(c *server.Call) (any, error, bool) {
				switch c.Method() {
				case spec.MethodInitialize, spec.MethodPing, spec.MethodServerDiscover:
					return nil, nil, false
				}
				if !c.ClientCapabilities().Elicitation.SupportsForm() || !asked.CompareAndSwap(false, true) {
					return nil, nil, false
				}
				ctx, cancel := context.WithTimeout(c.Context(), AskTimeout)
				defer cancel()
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, _ = c.Request(spec.MethodElicitationCreate, map[string]any{
						"mode":    "form",
						"message": "mcpcheck asks for your name (in a schema dialect nobody supports)",
						"requestedSchema": map[string]any{"$schema": scUnknownDialect, "type": "object",
							"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
					})
				}()
				select {
				case <-done:
				case <-ctx.Done():
				}
				return nil, nil, false
			}}}
		},
	},
	Scenario{
		Name: scRefScenario, Eras: StatelessEra,
		Title: "the stage lists " + scPlainTool + " and " + scUnresolvedTool + ", whose inputSchema refers to a schema (a urn: URI) that cannot be resolved",
		Stage: func(Env) stage.Config {
			return stage.Config{Server: server.Options{NoFixtures: true, Tools: []server.Tool{
				{Def: mcp.Tool{Name: scPlainTool, Description: "Takes a text", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}},
				{Def: mcp.Tool{Name: scUnresolvedTool, Description: "Takes a profile whose schema lives elsewhere",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"profile":{"$ref":"urn:mcpcheck:schemas:nowhere"}},"required":["profile"]}`)}},
			}}}
		},
	},
)

var _ = Register(
	Def{
		ID: "client/base/schema-handed-back-valid", Area: "base", Since: spec.V20251125, Scenarios: []string{scPreserveScenario},
		Title:        "a schema the client hands to the server (a tool's inputSchema passed back to " + scEchoTool + ") is valid in its dialect",
		Requirements: []string{"base.schema.schemas-valid"},
		Proofs:       []Proof{{Fault: "schema-echo-invalid", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				for _, m := range c.Requests(spec.MethodToolsCall) {
					var p struct {
						Name      string `json:"name"`
						Arguments struct {
							Schema json.RawMessage `json:"schema"`
						} `json:"arguments"`
					}
					if json.Unmarshal(m.Msg.Params, &p) != nil || p.Name != scEchoTool || len(p.Arguments.Schema) == 0 {
						continue
					}
					d, known := rules.PeerDialect(p.Arguments.Schema)
					if !known {
						t.Saw("a schema declaring the dialect %q, which mcpcheck cannot judge, was not counted", d)
						continue
					}
					n++
					if _, err := rules.CompilePeerSchema(p.Arguments.Schema, "handed-back"); err != nil {
						bad++
						t.Fail("the schema passed to "+scEchoTool+" is valid in its dialect ("+rules.DialectName(d)+")",
							fmt.Sprintf("it is not: %s; sent at %s", rules.OneLine(err.Error()), Where(c, m)))
					}
				}
			}
			t.SettleActed(n, bad, "call "+scEchoTool+" with the inputSchema of "+scFocalTool, "%d schemas handed back, each valid in its dialect")
		},
	},
	Def{
		ID: "client/base/schema-unknown-dialect", Area: "base", Since: spec.V20251125, Until: spec.V20251125, Scenarios: []string{scDialectScenario},
		Title:        "an elicitation whose requestedSchema names a dialect the client does not support is answered with an error, not validated under another dialect and accepted",
		Requirements: []string{"base.schema.unsupported-dialect-error"},
		Proofs:       []Proof{{Fault: "schema-dialect-ignored", Version: spec.V20251125, Want: reports.Fail}},
		Body: func(t *T) {
			n, bad, other := 0, 0, 0
			for _, c := range t.Cases() {
				for _, a := range elAnswers(c, spec.MethodElicitationCreate) {
					if !strings.Contains(string(a.Request.Msg.Params), scUnknownDialect) {
						continue
					}
					if a.Response.Msg.Shape != jsonrpc.KindResponse {
						n++
						continue
					}
					var r struct {
						Action string `json:"action"`
					}
					_ = json.Unmarshal(a.Response.Msg.Result, &r)
					if r.Action != string(mcp.ActionAccept) {
						// Declined or cancelled: nothing was validated.
						other++
						continue
					}
					n++
					bad++
					t.Fail("a JSON-RPC error saying the dialect "+scUnknownDialect+" is not supported",
						fmt.Sprintf("the client accepted the form under a schema of that dialect: %s (%s)", Excerpt(a.Response), c.Scenario.Name))
				}
			}
			if n == 0 {
				why := "declare form-mode elicitation, make a request other than ping after initialization and accept the form"
				if other > 0 {
					why = "accept the form (it declined or cancelled, so nothing was validated)"
				}
				t.NeedAction(false, why)
				return
			}
			t.Settle(n, bad, "", "%d elicitations in an unknown dialect, each refused with an error")
		},
	},
	Def{
		ID: "client/base/schema-unresolved-ref", Area: "base", Eras: StatelessEra, Scenarios: []string{scRefScenario},
		Title:        "a tool whose inputSchema refers to a schema that cannot be resolved is rejected, not called as if the schema accepted anything",
		Requirements: []string{"base.schema.unresolved-ref-rejected"},
		Proofs:       []Proof{{Fault: "schema-unresolved-ref-kept", Want: reports.Warn}},
		Body: func(t *T) {
			n, bad := 0, 0
			for _, c := range t.Cases() {
				plain := false
				var calls []Msg
				for _, m := range c.Requests(spec.MethodToolsCall) {
					var p struct {
						Name string `json:"name"`
					}
					_ = json.Unmarshal(m.Msg.Params, &p)
					switch p.Name {
					case scPlainTool:
						plain = true
					case scUnresolvedTool:
						calls = append(calls, m)
					}
				}
				if !plain && len(calls) == 0 {
					continue
				}
				n++
				if len(calls) > 0 {
					bad++
					t.Fail(scUnresolvedTool+" (its inputSchema's $ref urn:mcpcheck:schemas:nowhere cannot be resolved) is rejected, not called",
						fmt.Sprintf("the client called it %d time(s), the first %s (%s)", len(calls), Excerpt(calls[0]), c.Scenario.Name))
				}
			}
			t.SettleActed(n, bad, "call the tools it listed", "%d listings: the tool with the unresolvable schema was left alone")
		},
	},
)
