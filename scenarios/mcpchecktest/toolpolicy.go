package mcpchecktest

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
)

// ToolPolicy says which of the server's tools the checks may call, and
// with which arguments, as mcpcheck server --call-tools and --tool-args
// do. The zero value calls only the tools annotated readOnlyHint: true
// (the spec presumes any other tool may be destructive), with arguments
// generated from their inputSchema that never consent to anything.
// ToolPolicy{Calls: CallAll} calls every tool, which is for a disposable
// instance of the server. A tool it names that the server does not list
// makes Run fail.
type ToolPolicy struct {
	// Calls is the tier: CallReadOnly (also ""), CallAdditive, CallAll or
	// CallNamed.
	Calls string
	// Names are tools called whatever their annotations: on top of the
	// tier, or alone with CallNamed.
	Names []string
	// Args are the arguments to call a tool with, per tool name, each
	// object one call; a tool without an entry gets generated arguments.
	Args map[string][]json.RawMessage
}

// The tiers of ToolPolicy.Calls, the values of mcpcheck server
// --call-tools.
const (
	// CallReadOnly calls the tools annotated readOnlyHint: true.
	CallReadOnly = "readonly"
	// CallAdditive also calls the tools annotated destructiveHint: false.
	CallAdditive = "additive"
	// CallAll calls every tool.
	CallAll = "all"
	// CallNamed calls only the tools Names lists.
	CallNamed = "named"
)

// policy is p in the harness's terms.
func (p ToolPolicy) policy() toolpolicy.Policy {
	return toolpolicy.Policy{Calls: toolpolicy.Tier(p.Calls), Names: p.Names, Args: p.Args}
}
