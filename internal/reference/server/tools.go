package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// listTools serves tools/list.
func listTools(r *request) (any, error) {
	var p mcp.PaginatedParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if err := r.faultListRefused(); err != nil {
		return nil, err
	}
	all := r.srv.fx.sortedTools(r.v)
	if r.srv.faults.on(FaultClientInfoDependent) {
		var kept []*toolFixture
		for _, t := range all {
			if !r.hiddenFromClient(t.def.Name) {
				kept = append(kept, t)
			}
		}
		all = kept
	}
	page, next, err := paginate(r.srv, "tools", all, func(t *toolFixture) string { return t.def.Name }, p.Cursor)
	if err != nil {
		return nil, err
	}
	res := toolList{Tools: make([]json.RawMessage, len(page)), Cacheable: cache(r, 300000, mcp.CachePublic)}
	res.NextCursor = next
	for i, t := range page {
		if res.Tools[i], err = t.encoded(r.v); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// toolList is a tools/list result whose tools are encoded already: it
// encodes exactly as mcp.ListToolsResult with the same fields.
type toolList struct {
	mcp.ResultBase
	mcp.PaginatedResult
	mcp.Cacheable
	Tools []json.RawMessage `json:"tools"`
}

// encoded returns the tool's definition as version v lists it, encoded
// once per version: a tool's definition does not change once it is
// served, and encoding the whole list on every tools/list was most of
// what answering one cost.
func (t *toolFixture) encoded(v spec.Version) (json.RawMessage, error) {
	if b, ok := t.enc.Load(v); ok {
		return b.(json.RawMessage), nil
	}
	b, err := json.Marshal(shapeTool(v, t.def))
	if err != nil {
		return nil, fmt.Errorf("tools/list: cannot encode tool %q: %w", t.def.Name, err)
	}
	t.enc.Store(v, json.RawMessage(b))
	return b, nil
}

// call is one tools/call being run: the request, the tool, its arguments
// and (2026-07-28) the client's input responses and verified request state.
type call struct {
	r      *request
	tool   *toolFixture
	args   map[string]json.RawMessage
	inputs map[string]json.RawMessage
	state  map[string]any // verified requestState payload, nil if none
	task   *task          // set when running as a 2025-11-25 task
}

// callTool serves tools/call.
func callTool(r *request) (any, error) {
	var p struct {
		Name           string          `json:"name"`
		Arguments      json.RawMessage `json:"arguments"`
		Task           json.RawMessage `json:"task"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
	}
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("tools/call needs a tool name in params.name")
	}
	t := r.srv.fx.tool(p.Name)
	if t == nil {
		t = r.srv.faultUnknownTool(p.Name)
	}
	if t == nil || !t.availableIn(r.v, false) {
		return nil, &Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("Unknown tool: %q; call tools/list for the tools this server offers", p.Name)}
	}
	c := &call{r: r, tool: t, args: map[string]json.RawMessage{}}
	if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
		if err := json.Unmarshal(p.Arguments, &c.args); err != nil {
			return nil, invalidParams("tools/call arguments must be a JSON object: %v", err)
		}
	}
	if r.stateless() {
		if t.extSupport == mcp.TaskRequired && !extDeclared(r.caps) {
			return nil, missingTasksExtension()
		}
		if !t.custom {
			if err := c.readInputs(p.InputResponses, p.RequestState); err != nil {
				return nil, err
			}
		}
	}
	reason := ""
	if t.custom {
		// A Tool of Options.Tools judges its own arguments.
	} else if missing := missingRequired(t.def.InputSchema, c.args); missing != "" {
		reason = fmt.Sprintf("argument %q is required by %s's inputSchema", missing, t.def.Name)
	} else {
		args, _ := json.Marshal(c.args)
		if why := r.srv.validateArgs(t, args); why != "" {
			reason = fmt.Sprintf("the arguments do not match %s's inputSchema: %s", t.def.Name, why)
		}
	}
	if reason != "" && !r.srv.faults.on(FaultToolArgsUnchecked) {
		// Input validation failures are tool execution errors from
		// 2025-11-25 on, protocol errors before.
		if since(r.v, spec.V20251125) {
			return errorResult("Input validation error: " + reason), nil
		}
		return nil, invalidParams("Input validation error: %s", reason)
	}
	if r.v == spec.V20251125 {
		support := mcp.TaskForbidden
		if t.def.Execution != nil && t.def.Execution.TaskSupport != "" {
			support = t.def.Execution.TaskSupport
		}
		augmented := len(p.Task) > 0 && string(p.Task) != "null"
		switch {
		case augmented && support == mcp.TaskForbidden:
			return nil, &Error{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("tool %q does not support task-augmented calls (execution.taskSupport is forbidden); call it without params.task", t.def.Name)}
		case !augmented && support == mcp.TaskRequired:
			return nil, &Error{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("tool %q must be called as a task (execution.taskSupport is required); add params.task", t.def.Name)}
		case augmented:
			var tm mcp.TaskMetadata
			if err := json.Unmarshal(p.Task, &tm); err != nil {
				return nil, invalidParams("params.task must be an object with an optional integer ttl: %v", err)
			}
			return r.s.tasks.start(c, tm)
		}
	}
	return c.run()
}

// run runs the tool and shapes its result for the version.
func (c *call) run() (any, error) {
	res, err := c.tool.run(c)
	if err != nil {
		return nil, err
	}
	if ctr, ok := res.(*mcp.CallToolResult); ok {
		return shapeCallResult(c.r.v, ctr), nil
	}
	return res, nil
}

// missingRequired returns the first property the schema requires that args
// lack, or "".
func missingRequired(schema json.RawMessage, args map[string]json.RawMessage) string {
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			return name
		}
	}
	return ""
}

// str returns a string argument ("" when absent or not a string).
func (c *call) str(name string) string {
	var s string
	_ = json.Unmarshal(c.args[name], &s)
	return s
}

// num returns a number argument, or def when absent or not a number.
func (c *call) num(name string, def float64) float64 {
	var f float64
	if json.Unmarshal(c.args[name], &f) != nil {
		return def
	}
	return f
}

func (c *call) ctx() context.Context {
	if c.task != nil {
		return c.task.ctx
	}
	return c.r.ctx
}

// sleep pauses the fixture for d, or until the call is cancelled.
func (c *call) sleep(d time.Duration) error {
	if d <= 0 {
		return c.ctx().Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-c.ctx().Done():
		return c.ctx().Err()
	}
}

// step is the fixture pause between steps (Options.StepDelay).
func (c *call) step() error { return c.sleep(c.r.srv.opts.StepDelay) }

// emit sends a notification related to the call: on the request's stream,
// or, for a task, on the session's general stream tagged with the task.
func (c *call) emit(method string, params any) {
	if c.task != nil {
		if c.task.terminal() {
			return
		}
		b, err := jsonrpc.NewNotification(method, withRelatedTask(params, c.task.id))
		if err == nil {
			_ = c.task.sink().Send(b)
		}
		return
	}
	c.r.notify(method, params)
}

// log sends a log message if the level passes the threshold.
func (c *call) log(level mcp.LoggingLevel, data any) {
	if !c.r.logAllowed(level) {
		return
	}
	b, _ := json.Marshal(data)
	c.emit(spec.MethodLoggingMessage, mcp.LoggingMessageParams{Level: level, Logger: "reference-server", Data: b})
	if c.r.stateless() && c.r.srv.faults.on(FaultLogOnListenStream) {
		c.r.srv.broadcastListen(func(mcp.SubscriptionFilter) bool { return true }, spec.MethodLoggingMessage, mcp.LoggingMessageParams{Level: level, Logger: "reference-server", Data: b})
	}
}

// ask sends a request to the client (stateful versions only) on the call's
// stream and returns the raw result.
func (c *call) ask(method string, params any) (json.RawMessage, error) {
	if c.r.s == nil {
		return nil, internalError("%s cannot be sent as a request in protocol version %s; use input_required", method, c.r.v)
	}
	if ep, ok := params.(*mcp.ElicitParams); ok && !since(c.r.v, spec.V20251125) && ep.Mode == mcp.ElicitForm {
		cp := *ep
		cp.Mode = "" // the mode member exists from 2025-11-25
		params = &cp
	}
	out := c.r.out
	if c.task != nil {
		out = c.task.sink()
		params = withRelatedTask(params, c.task.id)
		c.task.setStatus(mcp.TaskInputRequired, "waiting for the client to answer "+method)
		defer c.task.setStatus(mcp.TaskWorking, "")
	}
	return c.r.s.call(c.ctx(), out, method, params)
}

// withRelatedTask returns params with the related-task _meta key set.
func withRelatedTask(params any, taskID string) json.RawMessage {
	b, _ := json.Marshal(params)
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var meta mcp.Meta
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta.SetRelatedTask(taskID)
	m["_meta"], _ = json.Marshal(meta)
	out, _ := json.Marshal(m)
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
