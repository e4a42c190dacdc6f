package reports

import (
	"fmt"
	"strings"
)

// ToolPolicy is the tool-call policy of a server run: which tools mcpcheck
// called black-box, and where their arguments came from.
type ToolPolicy struct {
	// Calls is "safe" (tools not annotated destructive), "all", or
	// "named" (only the tools of Names).
	Calls string `json:"calls"`
	// Names are the tools --call-tools named (Calls "named").
	Names []string `json:"names,omitempty"`
	// ArgsFile is the --tool-args file, if one was given.
	ArgsFile string `json:"argsFile,omitempty"`
	// ArgsFor are the tools that file gives arguments for; the others'
	// arguments are generated from their inputSchema.
	ArgsFor []string `json:"argsFor,omitempty"`
}

// String says the policy in one line, for the headers of the reports.
func (p *ToolPolicy) String() string {
	if p == nil {
		return ""
	}
	var s string
	switch p.Calls {
	case "all":
		s = "all tools called (--call-tools all)"
	case "named":
		s = fmt.Sprintf("only %s called (--call-tools)", strings.Join(p.Names, ", "))
	default:
		s = "safe: tools annotated destructive are not called (--call-tools all calls them)"
	}
	if p.ArgsFile != "" {
		s += fmt.Sprintf("; arguments for %s from %s, the others generated from inputSchema", strings.Join(p.ArgsFor, ", "), p.ArgsFile)
	}
	return s
}
