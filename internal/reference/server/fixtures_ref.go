package server

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// refTools are mcpcheck's own fixtures, richer than the official ones.
func refTools() []*toolFixture {
	structured := tool("ref_structured", "Structured output", "Adds two numbers and returns structured output", objectSchema(`{"a":{"type":"number"},"b":{"type":"number"}}`, "a", "b"), func(c *call) (any, error) {
		sum := c.num("a", 0) + c.num("b", 0)
		sc, _ := json.Marshal(map[string]float64{"sum": sum})
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{mcp.Text(string(sc))}, StructuredContent: sc}, nil
	})
	structured.def.OutputSchema = objectSchema(`{"sum":{"type":"number"}}`, "sum")
	structured.def.Annotations = &mcp.ToolAnnotations{Title: "Adder", ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	structured.def.Icons = []mcp.Icon{{Src: pngDataURI, MimeType: "image/png", Sizes: []string{"1x1"}}}

	slow := tool("ref_slow", "Slow", "Waits ms milliseconds (cancellable; may run as a task)", objectSchema(`{"ms":{"type":"integer","minimum":0}}`), func(c *call) (any, error) {
		ms := c.num("ms", 1000)
		if err := c.sleep(time.Duration(ms) * time.Millisecond); err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("waited %v ms", ms)), nil
	})
	slow.def.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}

	taskOnly := tool("ref_task_required", "Task only", "Must be called as a task; waits ms milliseconds; fail=true ends with isError, protocolError=true fails the task", objectSchema(`{"ms":{"type":"integer","minimum":0},"fail":{"type":"boolean"},"protocolError":{"type":"boolean"}}`), func(c *call) (any, error) {
		if err := c.sleep(time.Duration(c.num("ms", 0)) * time.Millisecond); err != nil {
			return nil, err
		}
		if string(c.args["protocolError"]) == "true" {
			return nil, internalError("ref_task_required was asked to fail with a protocol error")
		}
		if string(c.args["fail"]) == "true" {
			return errorResult("ref_task_required was asked to fail"), nil
		}
		return textResult("task finished"), nil
	})
	taskOnly.def.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskRequired}
	taskOnly.minVersion = spec.V20251125
	taskOnly.wire = statefulOnly

	progress := tool("ref_progress", "Progress steps", "Reports steps progress notifications (default 5) when given a progress token; may run as a task", objectSchema(`{"steps":{"type":"integer","minimum":1,"maximum":10000}}`), func(c *call) (any, error) {
		n := int(c.num("steps", 5))
		if n < 1 || n > 10000 {
			return errorResult("steps must be between 1 and 10000"), nil
		}
		total := float64(n)
		for i := 1; i <= n; i++ {
			c.progress(float64(i), &total, fmt.Sprintf("step %d of %d", i, n))
			if i < n {
				if err := c.step(); err != nil {
					return nil, err
				}
			}
		}
		return textResult(fmt.Sprintf("reported %d steps", n)), nil
	})
	progress.def.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskOptional}

	// ref_sign_in takes a credential and logs that it was used, never
	// the credential (or who used it); the log-secrets fault logs both.
	signIn := tool("ref_sign_in", "Sign in", "Checks a user name and password (any non-empty pair is accepted) and logs the attempt", objectSchema(`{"user":{"type":"string"},"password":{"type":"string"}}`, "user", "password"), func(c *call) (any, error) {
		if c.r.srv.faults.on(FaultLogSecrets) {
			c.log(mcp.LevelInfo, fmt.Sprintf("sign-in for %s with password %s", c.str("user"), c.str("password")))
		} else {
			c.log(mcp.LevelInfo, "sign-in attempt received")
		}
		if c.str("user") == "" || c.str("password") == "" {
			return errorResult("user and password must not be empty"), nil
		}
		return textResult("signed in"), nil
	})

	ts := []*toolFixture{structured, slow, taskOnly, progress, signIn,
		tool("ref_all_content", "Every content type", "Returns one block of every content type the version has", noArgs, func(c *call) (any, error) {
			ann := &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}, Priority: mcp.Float(0.8), LastModified: "2025-06-18T00:00:00Z"}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{
				mcp.Block(&mcp.TextContent{Text: "text block", Annotations: ann}),
				mcp.Block(&mcp.ImageContent{Data: pngBase64, MimeType: "image/png"}),
				mcp.Block(&mcp.AudioContent{Data: wavBase64, MimeType: "audio/wav"}),
				mcp.Block(&mcp.ResourceLink{Resource: mcp.Resource{URI: "test://static-text", Name: "static-text", MimeType: "text/plain"}}),
				mcp.Block(&mcp.EmbeddedResource{Resource: mcp.TextContents("test://static-text", "text/plain", "This is the content of the static text resource.")}),
				mcp.Block(&mcp.EmbeddedResource{Resource: mcp.BlobContents("test://static-binary", "image/png", pngBase64)}),
			}}, nil
		}),
		tool("ref_notify_stream", "Notification stream", "Sends count log notifications (default 10) related to the call, then answers", objectSchema(`{"count":{"type":"integer","minimum":0,"maximum":100000}}`), func(c *call) (any, error) {
			n := int(c.num("count", 10))
			if n < 0 || n > 100000 {
				return errorResult("count must be between 0 and 100000"), nil
			}
			for i := 0; i < n; i++ {
				if err := c.ctx().Err(); err != nil {
					return nil, err
				}
				c.log(mcp.LevelInfo, map[string]any{"seq": i})
			}
			return textResult(fmt.Sprintf("sent %d notifications", n)), nil
		}),
		tool("ref_change_lists", "Change lists", "Adds or removes the dynamic tool, prompt or resource and announces the change", objectSchema(`{"kind":{"type":"string","enum":["tools","prompts","resources"]}}`, "kind"), func(c *call) (any, error) {
			added, err := c.r.srv.fx.toggle(c.str("kind"))
			if err != nil {
				return errorResult(err.Error()), nil
			}
			return textResult(fmt.Sprintf("%s: dynamic item present=%v", c.str("kind"), added)), nil
		}),
		tool("ref_touch_resource", "Touch resource", "Announces that a resource changed to its subscribers", objectSchema(`{"uri":{"type":"string"}}`, "uri"), func(c *call) (any, error) {
			c.r.srv.resourceUpdated(c.str("uri"))
			return textResult("updated " + c.str("uri")), nil
		}),
		{def: mcp.Tool{Name: "ref_list_roots", Description: "Asks the client for its roots", InputSchema: noArgs}, wire: statefulOnly, run: func(c *call) (any, error) {
			if c.r.caps.Roots == nil {
				return errorResult("The client did not declare the roots capability."), nil
			}
			raw, err := c.ask(spec.MethodRootsList, struct{}{})
			if err != nil {
				return errorResult("roots/list failed: " + err.Error()), nil
			}
			n, _ := rootCount(raw)
			return textResult(fmt.Sprintf("Found %d root(s)", n)), nil
		}},
		{def: mcp.Tool{Name: "ref_sampling_tools", Description: "Runs a sampling tool loop: the client's model may call get_weather, the server answers with tool results", InputSchema: noArgs},
			wire: statefulOnly, minVersion: spec.V20251125, run: samplingToolLoop},
		{def: mcp.Tool{Name: "ref_elicit_url", Description: "Asks the user to visit a URL (URL-mode elicitation), then announces completion", InputSchema: noArgs},
			wire: statefulOnly, minVersion: spec.V20251125, run: func(c *call) (any, error) {
				if c.r.caps.Elicitation == nil || (!c.r.caps.Elicitation.SupportsURL() && !c.r.srv.faults.on(FaultElicitURLUndeclared)) {
					return errorResult("The client did not declare URL-mode elicitation."), nil
				}
				id := c.r.srv.randomID(8)
				u := refElicitURL + id
				raw, err := c.ask(spec.MethodElicitationCreate, &mcp.ElicitParams{Mode: mcp.ElicitURL, Message: "Please visit the page to continue", URL: u, ElicitationID: id})
				if err != nil {
					return errorResult("Elicitation failed: " + err.Error()), nil
				}
				var er mcp.ElicitResult
				_ = json.Unmarshal(raw, &er)
				if er.Action == mcp.ActionAccept {
					if c.r.srv.faults.on(FaultElicitCompleteWrongID) {
						id = c.r.srv.randomID(8)
					}
					c.r.s.notifyGeneral(spec.MethodElicitationComplete, mcp.ElicitationCompleteParams{ElicitationID: id})
				}
				return textResult("URL elicitation action=" + string(er.Action)), nil
			}},
		{def: mcp.Tool{Name: "ref_url_required", Description: "Fails with -32042 (URL elicitation required), then announces the elicitation complete", InputSchema: noArgs},
			wire: statefulOnly, minVersion: spec.V20251125, run: func(c *call) (any, error) {
				if c.r.caps.Elicitation == nil || !c.r.caps.Elicitation.SupportsURL() {
					return errorResult("The client did not declare URL-mode elicitation."), nil
				}
				id := c.r.srv.randomID(8)
				ss := c.r.s
				// The out-of-band flow "completes" right after the error.
				c.r.srv.goTracked(func() {
					select {
					case <-c.r.ctx.Done():
					case <-ss.ctx.Done():
						return
					}
					ss.notifyGeneral(spec.MethodElicitationComplete, mcp.ElicitationCompleteParams{ElicitationID: id})
				})
				return nil, &Error{Code: jsonrpc.URLElicitationRequired, Message: "This request requires the user to complete a URL elicitation first",
					Data: mcp.URLElicitationRequiredData{Elicitations: []mcp.ElicitParams{{Mode: mcp.ElicitURL, Message: "Authorize access", URL: "https://example.com/mcpcheck/authorize?e=" + id, ElicitationID: id}}}}
			}},
	}
	return ts
}

// samplingToolLoop asks the client's model with a tool available and
// answers each tool use with a tool result until the model stops.
func samplingToolLoop(c *call) (any, error) {
	if c.r.caps.Sampling == nil || (c.r.caps.Sampling.Tools == nil && !c.r.srv.faults.on(FaultSamplingToolsUndeclared)) {
		return errorResult("The client did not declare sampling with tools (capabilities.sampling.tools)."), nil
	}
	weather := mcp.Tool{Name: "get_weather", Description: "Current weather of a city", InputSchema: objectSchema(`{"city":{"type":"string"}}`, "city")}
	msgs := []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Single(&mcp.TextContent{Text: "What is the weather in Paris? Use the get_weather tool."})}}
	for round := 0; round < 5; round++ {
		raw, err := c.ask(spec.MethodSamplingCreateMessage, &mcp.CreateMessageParams{Messages: msgs, MaxTokens: 200, Tools: []mcp.Tool{weather}, ToolChoice: &mcp.ToolChoice{Mode: mcp.ToolChoiceAuto}})
		if err != nil {
			return errorResult("Sampling failed: " + err.Error()), nil
		}
		var res mcp.CreateMessageResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return errorResult("The sampling result does not decode: " + err.Error()), nil
		}
		var uses []*mcp.ToolUseContent
		var text string
		for _, b := range res.Content.Blocks {
			switch x := b.Content.(type) {
			case *mcp.ToolUseContent:
				uses = append(uses, x)
			case *mcp.TextContent:
				text += x.Text
			}
		}
		if len(uses) == 0 {
			return textResult(fmt.Sprintf("Model answered after %d tool round(s): %s", round, text)), nil
		}
		// The assistant turn carries the tool uses; the next user turn
		// carries exactly one tool result per use and nothing else.
		assistant := make([]mcp.Content, 0, len(res.Content.Blocks))
		for _, b := range res.Content.Blocks {
			assistant = append(assistant, b.Content)
		}
		results := make([]mcp.Content, len(uses))
		for i, u := range uses {
			results[i] = &mcp.ToolResultContent{ToolUseID: u.ID, Content: []mcp.ContentBlock{mcp.Text("Sunny, 21°C (round " + strconv.Itoa(round+1) + ")")}}
		}
		msgs = append(msgs, mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.Many(assistant...)}, mcp.SamplingMessage{Role: mcp.RoleUser, Content: mcp.Many(results...)})
	}
	return errorResult("The model kept calling tools; stopped after 5 rounds."), nil
}

// Dynamic fixtures that ref_change_lists adds and removes.
var (
	dynamicTool = &toolFixture{def: mcp.Tool{Name: "ref_dynamic_tool", Description: "Appears and disappears with ref_change_lists", InputSchema: noArgs, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}}, run: constText("dynamic tool called")}
	dynamicRes  = &resourceFixture{res: mcp.Resource{URI: "ref://dynamic", Name: "dynamic", MimeType: "text/plain"}, read: func(string) []mcp.ResourceContents {
		return []mcp.ResourceContents{mcp.TextContents("ref://dynamic", "text/plain", "dynamic resource")}
	}}
	dynamicPrompt = &promptFixture{def: mcp.Prompt{Name: "ref_dynamic_prompt", Description: "Appears and disappears with ref_change_lists"}, get: func(*request, map[string]string, *mcp.GetPromptParams) (any, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("dynamic prompt")}}, nil
	}}
)

// toggle adds the dynamic item of kind when absent, removes it when
// present, and announces the change. It reports whether the item is now
// present.
func (f *fixtures) toggle(kind string) (bool, error) {
	f.mu.Lock()
	var present bool
	var method string
	switch kind {
	case "tools":
		_, present = f.tools[dynamicTool.def.Name]
		if present {
			delete(f.tools, dynamicTool.def.Name)
		} else {
			f.tools[dynamicTool.def.Name] = dynamicTool
		}
		method = spec.MethodToolsListChanged
	case "prompts":
		_, present = f.prompts[dynamicPrompt.def.Name]
		if present {
			delete(f.prompts, dynamicPrompt.def.Name)
		} else {
			f.prompts[dynamicPrompt.def.Name] = dynamicPrompt
		}
		method = spec.MethodPromptsListChanged
	case "resources":
		_, present = f.resources[dynamicRes.res.URI]
		if present {
			delete(f.resources, dynamicRes.res.URI)
		} else {
			f.resources[dynamicRes.res.URI] = dynamicRes
		}
		method = spec.MethodResourcesListChanged
	default:
		f.mu.Unlock()
		return false, fmt.Errorf("kind must be tools, prompts or resources, not %q", kind)
	}
	f.mu.Unlock()
	f.srv.listChanged(method)
	return !present, nil
}
