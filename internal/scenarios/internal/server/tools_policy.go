package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/harness/toolpolicy"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// The tool-call policy: which of the target's tools the checks may call
// black-box (mcpcheck server --call-tools readonly|additive|all|NAME,...;
// toolpolicy) and with which arguments (--tool-args FILE; otherwise
// generated from the inputSchema, never consenting to anything:
// tools_args.go). Every call goes through it, fixtures named by the
// suites (test_*, ref_*) too: a check picks tools with T.toolsCallable or
// T.RequireTool, says which the policy left out (toolsSkipped), and the
// version's sessions refuse to send a tools/call it does not allow
// (versionRun.toolGuard). The report lists every tool with what became
// of it (toolUses).

// ToolCalls is the tier of a tool-call policy (toolpolicy.Tier).
type ToolCalls = toolpolicy.Tier

// The tool-call policies (see toolpolicy).
const (
	// CallReadOnly calls only the tools annotated readOnlyHint: true
	// (the default).
	CallReadOnly = toolpolicy.ReadOnly
	// CallAdditive also calls the tools annotated destructiveHint: false.
	CallAdditive = toolpolicy.Additive
	// CallAll calls every tool.
	CallAll = toolpolicy.All
	// CallNamed calls only the tools ToolPolicy.Names lists.
	CallNamed = toolpolicy.Named
	// CallSafe is the old name of the default; it now means
	// CallReadOnly (it used to call every tool not annotated
	// destructive, which the spec's defaults presume destructive).
	CallSafe = toolpolicy.ReadOnly
)

// ToolPolicy says which of the target's tools mcpcheck may call and with
// which arguments (toolpolicy.Policy). The zero value is the readonly
// tier with generated arguments.
type ToolPolicy = toolpolicy.Policy

// ParseToolPolicy reads a --call-tools value (toolpolicy.Parse).
func ParseToolPolicy(s string) (ToolPolicy, error) { return toolpolicy.Parse(s) }

// ReadToolArgs reads a --tool-args file (toolpolicy.ReadArgs).
func ReadToolArgs(path string) (map[string][]json.RawMessage, error) {
	return toolpolicy.ReadArgs(path)
}

// ParseToolArgs reads the arguments a user gives (toolpolicy.ParseArgs).
func ParseToolArgs(b []byte) (map[string][]json.RawMessage, error) { return toolpolicy.ParseArgs(b) }

// policyReport is the policy as the report states it, with what became
// of every tool the run saw listed (uses, when the run kept count).
func policyReport(p ToolPolicy, uses *toolUses) *reports.ToolPolicy {
	r := &reports.ToolPolicy{Calls: string(p.Tier()), Names: append([]string(nil), p.Names...), ArgsFile: p.ArgsFile}
	for name := range p.Args {
		r.ArgsFor = append(r.ArgsFor, name)
	}
	sort.Strings(r.ArgsFor)
	if len(p.Args) > 0 && r.ArgsFile == "" {
		r.ArgsFile = "(given)"
	}
	if uses != nil {
		r.Tools = uses.report(p)
	}
	return r
}

// mentioned maps the tool names the policy itself mentions (--call-tools
// names and --tool-args entries) to the flag that mentions them.
func mentioned(p ToolPolicy) map[string]string {
	out := map[string]string{}
	for name := range p.Args {
		out[name] = "--tool-args gives arguments for"
	}
	for _, name := range p.Names {
		out[name] = "--call-tools names"
	}
	return out
}

// ErrToolPolicy is what Run wraps when the policy names tools the target
// does not list in any version run.
var ErrToolPolicy = errors.New("the tool policy names tools the server does not list")

// maxToolUses bounds the tools a run itemises in its report: a server
// that lists 200,000 tools has the rest counted.
const maxToolUses = 5000

// toolUses follows, for one run, the tools the target listed (in any
// version) and how often the checks called each: the report's list of
// what was called and what was not, and the names the policy mentions
// that the target does not list.
type toolUses struct {
	mu     sync.Mutex
	any    bool // a list was read
	tools  map[string]*toolUse
	order  []string
	more   int // tools listed past maxToolUses
	called map[string]int
}

// toolUse is one listed tool: its definition as last listed (without
// its schemas, which the report does not need).
type toolUse struct {
	tool     mcp.Tool
	versions []spec.Version
}

func (u *toolUses) note(v spec.Version, tools []mcp.Tool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.tools == nil {
		u.tools = map[string]*toolUse{}
	}
	u.any = true
	for _, tl := range tools {
		e := u.tools[tl.Name]
		if e == nil {
			if len(u.tools) >= maxToolUses {
				u.more++
				continue
			}
			e = &toolUse{}
			u.tools[tl.Name] = e
			u.order = append(u.order, tl.Name)
		}
		e.tool = mcp.Tool{Name: tl.Name, Annotations: tl.Annotations}
		if len(e.versions) == 0 || e.versions[len(e.versions)-1] != v {
			e.versions = append(e.versions, v)
		}
	}
}

// lookup returns the tool of that name as some version listed it.
func (u *toolUses) lookup(name string) (mcp.Tool, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if e := u.tools[name]; e != nil {
		return e.tool, true
	}
	return mcp.Tool{}, false
}

func (u *toolUses) call(name string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.called == nil {
		u.called = map[string]int{}
	}
	u.called[name]++
}

// report lists every tool seen with what the policy made of it.
func (u *toolUses) report(p ToolPolicy) []reports.ToolUse {
	u.mu.Lock()
	defer u.mu.Unlock()
	names := append([]string(nil), u.order...)
	sort.Strings(names)
	out := make([]reports.ToolUse, 0, len(names)+1)
	for _, name := range names {
		e := u.tools[name]
		d := p.Decide(e.tool)
		tu := reports.ToolUse{Name: name, Class: string(d.Class), Annotations: toolpolicy.Annotated(e.tool), Calls: u.called[name], Versions: e.versions}
		switch {
		case !d.Call:
			tu.Skipped, tu.Include = d.Why, "--call-tools "+d.Include
		case tu.Calls == 0:
			tu.Note = "allowed (" + d.Why + "), but no check called it"
		default:
			tu.Note = d.Why
		}
		out = append(out, tu)
	}
	if u.more > 0 {
		out = append(out, reports.ToolUse{Name: fmt.Sprintf("(%d more listed tools not itemised)", u.more), Class: "", Note: fmt.Sprintf("the report itemises the first %d tools", maxToolUses)})
	}
	return out
}

// unknown returns an error naming the tools the policy mentions that the
// target listed in no version (nil when every one was listed, or no list
// was read).
func (u *toolUses) unknown(p ToolPolicy) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.any {
		return nil
	}
	var bad []string
	for name, how := range mentioned(p) {
		if u.tools[name] == nil && u.more == 0 {
			bad = append(bad, fmt.Sprintf("%s %q", how, name))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	listed := append([]string(nil), u.order...)
	sort.Strings(listed)
	if len(listed) > 20 {
		listed = append(listed[:20], fmt.Sprintf("and %d more", len(listed)-20))
	}
	return fmt.Errorf("%w: %s, which the server lists in none of the versions run (it lists: %s); fix the name or drop it", ErrToolPolicy, strings.Join(bad, "; "), strings.Join(listed, ", "))
}

// ErrToolRefused is what a session returns for a tools/call the run's
// policy does not allow: a check tried to call a tool it should have
// left out (a harness error, never sent to the target).
var ErrToolRefused = errors.New("the tool policy does not allow this call")

// toolGuard is the version's last line of the policy
// (session.Config.Guard): a tools/call of a tool the policy does not
// allow is not sent. A tool the target lists in no version so far (a
// made-up name, to see the error) may be called.
func (vr *versionRun) toolGuard(method string, params any) error {
	if method != spec.MethodToolsCall {
		return nil
	}
	name, ok := toolpolicy.CallName(params)
	if !ok {
		return nil // no name: nothing of the target's is called
	}
	p := vr.r.cfg.ToolPolicy
	tl, listed := vr.listedTool(name)
	if !listed {
		tl, listed = vr.r.uses.lookup(name)
	}
	if listed {
		if d := p.Decide(tl); !d.Call {
			return fmt.Errorf("%w: %s is %s (%s); mcpcheck did not send it (--call-tools %s would)", ErrToolRefused, name, d.Class, d.Why, d.Include)
		}
	}
	vr.r.uses.call(name)
	return nil
}

// listedTool finds a tool in the version's own listing, when it has one.
func (vr *versionRun) listedTool(name string) (mcp.Tool, bool) {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	if !vr.toolsOK {
		return mcp.Tool{}, false
	}
	for _, tl := range vr.tools {
		if tl.Name == name {
			return tl, true
		}
	}
	return mcp.Tool{}, false
}

// toolPolicy is the run's policy.
func (t *T) toolPolicy() ToolPolicy { return t.vr.r.cfg.ToolPolicy }

// PolicyTools lists the target's tools (T.Tools, which notes them for
// the report).
func (t *T) PolicyTools() ([]mcp.Tool, bool) { return t.Tools() }

// CallableTools returns the indexes of the tools the policy lets a check
// call, in the order checks prefer them: read-only first, then additive,
// then the rest. With plainOnly the tools that must run as a task are
// left out.
func (t *T) CallableTools(tools []mcp.Tool, plainOnly bool) []int {
	p := t.toolPolicy()
	var ro, add, rest []int
	for i, tl := range tools {
		if d := p.Decide(tl); !d.Call || (plainOnly && !PlainCall(tl)) {
			continue
		}
		switch toolpolicy.ClassOf(tl) {
		case toolpolicy.ClassReadOnly:
			ro = append(ro, i)
		case toolpolicy.ClassAdditive:
			add = append(add, i)
		default:
			rest = append(rest, i)
		}
	}
	return append(append(ro, add...), rest...)
}

// toolsMisusable is toolsCallable for checks that send deliberately wrong
// input (toolpolicy.Policy.Misuse): read-only tools, or those the user
// opted into by name or with --call-tools all.
func toolsMisusable(t *T, tools []mcp.Tool, plainOnly bool) []int {
	var out []int
	for _, i := range t.CallableTools(tools, plainOnly) {
		if t.toolPolicy().Misuse(tools[i]) {
			out = append(out, i)
		}
	}
	return out
}

// toolsSkipped says which of tools (those a check would call: filter
// keeps them) the policy's tier left out and why, as an untestable
// reason would ("policy readonly skipped 3 tools not annotated
// read-only: a, b, c; --call-tools readonly,a,b,c calls them"); "" when it
// left none out. Tools a --call-tools list does not name are the user's
// choice, not something left untested: see toolsUnnamed.
func toolsSkipped(t *T, tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	p := t.toolPolicy()
	if p.Tier() == CallNamed || p.Tier() == CallAll {
		return ""
	}
	var names []string
	for _, tl := range tools {
		if filter(tl) && !p.Decide(tl).Call {
			names = append(names, tl.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	what := "not annotated read-only"
	if p.Tier() == CallAdditive {
		what = "not annotated read-only or destructiveHint: false"
	}
	with := ToolPolicy{Calls: p.Tier(), Names: append(append([]string(nil), p.Names...), names...)}
	flag := "--call-tools " + with.String()
	if len(names) > 12 {
		flag = "--call-tools all (or name them after the tier)"
	}
	return fmt.Sprintf("policy %s skipped %d %s %s, which the spec presumes may be destructive: %s; %s calls them (on a disposable instance)", p.Tier(), len(names), plural(len(names), "tool", "tools"), what, listNames(names), flag)
}

// toolsUnnamed says how many of tools (filter keeps them) a --call-tools
// list left out; "" for the other policies or none.
func toolsUnnamed(t *T, tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	p := t.toolPolicy()
	if p.Tier() != CallNamed {
		return ""
	}
	n := 0
	for _, tl := range tools {
		if filter(tl) && !p.Decide(tl).Call {
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
func toolsNotListed(t *T, tools []mcp.Tool) []string {
	listed := map[string]bool{}
	for _, tl := range tools {
		listed[tl.Name] = true
	}
	var out []string
	for name := range mentioned(t.toolPolicy()) {
		if !listed[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// PolicyReason is an untestable reason: why, then what the policy left
// out of tools (those filter keeps), if anything.
func (t *T) PolicyReason(why string, tools []mcp.Tool, filter func(mcp.Tool) bool) string {
	if skipped := toolsSkipped(t, tools, filter); skipped != "" {
		return why + " (" + skipped + ")"
	}
	if unnamed := toolsUnnamed(t, tools, filter); unnamed != "" {
		return why + " (" + unnamed + ")"
	}
	return why
}

// toolArgSets are the arguments to call tl with: those --tool-args gives
// (one call each), or one set generated from its inputSchema; why says
// why there are none.
func toolArgSets(t *T, tl mcp.Tool) (sets []json.RawMessage, given bool, why string) {
	if a, ok := t.toolPolicy().Args[tl.Name]; ok {
		return a, true, ""
	}
	b, why := featuresArgsWhy(tl)
	if why != "" {
		return nil, false, why + "; give arguments with --tool-args"
	}
	return []json.RawMessage{b}, false, ""
}

// ToolArgs is the first set of toolArgSets: the arguments a check that
// calls tl once uses.
func (t *T) ToolArgs(tl mcp.Tool) (json.RawMessage, bool) {
	sets, _, _ := toolArgSets(t, tl)
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
