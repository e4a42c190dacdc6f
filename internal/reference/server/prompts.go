package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

func listPrompts(r *request) (any, error) {
	var p mcp.PaginatedParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if err := r.faultListRefused(); err != nil {
		return nil, err
	}
	all := r.srv.fx.sortedPrompts(r.v)
	page, next, err := paginate(r.srv, "prompts", all, func(x *promptFixture) string { return x.def.Name }, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := mcp.ListPromptsResult{Prompts: make([]mcp.Prompt, len(page)), Cacheable: cache(r, 300000, mcp.CachePublic)}
	res.NextCursor = next
	for i, x := range page {
		res.Prompts[i] = shapePrompt(r.v, x.def)
	}
	return res, nil
}

func getPrompt(r *request) (any, error) {
	var p mcp.GetPromptParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	r.srv.fx.mu.RLock()
	x := r.srv.fx.prompts[p.Name]
	r.srv.fx.mu.RUnlock()
	if x == nil || !x.wire.callable(r.v) {
		if r.srv.faults.on(FaultUnknownPromptWrongCode) {
			return nil, internalError("internal error: prompt %q", p.Name)
		}
		return nil, invalidParams("Unknown prompt: %q; call prompts/list for the prompts this server offers", p.Name)
	}
	for _, a := range x.def.Arguments {
		if a.Required != nil && *a.Required {
			if _, ok := p.Arguments[a.Name]; !ok && !r.srv.faults.on(FaultPromptArgsUnchecked) {
				return nil, invalidParams("Missing required argument %q for prompt %q", a.Name, p.Name)
			}
		}
	}
	res, err := x.get(r, p.Arguments, &p)
	if err != nil {
		return nil, err
	}
	if gp, ok := res.(*mcp.GetPromptResult); ok {
		cp := *gp
		cp.Messages = make([]mcp.PromptMessage, len(gp.Messages))
		for i, m := range gp.Messages {
			m.Content = shapeBlock(r.v, m.Content)
			cp.Messages[i] = m
		}
		return &cp, nil
	}
	return res, nil
}

func userText(s string) mcp.PromptMessage {
	return mcp.PromptMessage{Role: mcp.RoleUser, Content: mcp.Text(s)}
}

func promptFixtures() []*promptFixture {
	req := mcp.Bool(true)
	return []*promptFixture{
		{def: mcp.Prompt{Name: "test_simple_prompt", Title: "Simple prompt", Description: "A prompt without arguments"},
			get: func(*request, map[string]string, *mcp.GetPromptParams) (any, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
			}},
		{def: mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt with arguments", Description: "A prompt with two required arguments",
			Arguments: []mcp.PromptArgument{{Name: "arg1", Title: "First", Description: "First argument", Required: req}, {Name: "arg2", Title: "Second", Description: "Second argument", Required: req}}},
			get: func(_ *request, a map[string]string, _ *mcp.GetPromptParams) (any, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))}}, nil
			}},
		{def: mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt with a resource", Description: "A prompt that embeds a resource",
			Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the embedded resource", Required: req}}},
			get: func(_ *request, a map[string]string, _ *mcp.GetPromptParams) (any, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Block(&mcp.EmbeddedResource{Resource: mcp.TextContents(a["resourceUri"], "text/plain", "Embedded resource content for testing.")})},
					userText("Please process the embedded resource above."),
				}}, nil
			}},
		{def: mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt with an image", Description: "A prompt that contains an image"},
			get: func(*request, map[string]string, *mcp.GetPromptParams) (any, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.Block(&mcp.ImageContent{Data: pngBase64, MimeType: "image/png"})},
					userText("Please analyze the image above."),
				}}, nil
			}},
		{def: mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the client for context first (multi round-trip)"}, wire: statelessOnly,
			get: func(r *request, _ map[string]string, p *mcp.GetPromptParams) (any, error) {
				var raw struct {
					InputResponses map[string]json.RawMessage `json:"inputResponses"`
				}
				_ = json.Unmarshal(r.params, &raw)
				if ctx, ok := elicitedString(raw.InputResponses["user_context"], "context"); ok {
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("Prompt with context: " + ctx)}}, nil
				}
				if a := declined(raw.InputResponses["user_context"]); a != "" {
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{userText("Prompt without context (the user chose " + a + ").")}}, nil
				}
				return inputRequired(r, map[string]mcp.InputRequest{
					"user_context": elicitRequest("What context should the prompt use?", "context", "string"),
				}, "")
			}},
	}
}
