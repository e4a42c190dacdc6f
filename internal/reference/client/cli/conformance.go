package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// conformanceClientMetadataURL is the client ID metadata document URL the
// suite's mock authorization server expects.
const conformanceClientMetadataURL = "https://conformance-test.local/client-metadata.json"

// The environment variables the official conformance suite sets for a
// client under test.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// conformance plays one client scenario of the official conformance suite
// (or an mcpcheck-* scenario of mcpcheck's client suite) against the mock
// server at the URL operand (the suite appends it as the last argument),
// or, with --stdio, against the server that command starts.
func conformance(e Env, o *options) error {
	switch {
	case o.stdio != "" && len(o.pos) == 1:
	case o.stdio == "" && len(o.pos) == 2:
		o.url = o.pos[1]
	default:
		return usagef("reference client: conformance needs the server URL as its only operand (the suite appends it), or --stdio \"CMD\" and no operand")
	}
	scenario := e.Getenv(envScenario)
	if scenario == "" {
		return usagef("reference client: conformance needs %s set (the conformance suite sets it)", envScenario)
	}
	if v := e.Getenv(envVersion); v != "" && o.protocol == "" {
		o.protocol = v
	}
	o.timeout = o.timeoutOr(10 * time.Second)
	var sctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		ToolCalls    []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
		// AnswerDelayMs is how long the scripted user and model take to
		// answer elicitation and sampling requests (mcpcheck's task
		// scenarios).
		AnswerDelayMs int64 `json:"answerDelayMs"`
		// RequestTimeoutMs is how long the client waits for an answer to a
		// tool call before it gives up (mcpcheck's timeout scenario).
		RequestTimeoutMs int64 `json:"requestTimeoutMs"`
		// MaxTotalTimeoutMs bounds a call however much progress the
		// server reports (mcpcheck's endless-progress scenario).
		MaxTotalTimeoutMs int64 `json:"maxTotalTimeoutMs"`
	}
	if raw := e.Getenv(envContext); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sctx); err != nil {
			return fmt.Errorf("conformance: %s is not usable JSON: %v", envContext, err)
		}
	}
	fmt.Fprintf(e.Stderr, "conformance scenario %s, protocol %s, server %s\n", scenario, orString(o.protocol, string(spec.Latest)), o.url)
	if sctx.ClientID != "" && o.clientID == "" {
		o.clientID, o.clientSecret = sctx.ClientID, sctx.ClientSecret
	}
	if o.clientMetadataURL == "" {
		// The suite's authorization server accepts this document URL.
		o.clientMetadataURL = conformanceClientMetadataURL
	}

	// The MRTR scenario wants an unrelated call made while the first one
	// waits for input; the form handler does it through this hook.
	var (
		hookMu sync.Mutex
		hook   func(ctx context.Context)
	)
	o.elicit = "accept"
	c, err := dial(e, o, func(co *client.Options) {
		co.Roots = []mcp.Root{}
		form := co.Elicitation.Form
		co.Elicitation.Form = func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			hookMu.Lock()
			h := hook
			hook = nil
			hookMu.Unlock()
			if h != nil {
				h(ctx)
			}
			if err := answerDelay(ctx, sctx.AnswerDelayMs); err != nil {
				return nil, err
			}
			return form(ctx, p)
		}
		co.Sampling = &client.Sampling{Tools: true, Model: client.ModelFunc(func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			if err := answerDelay(ctx, sctx.AnswerDelayMs); err != nil {
				return nil, err
			}
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.Single(&mcp.TextContent{Text: "ok"}), Model: "mcpcheck-canned", StopReason: mcp.StopEndTurn}, nil
		})}
	})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := e.Ctx
	call := func(name string, args any) error {
		res, err := c.CallTool(ctx, name, args, nil)
		if err != nil {
			return fmt.Errorf("calling %s: %w", name, err)
		}
		printContent(e.Stderr, res.Content)
		return nil
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	switch scenario {
	case "tools_call":
		return call("add_numbers", map[string]any{"a": 2, "b": 3})
	case "elicitation-sep1034-client-defaults":
		return call("test_client_elicitation_defaults", map[string]any{})
	case "sse-retry":
		return call("test_reconnection", map[string]any{})
	case "sep-2322-client-request-state":
		hookMu.Lock()
		hook = func(ctx context.Context) {
			if err := call("test_mrtr_unrelated", map[string]any{}); err != nil {
				fmt.Fprintf(e.Stderr, "unrelated call: %v\n", err)
			}
		}
		hookMu.Unlock()
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
			if err := call(name, map[string]any{}); err != nil {
				return err
			}
		}
		return nil
	case "http-standard-headers":
		for _, t := range tools {
			if err := call(t.Name, map[string]any{}); err != nil {
				fmt.Fprintf(e.Stderr, "%v\n", err)
			}
		}
		if rs, err := c.ListResources(ctx); err == nil {
			for _, r := range rs {
				if _, err := c.ReadResource(ctx, r.URI); err != nil {
					fmt.Fprintf(e.Stderr, "reading %s: %v\n", r.URI, err)
				}
			}
		}
		if ps, err := c.ListPrompts(ctx); err == nil {
			for _, p := range ps {
				if _, err := c.GetPrompt(ctx, p.Name, nil); err != nil {
					fmt.Fprintf(e.Stderr, "getting %s: %v\n", p.Name, err)
				}
			}
		}
		return nil
	case "http-custom-headers":
		for _, tc := range sctx.ToolCalls {
			if err := call(tc.Name, tc.Arguments); err != nil {
				return err
			}
		}
		return nil
	case "http-invalid-tool-headers":
		for _, t := range tools {
			if err := call(t.Name, map[string]any{}); err != nil {
				fmt.Fprintf(e.Stderr, "%v\n", err)
			}
		}
		return nil
	case "json-schema-2020-12-preservation":
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				return call("json_schema_echo", map[string]any{"schema": t.InputSchema})
			}
		}
		return fmt.Errorf("conformance: the server lists no json_schema_2020_12_tool")
	case "mcpcheck-no-answer":
		// Give up on a call that is never answered, after the timeout the
		// scenario gives (the client cancels it).
		d := time.Duration(sctx.RequestTimeoutMs) * time.Millisecond
		if d <= 0 {
			d = time.Second
		}
		_, err := c.CallTool(ctx, "never_answers", map[string]any{}, &client.CallOptions{Timeout: d})
		fmt.Fprintf(e.Stderr, "never_answers: %v\n", err)
		// Then go on: a late answer to the abandoned call must not get
		// in the way of the next ones.
		for i := 0; i < 2; i++ {
			if err := call("echo", map[string]any{"text": "after the timeout"}); err != nil {
				return err
			}
		}
		return nil
	case "mcpcheck-endless-progress":
		// Give up on a call that reports progress without end, after the
		// upper bound the scenario gives.
		d := time.Duration(sctx.MaxTotalTimeoutMs) * time.Millisecond
		if d <= 0 {
			d = 2 * time.Second
		}
		_, err := c.CallTool(ctx, "endless_progress", map[string]any{}, &client.CallOptions{Timeout: d, OnProgress: func(mcp.ProgressNotificationParams) {}})
		fmt.Fprintf(e.Stderr, "endless_progress: %v\n", err)
		return nil
	case "mcpcheck-progress":
		// Two calls at once, each asking for progress.
		errs := make(chan error, 2)
		for i := 0; i < 2; i++ {
			go func() {
				_, err := c.CallTool(ctx, "progress_pair", map[string]any{}, &client.CallOptions{OnProgress: func(p mcp.ProgressNotificationParams) {
					fmt.Fprintf(e.Stderr, "progress %v\n", p.Progress)
				}})
				errs <- err
			}()
		}
		var first error
		for i := 0; i < 2; i++ {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	case "mcpcheck-pagination":
		// The generic flow, then every page of the prompts.
		if err := flow(e, tools, call); err != nil {
			return err
		}
		ps, err := c.ListPrompts(ctx)
		fmt.Fprintf(e.Stderr, "%d prompts listed\n", len(ps))
		return err
	case "mcpcheck-tasks-list":
		// Call the tools (the task ones run as tasks), then list the tasks.
		if err := flow(e, tools, call); err != nil {
			return err
		}
		ts, err := c.ListTasks(ctx)
		fmt.Fprintf(e.Stderr, "%d tasks listed\n", len(ts))
		return err
	case "mcpcheck-tasks-cancel":
		// Give up on each tool after 300 ms: a task still running is
		// cancelled.
		for _, t := range tools {
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err := c.CallTool(cctx, t.Name, minimalArgs(t.InputSchema), nil)
			cancel()
			if err != nil {
				fmt.Fprintf(e.Stderr, "%s: %v\n", t.Name, err)
			}
		}
		return nil
	}
	if strings.HasPrefix(scenario, "mcpcheck-") {
		return flow(e, tools, call)
	}
	if strings.HasPrefix(scenario, "auth/") {
		// Authorize (done by listing), then call the protected tool.
		for _, t := range tools {
			if t.Name == "test-tool" {
				return call("test-tool", map[string]any{})
			}
		}
	}
	// initialize, request-metadata, json-schema-ref-no-deref and unknown
	// scenarios: connecting and listing the tools is the whole flow.
	return nil
}

// flow is what the client does in mcpcheck's own scenarios: call every
// listed tool once with minimal arguments (the tools were listed, all
// pages, when the client connected), then exit. A tool that fails is
// reported and the flow goes on.
func flow(e Env, tools []mcp.Tool, call func(string, any) error) error {
	for _, t := range tools {
		if err := call(t.Name, minimalArgs(t.InputSchema)); err != nil {
			fmt.Fprintf(e.Stderr, "%v\n", err)
		}
	}
	return nil
}

// minimalArgs builds arguments from an inputSchema: every required
// property with its schema's first enum value, default, or the simplest
// value of its type.
func minimalArgs(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type    any   `json:"type"`
			Enum    []any `json:"enum"`
			Default any   `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.Default != nil:
			args[name] = p.Default
		default:
			typ, _ := p.Type.(string)
			if list, ok := p.Type.([]any); ok && len(list) > 0 {
				typ, _ = list[0].(string)
			}
			switch typ {
			case "number", "integer":
				args[name] = 1
			case "boolean":
				args[name] = true
			case "object":
				args[name] = map[string]any{}
			case "array":
				args[name] = []any{}
			case "null":
				args[name] = nil
			default:
				args[name] = "mcpcheck"
			}
		}
	}
	return args
}

// answerDelay waits ms milliseconds (the scripted user's or model's
// thinking time), or until ctx ends.
func answerDelay(ctx context.Context, ms int64) error {
	if ms <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
