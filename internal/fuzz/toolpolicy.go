package fuzz

import (
	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/mutate"
	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// CallableTools keeps the tools the policy lets the tool-call mutator call
// (toolpolicy.Policy.Decide): by default only those annotated
// readOnlyHint: true. A campaign throws random arguments at them, so a
// tool that may change its environment is fuzzed only when the user says
// so (--call-tools additive, all or its name).
func CallableTools(p toolpolicy.Policy, tools []Tool) []Tool {
	var out []mutate.Tool
	for _, tl := range tools {
		if p.Decide(mcp.Tool{Name: tl.Name, Annotations: tl.Annotations}).Call {
			out = append(out, tl)
		}
	}
	return out
}
