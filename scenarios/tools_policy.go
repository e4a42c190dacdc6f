package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec/mcp"
)

// The tool-call policy: which of the target's tools the checks may call
// black-box (mcpcheck server --call-tools safe|all|NAME,...) and with
// which arguments (--tool-args FILE; otherwise generated from the
// inputSchema, tools_args.go). Checks that need a particular fixture by
// name (test_*, ref_*) call it whatever the policy; every other tool call
// goes through T.toolsCallable, and a check that had to leave tools out
// says which and why (T.toolsSkipped).

// ToolCalls is the kind of a tool-call policy.
type ToolCalls string

// The tool-call policies.
const (
	// CallSafe calls the tools not annotated destructive (the default):
	// a tool with destructiveHint true, and readOnlyHint not true, is
	// never called.
	CallSafe ToolCalls = "safe"
	// CallAll calls every tool.
	CallAll ToolCalls = "all"
	// CallNamed calls only the tools ToolPolicy.Names lists.
	CallNamed ToolCalls = "named"
)

// ToolPolicy says which of the target's tools mcpcheck may call and with
// which arguments. The zero value is the safe policy with generated
// arguments.
type ToolPolicy struct {
	// Calls is the policy; "" means CallSafe.
	Calls ToolCalls
	// Names are the tools CallNamed calls.
	Names []string
	// Args are the arguments a user gives per tool name, each object a
	// call; a tool without an entry gets arguments generated from its
	// inputSchema.
	Args map[string][]json.RawMessage
	// ArgsFile is where Args came from (for the report).
	ArgsFile string
}

// ParseToolPolicy reads a --call-tools value: safe, all, or a comma list
// of tool names.
func ParseToolPolicy(s string) (ToolPolicy, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", string(CallSafe):
		return ToolPolicy{Calls: CallSafe}, nil
	case string(CallAll):
		return ToolPolicy{Calls: CallAll}, nil
	}
	p := ToolPolicy{Calls: CallNamed}
	seen := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return ToolPolicy{}, fmt.Errorf("--call-tools %q has an empty tool name; give safe, all, or tool names separated by commas (no empty entries)", s)
		}
		if n == string(CallSafe) || n == string(CallAll) {
			return ToolPolicy{}, fmt.Errorf("--call-tools %q mixes the policy %q with tool names; give safe, all, or a list of tool names", s, n)
		}
		if !seen[n] {
			p.Names = append(p.Names, n)
			seen[n] = true
		}
	}
	return p, nil
}

// ReadToolArgs reads a --tool-args file (see ParseToolArgs).
func ReadToolArgs(path string) (map[string][]json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tool-args: %v; give a readable JSON file", err)
	}
	args, err := ParseToolArgs(b)
	if err != nil {
		return nil, fmt.Errorf("--tool-args %s: %v", path, err)
	}
	return args, nil
}

// ParseToolArgs reads the arguments a user gives: a JSON object from tool
// name to one arguments object, or to an array of arguments objects (the
// tool is called once with each).
func ParseToolArgs(b []byte) (map[string][]json.RawMessage, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&top); err != nil || top == nil {
		why := "it is not a JSON object"
		if err != nil {
			why = "it is not a JSON object: " + err.Error()
		}
		return nil, fmt.Errorf(`%s; write {"tool-name": {"arg": "value"}, "other-tool": [{...}, {...}]}`, why)
	}
	if dec.More() {
		return nil, errors.New("it holds more than one JSON value; write one object mapping tool names to arguments")
	}
	out := map[string][]json.RawMessage{}
	for name, raw := range top {
		raw = bytes.TrimSpace(raw)
		switch {
		case name == "":
			return nil, errors.New("an entry has an empty tool name; use the names tools/list gives")
		case len(raw) > 0 && raw[0] == '{':
			out[name] = []json.RawMessage{raw}
		case len(raw) > 0 && raw[0] == '[':
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("the arguments of %q: %v", name, err)
			}
			if len(list) == 0 {
				return nil, fmt.Errorf("the arguments of %q are an empty list; give at least one arguments object, or drop the entry", name)
			}
			for i, a := range list {
				a = bytes.TrimSpace(a)
				if len(a) == 0 || a[0] != '{' {
					return nil, fmt.Errorf("argument set %d of %q is %s, not a JSON object; each call's arguments are an object", i+1, name, clip(a))
				}
				out[name] = append(out[name], a)
			}
		default:
			return nil, fmt.Errorf("the arguments of %q are %s; give an object, or an array of objects (one call each)", name, clip(raw))
		}
	}
	return out, nil
}

// Validate reports a policy that cannot be used.
func (p ToolPolicy) Validate() error {
	switch p.Calls {
	case "", CallSafe, CallAll:
		if len(p.Names) > 0 {
			return fmt.Errorf("tool policy %s takes no tool names (%v); use the named policy", p.calls(), p.Names)
		}
	case CallNamed:
		if len(p.Names) == 0 {
			return errors.New("the named tool policy needs at least one tool name")
		}
	default:
		return fmt.Errorf("tool policy %q is unknown; use safe, all or a list of tool names", p.Calls)
	}
	return nil
}

func (p ToolPolicy) calls() ToolCalls {
	if p.Calls == "" {
		return CallSafe
	}
	return p.Calls
}

// String is the policy as --call-tools takes it.
func (p ToolPolicy) String() string {
	if p.calls() == CallNamed {
		return strings.Join(p.Names, ",")
	}
	return string(p.calls())
}

// Report is the policy as the report states it.
func (p ToolPolicy) Report() *reports.ToolPolicy {
	r := &reports.ToolPolicy{Calls: string(p.calls()), Names: append([]string(nil), p.Names...), ArgsFile: p.ArgsFile}
	for name := range p.Args {
		r.ArgsFor = append(r.ArgsFor, name)
	}
	sort.Strings(r.ArgsFor)
	if len(p.Args) > 0 && r.ArgsFile == "" {
		r.ArgsFile = "(given)"
	}
	return r
}

// mentioned maps the tool names the policy itself mentions (--call-tools
// names and --tool-args entries) to the flag that mentions them.
func (p ToolPolicy) mentioned() map[string]string {
	out := map[string]string{}
	for name := range p.Args {
		out[name] = "--tool-args gives arguments for"
	}
	for _, name := range p.Names {
		out[name] = "--call-tools names"
	}
	return out
}

// allows reports whether the policy lets mcpcheck call tl black-box, and
// why not.
func (p ToolPolicy) allows(tl mcp.Tool) (bool, string) {
	switch p.calls() {
	case CallAll:
		return true, ""
	case CallNamed:
		for _, n := range p.Names {
			if n == tl.Name {
				return true, ""
			}
		}
		return false, "not named by --call-tools"
	}
	if !featuresSafe(tl) {
		return false, "annotated destructive"
	}
	return true, ""
}

// ErrToolPolicy is what Run wraps when the policy names tools the target
// does not list in any version run.
var ErrToolPolicy = errors.New("the tool policy names tools the server does not list")

// toolsSeen collects, for one run, the names the target listed in the
// versions whose tool list a policy check read.
type toolsSeen struct {
	mu     sync.Mutex
	listed map[string]bool
	any    bool
}

func (s *toolsSeen) note(tools []mcp.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed == nil {
		s.listed = map[string]bool{}
	}
	s.any = true
	for _, tl := range tools {
		s.listed[tl.Name] = true
	}
}

// unknown returns an error naming the tools the policy mentions that the
// target listed in no version (nil when every one was listed, or no list
// was read).
func (s *toolsSeen) unknown(p ToolPolicy) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.any {
		return nil
	}
	var bad []string
	for name, how := range p.mentioned() {
		if !s.listed[name] {
			bad = append(bad, fmt.Sprintf("%s %q", how, name))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	listed := make([]string, 0, len(s.listed))
	for name := range s.listed {
		listed = append(listed, name)
	}
	sort.Strings(listed)
	if len(listed) > 20 {
		listed = append(listed[:20], fmt.Sprintf("and %d more", len(listed)-20))
	}
	return fmt.Errorf("%w: %s, which the server lists in none of the versions run (it lists: %s); fix the name or drop it", ErrToolPolicy, strings.Join(bad, "; "), strings.Join(listed, ", "))
}

// runToolsSeen holds the toolsSeen of each run in progress.
var runToolsSeen sync.Map // *runner -> *toolsSeen

func (r *runner) toolsSeen() *toolsSeen {
	s, _ := runToolsSeen.LoadOrStore(r, &toolsSeen{})
	return s.(*toolsSeen)
}

// toolPolicy is the run's policy.
func (t *T) toolPolicy() ToolPolicy { return t.vr.r.cfg.ToolPolicy }

// policyTools lists the target's tools (T.Tools) and notes them for the
// run's check of the names the policy mentions.
func (t *T) policyTools() ([]mcp.Tool, bool) {
	tools, ok := t.Tools()
	if ok {
		t.vr.r.toolsSeen().note(tools)
	}
	return tools, ok
}

// toolsCallable returns the indexes of the tools the policy lets a check
// call, in the order checks prefer them: those that declare readOnlyHint,
// then those not annotated destructive, then the rest. With plainOnly the
// tools that must run as a task are left out.
func (t *T) toolsCallable(tools []mcp.Tool, plainOnly bool) []int {
	p := t.toolPolicy()
	var ro, safe, rest []int
	for _, i := range featuresReadOnlyFirst(tools) {
		tl := tools[i]
		if ok, _ := p.allows(tl); !ok || (plainOnly && !toolsPlainCall(tl)) {
			continue
		}
		switch {
		case tl.Annotations != nil && tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint:
			ro = append(ro, i)
		case featuresSafe(tl):
			safe = append(safe, i)
		default:
			rest = append(rest, i)
		}
	}
	return append(append(ro, safe...), rest...)
}

// toolCallable reports whether a check may call tl (plainly, with
// plainOnly).
func (t *T) toolCallable(tl mcp.Tool, plainOnly bool) bool {
	ok, _ := t.toolPolicy().allows(tl)
	return ok && (!plainOnly || toolsPlainCall(tl))
}

// toolsSkipped says which of tools (those a check would call: filter
// keeps them) the safe policy left out and why, as an untestable reason
// would ("policy safe skipped 3 tools annotated destructive: a, b, c; use
// --call-tools all"); "" when it left none out. Tools a --call-tools list
// does not name are the user's choice, not something left untested: see
// toolsUnnamed.
func (t *T) toolsSkipped(tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	p := t.toolPolicy()
	if p.calls() != CallSafe {
		return ""
	}
	var names []string
	for _, tl := range tools {
		if filter(tl) {
			if ok, _ := p.allows(tl); !ok {
				names = append(names, tl.Name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("policy safe skipped %d %s annotated destructive: %s; use --call-tools all (or name them) to call them", len(names), plural(len(names), "tool", "tools"), listNames(names))
}

// toolsUnnamed says how many of tools (filter keeps them) a --call-tools
// list left out; "" for the other policies or none.
func (t *T) toolsUnnamed(tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	p := t.toolPolicy()
	if p.calls() != CallNamed {
		return ""
	}
	n := 0
	for _, tl := range tools {
		if ok, _ := p.allows(tl); !ok && filter(tl) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("--call-tools %s left out %d other %s", p.String(), n, plural(n, "tool", "tools"))
}

// toolsNotListed are the tools the policy mentions (--call-tools names,
// --tool-args entries) that tools does not hold, sorted.
func (t *T) toolsNotListed(tools []mcp.Tool) []string {
	listed := map[string]bool{}
	for _, tl := range tools {
		listed[tl.Name] = true
	}
	var out []string
	for name := range t.toolPolicy().mentioned() {
		if !listed[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// policyReason is an untestable reason: why, then what the policy left
// out of tools (those filter keeps), if anything.
func (t *T) policyReason(why string, tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	if skipped := t.toolsSkipped(tools, filter); skipped != "" {
		return why + " (" + skipped + ")"
	}
	if unnamed := t.toolsUnnamed(tools, filter); unnamed != "" {
		return why + " (" + unnamed + ")"
	}
	return why
}

// toolArgSets are the arguments to call tl with: those --tool-args gives
// (one call each), or one set generated from its inputSchema; why says
// why there are none.
func (t *T) toolArgSets(tl mcp.Tool) (sets []json.RawMessage, given bool, why string) {
	if a, ok := t.toolPolicy().Args[tl.Name]; ok {
		return a, true, ""
	}
	b, why := featuresArgsWhy(tl)
	if why != "" {
		return nil, false, why + "; give arguments with --tool-args"
	}
	return []json.RawMessage{b}, false, ""
}

// toolArgs is the first set of toolArgSets: the arguments a check that
// calls tl once uses.
func (t *T) toolArgs(tl mcp.Tool) (json.RawMessage, bool) {
	sets, _, _ := t.toolArgSets(tl)
	if len(sets) == 0 {
		return nil, false
	}
	return sets[0], true
}

// listNames joins names for a report, at most 12 of them.
func listNames(names []string) string {
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
