// Package toolpolicy decides which of a target's tools mcpcheck may call
// black-box, and keeps what it generates for them from consenting to
// anything. The spec's annotation defaults are the rule: a tool is
// presumed to modify its environment (readOnlyHint false) and, when it
// does, to be destructive (destructiveHint true), so a tool without
// annotations is treated as destructive. The tiers widen from there:
//
//	readonly  only tools annotated readOnlyHint: true (the default)
//	additive  also tools annotated destructiveHint: false
//	all       every tool
//
// and tool names widen a tier (or make a list of their own). Checks of
// the scenarios and the fuzzer's tool-call mutator go through Decide; the
// sessions of a run refuse a tools/call the policy does not allow, as a
// last line (session.Config.Guard).
package toolpolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Tier is how far a policy trusts the target's annotations.
type Tier string

// The tiers of --call-tools.
const (
	// ReadOnly calls the tools annotated readOnlyHint: true (the
	// default).
	ReadOnly Tier = "readonly"
	// Additive also calls the tools annotated destructiveHint: false:
	// they may add to their environment but do not destroy anything.
	Additive Tier = "additive"
	// All calls every tool.
	All Tier = "all"
	// Named calls only the tools Policy.Names lists.
	Named Tier = "named"
)

// safeAlias is the name the default tier had when it called every tool
// not annotated destructive; it now means ReadOnly, the safer reading.
const safeAlias = "safe"

// Class is what a tool's annotations say it does to its environment,
// with the spec's defaults for what they leave out.
type Class string

// The classes of tools.
const (
	// ClassReadOnly tools declare readOnlyHint: true.
	ClassReadOnly Class = "read-only"
	// ClassAdditive tools declare destructiveHint: false (and are not
	// read-only).
	ClassAdditive Class = "additive"
	// ClassDestructive tools are all the others: the spec presumes a
	// tool that may modify its environment to be destructive.
	ClassDestructive Class = "destructive"
)

// ClassOf classifies a tool by its annotations.
func ClassOf(tl mcp.Tool) Class {
	a := tl.Annotations
	switch {
	case a == nil:
		return ClassDestructive
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return ClassReadOnly
	case a.DestructiveHint != nil && !*a.DestructiveHint:
		return ClassAdditive
	}
	return ClassDestructive
}

// Annotated says in a few words what the annotations that decided the
// class are ("readOnlyHint: true", "no annotations", ...).
func Annotated(tl mcp.Tool) string {
	a := tl.Annotations
	if a == nil || (a.ReadOnlyHint == nil && a.DestructiveHint == nil) {
		if a == nil {
			return "no annotations"
		}
		return "neither readOnlyHint nor destructiveHint"
	}
	var parts []string
	if a.ReadOnlyHint != nil {
		parts = append(parts, fmt.Sprintf("readOnlyHint: %t", *a.ReadOnlyHint))
	}
	if a.DestructiveHint != nil {
		parts = append(parts, fmt.Sprintf("destructiveHint: %t", *a.DestructiveHint))
	}
	return strings.Join(parts, ", ")
}

// Policy says which of the target's tools mcpcheck may call and with
// which arguments. The zero value is the ReadOnly tier with generated
// arguments.
type Policy struct {
	// Calls is the tier; "" means ReadOnly.
	Calls Tier
	// Names are tools called whatever their annotations: on top of the
	// tier, or alone with Named.
	Names []string
	// Args are the arguments a user gives per tool name, each object a
	// call; a tool without an entry gets arguments generated from its
	// inputSchema.
	Args map[string][]json.RawMessage
	// ArgsFile is where Args came from (for the report).
	ArgsFile string
}

// Parse reads a --call-tools value: a tier (readonly, additive, all),
// tool names separated by commas (only those are called), or a tier
// followed by names (the tier and those). "safe", the old name of the
// default, means readonly.
func Parse(s string) (Policy, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Policy{Calls: ReadOnly}, nil
	}
	p := Policy{Calls: Named}
	seen := map[string]bool{}
	for i, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return Policy{}, fmt.Errorf("--call-tools %q has an empty entry; give a tier (readonly, additive, all), tool names, or a tier and names, separated by commas", s)
		}
		if t, ok := tierOf(n); ok {
			if i > 0 {
				return Policy{}, fmt.Errorf("--call-tools %q: the tier %q must come first (e.g. --call-tools %s,%s)", s, n, t, strings.Join(p.Names, ","))
			}
			p.Calls = t
			continue
		}
		if !seen[n] {
			p.Names = append(p.Names, n)
			seen[n] = true
		}
	}
	if p.Calls == All && len(p.Names) > 0 {
		return Policy{}, fmt.Errorf("--call-tools %q: all calls every tool already; drop the names", s)
	}
	return p, nil
}

func tierOf(s string) (Tier, bool) {
	switch s {
	case string(ReadOnly), safeAlias:
		return ReadOnly, true
	case string(Additive):
		return Additive, true
	case string(All):
		return All, true
	}
	return "", false
}

// Validate reports a policy that cannot be used.
func (p Policy) Validate() error {
	switch p.Calls {
	case "", ReadOnly, Additive:
	case All:
		if len(p.Names) > 0 {
			return fmt.Errorf("tool policy all takes no tool names (%v): it calls every tool", p.Names)
		}
	case Named:
		if len(p.Names) == 0 {
			return errors.New("the named tool policy needs at least one tool name")
		}
	case safeAlias:
		return fmt.Errorf("tool policy %q is the old name of readonly; use readonly (toolpolicy.ReadOnly)", p.Calls)
	default:
		return fmt.Errorf("tool policy %q is unknown; use readonly, additive, all or a list of tool names", p.Calls)
	}
	return nil
}

// Tier is the policy's tier, ReadOnly when unset.
func (p Policy) Tier() Tier {
	if p.Calls == "" {
		return ReadOnly
	}
	return p.Calls
}

// String is the policy as --call-tools takes it.
func (p Policy) String() string {
	switch t := p.Tier(); {
	case t == Named:
		return strings.Join(p.Names, ",")
	case len(p.Names) > 0:
		return string(t) + "," + strings.Join(p.Names, ",")
	default:
		return string(t)
	}
}

// NamesTool reports whether the policy names the tool explicitly.
func (p Policy) NamesTool(name string) bool {
	for _, n := range p.Names {
		if n == name {
			return true
		}
	}
	return false
}

// Decision is what a policy decides for one tool.
type Decision struct {
	// Call is whether mcpcheck may call the tool.
	Call bool
	// Class is what the annotations make of the tool.
	Class Class
	// Why says why: for a tool not called, what in its annotations the
	// policy does not accept.
	Why string
	// Include is the exact --call-tools value that would also call the
	// tool ("" when it is called).
	Include string
}

// Decide says whether the policy lets mcpcheck call tl.
func (p Policy) Decide(tl mcp.Tool) Decision {
	c := ClassOf(tl)
	d := Decision{Class: c}
	if p.NamesTool(tl.Name) {
		d.Call, d.Why = true, "named by --call-tools"
		return d
	}
	t := p.Tier()
	switch {
	case t == All:
		d.Call, d.Why = true, "--call-tools all"
		return d
	case c == ClassReadOnly && (t == ReadOnly || t == Additive):
		d.Call, d.Why = true, "annotated readOnlyHint: true"
		return d
	case c == ClassAdditive && t == Additive:
		d.Call, d.Why = true, "annotated destructiveHint: false (--call-tools additive)"
		return d
	}
	switch {
	case t == Named:
		d.Why = "not named by --call-tools"
	case c == ClassAdditive:
		d.Why = "annotated destructiveHint: false but not read-only: it may change its environment"
	case tl.Annotations == nil || (tl.Annotations.ReadOnlyHint == nil && tl.Annotations.DestructiveHint == nil):
		d.Why = "no readOnlyHint or destructiveHint: the spec presumes such a tool may change its environment destructively"
	case tl.Annotations.DestructiveHint != nil && *tl.Annotations.DestructiveHint:
		d.Why = "annotated destructiveHint: true"
	default:
		d.Why = fmt.Sprintf("%s, and destructiveHint defaults to true", Annotated(tl))
	}
	d.Include = p.with(tl.Name)
	return d
}

// with is the --call-tools value of p that also names tool.
func (p Policy) with(tool string) string {
	if p.Tier() == Named {
		return strings.Join(append(append([]string(nil), p.Names...), tool), ",")
	}
	return string(p.Tier()) + "," + strings.Join(append(append([]string(nil), p.Names...), tool), ",")
}

// Misuse reports whether a check may send tl deliberately wrong input
// (arguments that break its inputSchema, to judge the error): only a
// read-only tool, or one the user opted into by name or with all. A tool
// that may change its environment is not poked with input its author
// did not plan for unless asked.
func (p Policy) Misuse(tl mcp.Tool) bool {
	if !p.Decide(tl).Call {
		return false
	}
	return ClassOf(tl) == ClassReadOnly || p.Tier() == All || p.NamesTool(tl.Name)
}
