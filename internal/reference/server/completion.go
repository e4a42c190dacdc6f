package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// complete serves completion/complete for prompt arguments and template
// variables: up to 100 values that start with the typed prefix.
func complete(r *request) (any, error) {
	if r.stateless() && r.srv.faults.on(FaultInputRequiredOnComplete) {
		return inputRequired(r, map[string]mcp.InputRequest{"value": elicitRequest("Which value should be completed?", "value", "string")}, "")
	}
	var p mcp.CompleteParams
	if err := r.decodeParams(&p); err != nil {
		return nil, err
	}
	if res, err, ok := r.faultComplete(&p); ok {
		return res, err
	}
	var pool []string
	switch p.Ref.Type {
	case mcp.RefPrompt:
		r.srv.fx.mu.RLock()
		x := r.srv.fx.prompts[p.Ref.Name]
		r.srv.fx.mu.RUnlock()
		if x == nil {
			return nil, invalidParams("Unknown prompt %q in completion reference", p.Ref.Name)
		}
		pool = []string{"test", "testing", "tested", "value", "value-" + p.Argument.Name}
		for i := 0; i < 150; i++ {
			pool = append(pool, fmt.Sprintf("item-%03d", i))
		}
	case mcp.RefResource:
		pool = []string{"1", "2", "3", "123", "1234"}
	default:
		return nil, invalidParams("Unknown completion reference type %q: use ref/prompt or ref/resource", p.Ref.Type)
	}
	var values []string
	for _, v := range pool {
		if len(v) >= len(p.Argument.Value) && v[:len(p.Argument.Value)] == p.Argument.Value {
			values = append(values, v)
		}
	}
	total := int64(len(values))
	more := len(values) > 100
	if more && !r.srv.faults.on(FaultCompletionUnbounded) {
		values = values[:100]
	}
	if values == nil {
		values = []string{}
	}
	return mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: mcp.Int(total), HasMore: mcp.Bool(more)}}, nil
}
