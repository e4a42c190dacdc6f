package toolpolicy

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

func tool(name string, ro, destr *bool) mcp.Tool {
	tl := mcp.Tool{Name: name}
	if ro != nil || destr != nil {
		tl.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: destr}
	}
	return tl
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"": "readonly", "readonly": "readonly", "safe": "readonly", "additive": "additive", "all": "all",
		"a,b": "a,b", " a , b ,a": "a,b", "additive,rm": "additive,rm", "readonly,rm,mv": "readonly,rm,mv",
	} {
		p, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("Parse(%q) = %q, want %q", in, p.String(), want)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("Parse(%q) gave a policy that does not validate: %v", in, err)
		}
	}
	for _, in := range []string{"a,,b", "rm,readonly", "all,rm", ","} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted it", in)
		}
	}
	if err := (Policy{Calls: "safe"}).Validate(); err == nil {
		t.Error("Validate accepted the old tier name safe set by hand")
	}
	if err := (Policy{Calls: Named}).Validate(); err == nil {
		t.Error("Validate accepted a named policy without names")
	}
}

func TestDecideFollowsTheSpecDefaults(t *testing.T) {
	yes, no := true, false
	ro := tool("ro", &yes, nil)
	additive := tool("add", &no, &no)
	additiveNoRO := tool("add2", nil, &no)
	bare := tool("bare", nil, nil)
	notRO := tool("notro", &no, nil)
	destr := tool("rm", nil, &yes)
	emptyAnn := mcp.Tool{Name: "empty", Annotations: &mcp.ToolAnnotations{Title: "x"}}
	cases := []struct {
		p    Policy
		tl   mcp.Tool
		call bool
	}{
		{Policy{}, ro, true}, {Policy{}, additive, false}, {Policy{}, additiveNoRO, false}, {Policy{}, bare, false},
		{Policy{}, notRO, false}, {Policy{}, destr, false}, {Policy{}, emptyAnn, false},
		{Policy{Calls: Additive}, additive, true}, {Policy{Calls: Additive}, additiveNoRO, true}, {Policy{Calls: Additive}, ro, true},
		{Policy{Calls: Additive}, bare, false}, {Policy{Calls: Additive}, notRO, false}, {Policy{Calls: Additive}, destr, false},
		{Policy{Calls: All}, destr, true}, {Policy{Calls: All}, bare, true},
		{Policy{Calls: Named, Names: []string{"rm"}}, destr, true}, {Policy{Calls: Named, Names: []string{"rm"}}, ro, false},
		{Policy{Calls: ReadOnly, Names: []string{"bare"}}, bare, true}, {Policy{Calls: ReadOnly, Names: []string{"bare"}}, ro, true},
	}
	for _, c := range cases {
		d := c.p.Decide(c.tl)
		if d.Call != c.call {
			t.Errorf("policy %s, tool %s (%s): call %t, want %t (%s)", c.p, c.tl.Name, Annotated(c.tl), d.Call, c.call, d.Why)
		}
		if !d.Call && (d.Why == "" || !strings.Contains(d.Include, c.tl.Name)) {
			t.Errorf("policy %s, tool %s: not called without a reason or a flag naming it: why %q, include %q", c.p, c.tl.Name, d.Why, d.Include)
		}
		if !d.Call {
			p2, err := Parse(d.Include)
			if err != nil || !p2.Decide(c.tl).Call {
				t.Errorf("policy %s, tool %s: the flag it gives, --call-tools %s, does not call it (%v)", c.p, c.tl.Name, d.Include, err)
			}
		}
	}
	if got := (Policy{}).Decide(bare).Why; !strings.Contains(got, "presumes") {
		t.Errorf("an unannotated tool's reason %q does not say the spec presumes it destructive", got)
	}
	if !(Policy{}).Misuse(ro) || (Policy{Calls: Additive}).Misuse(additive) || !(Policy{Calls: All}).Misuse(destr) ||
		!(Policy{Calls: Named, Names: []string{"rm"}}).Misuse(destr) || (Policy{Calls: Named, Names: []string{"rm"}}).Misuse(ro) {
		t.Error("Misuse: only read-only tools, all, or tools named (and allowed) may get deliberately wrong input")
	}
}
