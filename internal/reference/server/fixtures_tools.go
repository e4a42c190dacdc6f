package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// disconnecter is implemented by streams a transport can close early (SSE
// polling): the client resumes with Last-Event-ID.
type disconnecter interface {
	Disconnect()
}

const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "additionalProperties": false,
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]}
}`

func tool(name, title, desc string, schema json.RawMessage, run func(c *call) (any, error)) *toolFixture {
	return &toolFixture{def: mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: schema}, run: run}
}

func constText(s string) func(*call) (any, error) {
	return func(*call) (any, error) { return textResult(s), nil }
}

// conformanceTools are the official suite's tools, on both wires.
func conformanceTools() []*toolFixture {
	ts := []*toolFixture{
		tool("test_simple_text", "Simple text", "Returns a fixed text", noArgs, constText("This is a simple text response for testing.")),
		tool("test_image_content", "Image content", "Returns a PNG image", noArgs, func(*call) (any, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Block(&mcp.ImageContent{Data: pngBase64, MimeType: "image/png"})}}, nil
		}),
		tool("test_audio_content", "Audio content", "Returns a WAV audio clip", noArgs, func(*call) (any, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Block(&mcp.AudioContent{Data: wavBase64, MimeType: "audio/wav"})}}, nil
		}),
		tool("test_embedded_resource", "Embedded resource", "Returns an embedded text resource", noArgs, func(*call) (any, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Block(&mcp.EmbeddedResource{Resource: mcp.TextContents("test://embedded-resource", "text/plain", "This is an embedded resource content.")})}}, nil
		}),
		tool("test_multiple_content_types", "Mixed content", "Returns text, an image and a resource", noArgs, func(*call) (any, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{
				mcp.Text("Multiple content types test:"),
				mcp.Block(&mcp.ImageContent{Data: pngBase64, MimeType: "image/png"}),
				mcp.Block(&mcp.EmbeddedResource{Resource: mcp.TextContents("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)}),
			}}, nil
		}),
		tool("test_tool_with_logging", "Logging", "Sends three log messages while it runs", noArgs, func(c *call) (any, error) {
			for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := c.step(); err != nil {
						return nil, err
					}
				}
				c.log(mcp.LevelInfo, m)
			}
			return textResult("Tool with logging executed successfully"), nil
		}),
		tool("test_tool_with_progress", "Progress", "Reports progress 0, 50, 100 when given a progress token", noArgs, func(c *call) (any, error) {
			total := 100.0
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := c.step(); err != nil {
						return nil, err
					}
				}
				c.progress(p, &total, fmt.Sprintf("Completed step %d of %d", i+1, 3))
			}
			if !c.r.hasToken {
				return textResult("no progress token was given, so no progress was reported"), nil
			}
			return textResult(c.r.token.String()), nil
		}),
		tool("test_error_handling", "Error", "Always fails as a tool execution error", noArgs, func(*call) (any, error) {
			return errorResult("This tool intentionally returns an error for testing"), nil
		}),
		tool("test_reconnection", "Reconnection", "Closes its SSE stream early so the client must resume with Last-Event-ID", noArgs, func(c *call) (any, error) {
			// Only 2025-11-25 clients know to resume a stream the server
			// closes (SSE polling).
			if d, ok := c.r.out.(disconnecter); ok && since(c.r.v, spec.V20251125) {
				d.Disconnect()
			}
			if err := c.sleep(100 * time.Millisecond); err != nil {
				return nil, err
			}
			return textResult("Reconnection test completed successfully. The result arrived after the stream was resumed."), nil
		}),
		tool("test_sampling", "Sampling", "Asks the client's LLM to answer a prompt", objectSchema(`{"prompt":{"type":"string","description":"The prompt to sample"}}`, "prompt"), func(c *call) (any, error) {
			req := samplingRequest(c.str("prompt"), 100)
			if c.r.stateless() {
				if text, ok := sampledText(c.inputs["sampling"]); ok {
					return textResult("LLM response: " + text), nil
				}
				return inputRequired(c.r, map[string]mcp.InputRequest{"sampling": req}, "")
			}
			if c.r.caps.Sampling == nil {
				return errorResult("The client did not declare the sampling capability, so no sampling request was sent."), nil
			}
			raw, err := c.ask(spec.MethodSamplingCreateMessage, req.Params)
			if err != nil {
				return errorResult("Sampling failed: " + err.Error()), nil
			}
			text, _ := sampledText(raw)
			return textResult("LLM response: " + text), nil
		}),
		tool("test_elicitation", "Elicitation", "Asks the user for a response through the client", objectSchema(`{"message":{"type":"string","description":"The question to ask"}}`, "message"), func(c *call) (any, error) {
			req := elicitRequest(c.str("message"), "response", "string")
			return c.elicit(req)
		}),
		tool("test_elicitation_sep1034_defaults", "Elicitation defaults", "Elicits a form whose fields all have defaults", noArgs, func(c *call) (any, error) {
			p := &mcp.ElicitParams{Mode: mcp.ElicitForm, Message: "Please review and update the form fields with defaults", RequestedSchema: &mcp.RequestedSchema{Type: "object", Properties: map[string]mcp.PrimitiveSchema{
				"name":     {Type: "string", Title: "Name", Default: rawJSON("John Doe")},
				"age":      {Type: "integer", Title: "Age", Default: rawJSON(30)},
				"score":    {Type: "number", Title: "Score", Default: rawJSON(95.5)},
				"status":   {Type: "string", Title: "Status", Enum: []string{"active", "inactive", "pending"}, Default: rawJSON("active")},
				"verified": {Type: "boolean", Title: "Verified", Default: rawJSON(true)},
			}}}
			return c.elicitWith(mcp.InputRequest{Method: spec.MethodElicitationCreate, Params: p}, "Elicitation completed")
		}),
		tool("test_elicitation_sep1330_enums", "Elicitation enums", "Elicits a form with every enum style", noArgs, func(c *call) (any, error) {
			opts := func(word string, titles ...string) []mcp.EnumOption {
				var out []mcp.EnumOption
				for i, t := range titles {
					out = append(out, mcp.EnumOption{Const: fmt.Sprintf("value%d", i+1), Title: t + " " + word})
				}
				return out
			}
			p := &mcp.ElicitParams{Mode: mcp.ElicitForm, Message: "Please select options from the enum fields", RequestedSchema: &mcp.RequestedSchema{Type: "object", Properties: map[string]mcp.PrimitiveSchema{
				"untitledSingle": {Type: "string", Enum: []string{"option1", "option2", "option3"}},
				"titledSingle":   {Type: "string", OneOf: opts("Option", "First", "Second", "Third")},
				"legacyEnum":     {Type: "string", Enum: []string{"opt1", "opt2", "opt3"}, EnumNames: []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti":  {Type: "array", MinItems: mcp.Int(1), MaxItems: mcp.Int(3), Items: &mcp.EnumItems{Type: "string", Enum: []string{"option1", "option2", "option3"}}},
				"titledMulti":    {Type: "array", MinItems: mcp.Int(1), MaxItems: mcp.Int(3), Items: &mcp.EnumItems{AnyOf: opts("Choice", "First", "Second", "Third")}},
			}}}
			return c.elicitWith(mcp.InputRequest{Method: spec.MethodElicitationCreate, Params: p}, "Elicitation completed")
		}),
		tool("json_schema_2020_12_tool", "JSON Schema 2020-12", "A tool whose inputSchema uses JSON Schema 2020-12 keywords", json.RawMessage(schema2020), func(c *call) (any, error) {
			b, _ := json.Marshal(c.args)
			return textResult("JSON Schema 2020-12 tool called with: " + string(b)), nil
		}),
	}
	for _, t := range ts {
		switch t.def.Name {
		case "test_audio_content":
			t.minVersion = spec.V20250326
		case "test_elicitation":
			t.minVersion = spec.V20250618
		case "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums":
			// Defaults on every primitive and the titled/multi-select
			// enums are 2025-11-25 schema features.
			t.minVersion = spec.V20251125
		}
	}
	return ts
}

// elicit runs a form elicitation and reports the answer as the fixtures do.
func (c *call) elicit(req mcp.InputRequest) (any, error) {
	return c.elicitWith(req, "User response")
}

func (c *call) elicitWith(req mcp.InputRequest, prefix string) (any, error) {
	var raw json.RawMessage
	if c.r.stateless() {
		raw = c.inputs["elicitation"]
		if raw == nil {
			return inputRequired(c.r, map[string]mcp.InputRequest{"elicitation": req}, "")
		}
	} else {
		if c.r.caps.Elicitation == nil || !c.r.caps.Elicitation.SupportsForm() {
			return errorResult("The client did not declare form-mode elicitation, so no elicitation request was sent."), nil
		}
		var err error
		raw, err = c.ask(spec.MethodElicitationCreate, req.Params)
		if err != nil {
			return errorResult("Elicitation failed: " + err.Error()), nil
		}
	}
	var er mcp.ElicitResult
	if err := json.Unmarshal(raw, &er); err != nil {
		return errorResult("The elicitation response does not decode: " + err.Error()), nil
	}
	content, _ := json.Marshal(er.Content)
	if er.Content == nil {
		content = []byte("{}")
	}
	return textResult(fmt.Sprintf("%s: action=%s, content=%s", prefix, er.Action, content)), nil
}

// statelessTools are the official suite's 2026-07-28-only tools and hooks.
func statelessTools() []*toolFixture {
	st := func(t *toolFixture) *toolFixture { t.wire = statelessOnly; return t }
	hook := func(t *toolFixture) *toolFixture { t.wire = hiddenHook; return t }
	return []*toolFixture{
		st(tool("test_missing_capability", "", "Needs the sampling client capability", noArgs, func(c *call) (any, error) {
			if c.r.caps.Sampling == nil {
				if c.r.srv.faults.on(FaultMissingCapabilityCode) {
					return nil, invalidParams("Invalid params: this tool needs the sampling client capability")
				}
				return nil, missingCapability(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}})
			}
			return textResult("Success"), nil
		})),
		st(tool("test_streaming_elicitation", "", "Streams a progress notification before its result", noArgs, func(c *call) (any, error) {
			total := 100.0
			c.progress(50, &total, "halfway")
			return textResult("Streaming complete"), nil
		})),
		st(tool("test_logging_tool", "", "Logs only when the request names a log level", noArgs, func(c *call) (any, error) {
			c.log(mcp.LevelInfo, "test_logging_tool evaluated")
			return textResult("Logging evaluated"), nil
		})),
		st(tool("test_input_required_result_elicitation", "", "Asks for the user's name (multi round-trip)", noArgs, func(c *call) (any, error) {
			if name, ok := elicitedString(c.inputs["user_name"], "name"); ok {
				return textResult("Hello, " + name + "!"), nil
			}
			if a := declined(c.inputs["user_name"]); a != "" {
				return textResult("The user did not give a name (action=" + a + ")."), nil
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"user_name": elicitRequest("What is your name?", "name", "string")}, "")
		})),
		st(tool("test_input_required_result_sampling", "", "Asks the client's LLM a question (multi round-trip)", noArgs, func(c *call) (any, error) {
			if text, ok := sampledText(c.inputs["sample_request"]); ok {
				return textResult("Sampling result: " + text), nil
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"sample_request": samplingRequest("What is the capital of France?", 100)}, "")
		})),
		st(tool("test_input_required_result_list_roots", "", "Asks the client for its roots (multi round-trip)", noArgs, func(c *call) (any, error) {
			if n, ok := rootCount(c.inputs["roots_request"]); ok {
				return textResult(fmt.Sprintf("Found %d root(s)", n)), nil
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"roots_request": rootsRequest()}, "")
		})),
		st(tool("test_input_required_result_request_state", "", "Round-trips an integrity-protected requestState", noArgs, func(c *call) (any, error) {
			if c.state != nil && c.state["kind"] == "request-state" {
				if v, ok := elicitedValue(c.inputs["confirm"], "ok"); ok && string(v) == "true" {
					return textResult("state-ok: requestState validated"), nil
				}
				if a := declined(c.inputs["confirm"]); a != "" {
					return textResult("Not confirmed (action=" + a + ")."), nil
				}
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"confirm": elicitRequest("Please confirm", "ok", "boolean")},
				c.r.srv.signState(c.tool.def.Name, map[string]any{"kind": "request-state"}))
		})),
		st(tool("test_input_required_result_multiple_inputs", "", "Asks for three inputs at once", noArgs, func(c *call) (any, error) {
			name, ok1 := elicitedString(c.inputs["user_name"], "name")
			greeting, ok2 := sampledText(c.inputs["greeting"])
			n, ok3 := rootCount(c.inputs["client_roots"])
			if ok1 && ok2 && ok3 && c.state != nil && c.state["kind"] == "multiple-inputs" {
				return textResult(fmt.Sprintf("Name: %s; Greeting: %s; Roots: %d", name, greeting, n)), nil
			}
			if a := declined(c.inputs["user_name"]); a != "" && c.state != nil {
				return textResult("The user did not give a name (action=" + a + ")."), nil
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{
				"user_name":    elicitRequest("What is your name?", "name", "string"),
				"greeting":     samplingRequest("Generate a greeting", 50),
				"client_roots": rootsRequest(),
			}, c.r.srv.signState(c.tool.def.Name, map[string]any{"kind": "multiple-inputs"}))
		})),
		st(tool("test_input_required_result_multi_round", "", "Needs two rounds of input", noArgs, func(c *call) (any, error) {
			sign := func(p map[string]any) string { return c.r.srv.signState(c.tool.def.Name, p) }
			round, _ := c.state["round"].(float64)
			switch {
			case round == 1 && declined(c.inputs["step1"]) != "", round == 2 && declined(c.inputs["step2"]) != "":
				return textResult("Multi-round stopped: the user declined."), nil
			case round == 1:
				if name, ok := elicitedString(c.inputs["step1"], "name"); ok {
					return inputRequired(c.r, map[string]mcp.InputRequest{"step2": elicitRequest("Step 2: What is your favorite color?", "color", "string")},
						sign(map[string]any{"round": 2, "name": name}))
				}
			case round == 2:
				name, _ := c.state["name"].(string)
				if color, ok := elicitedString(c.inputs["step2"], "color"); ok {
					return textResult(fmt.Sprintf("Multi-round complete for %s who likes %s", name, color)), nil
				}
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"step1": elicitRequest("Step 1: What is your name?", "name", "string")}, sign(map[string]any{"round": 1}))
		})),
		st(tool("test_input_required_result_tampered_state", "", "Rejects a requestState that was changed", noArgs, func(c *call) (any, error) {
			if c.state != nil {
				if v, ok := elicitedValue(c.inputs["confirm"], "ok"); ok && string(v) == "true" {
					return textResult("integrity-ok: state verified"), nil
				}
				if a := declined(c.inputs["confirm"]); a != "" {
					return textResult("integrity-ok, but not confirmed (action=" + a + ")."), nil
				}
			}
			return inputRequired(c.r, map[string]mcp.InputRequest{"confirm": elicitRequest("Please confirm", "ok", "boolean")},
				c.r.srv.signState(c.tool.def.Name, map[string]any{"kind": "tamper-check"}))
		})),
		st(tool("test_input_required_result_capabilities", "", "Asks only for inputs the client declared", noArgs, func(c *call) (any, error) {
			if len(c.inputs) > 0 {
				return textResult("capabilities-ok: received " + strings.Join(sortedKeys(c.inputs), ", ")), nil
			}
			reqs := map[string]mcp.InputRequest{}
			if c.r.caps.Elicitation != nil {
				reqs["elicit_input"] = elicitRequest("Please provide a value", "value", "string")
			}
			if c.r.caps.Sampling != nil {
				reqs["sample_input"] = samplingRequest("Sample request", 50)
			}
			if len(reqs) == 0 {
				return textResult("No supported capabilities declared"), nil
			}
			return inputRequired(c.r, reqs, c.r.srv.signState(c.tool.def.Name, map[string]any{"kind": "capabilities-test"}))
		})),
		st(tool("ref_header_params", "", "Echoes arguments that are mirrored into Mcp-Param-* headers (x-mcp-header)",
			json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"query":{"type":"string"}}}`),
			func(c *call) (any, error) {
				b, _ := json.Marshal(c.args)
				return textResult("header params: " + string(b)), nil
			})),
		hook(tool("test_trigger_tool_change", "", "Announces a tool list change to listeners", noArgs, func(c *call) (any, error) {
			c.r.srv.listChanged(spec.MethodToolsListChanged)
			return textResult("Mutation triggered"), nil
		})),
		hook(tool("test_trigger_prompt_change", "", "Announces a prompt list change to listeners", noArgs, func(c *call) (any, error) {
			c.r.srv.listChanged(spec.MethodPromptsListChanged)
			return textResult("Mutation triggered"), nil
		})),
	}
}
