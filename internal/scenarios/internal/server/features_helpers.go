package server

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/harness/expect"
	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/scenarios/suite"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Helpers shared by the feature areas (tools, resources, prompts,
// completion, progress, cancellation, tasks, server-to-client requests and
// capabilities): tool lookup and calls, and walks of the feature lists.
// Peer schemas are compiled and validated by internal/harness/rules, the same way
// for both roles.

// FeatureFixture registers a fixture name of the feature areas (the
// official conformance names and mcpcheck's ref_* fixtures) and returns its
// label. It runs during package variable initialisation, before any label
// is handed out for the name.
func FeatureFixture(name string) string { return suite.AddFixture(name) }

// Tool returns the listed tool of that name, when the tool policy
// lets mcpcheck call it (fixtures go through the policy like every other
// tool: fixtureWhy says when it left one out).
func (t *T) Tool(name string) (mcp.Tool, bool) {
	tools, _ := t.Tools()
	for _, tl := range tools {
		if tl.Name == name {
			return tl, t.toolPolicy().Decide(tl).Call
		}
	}
	return mcp.Tool{}, false
}

// fixtureWhy is the untestable reason of a check that found none of the
// fixtures names it can call: why, and, when the target lists some of
// them that the tool policy left out, which and the flag that calls them.
func fixtureWhy(t *T, why string, names ...string) string {
	tools, _ := t.Tools()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var left []string
	var flag string
	for _, tl := range tools {
		if !want[tl.Name] {
			continue
		}
		if d := t.toolPolicy().Decide(tl); !d.Call {
			left = append(left, tl.Name)
			flag = d.Include
		}
	}
	if len(left) == 0 {
		return why
	}
	if len(left) > 1 {
		with := ToolPolicy{Calls: t.toolPolicy().Tier(), Names: append(append([]string(nil), t.toolPolicy().Names...), left...)}
		flag = with.String()
	}
	return fmt.Sprintf("%s (the target lists %s, which the tool policy %s does not call: not annotated readOnlyHint: true; --call-tools %s calls %s, on a disposable instance)",
		why, strings.Join(left, ", "), t.toolPolicy().Tier(), flag, plural(len(left), "it", "them"))
}

// toolRefused ends the check untestable when the target lists a tool of
// that name that the tool policy does not let mcpcheck call, and reports
// whether it did (a name the target does not list is not refused: calling
// it shows how the server answers an unknown tool).
func toolRefused(t *T, name string) bool {
	tools, _ := t.Tools()
	for _, tl := range tools {
		if tl.Name != name {
			continue
		}
		if d := t.toolPolicy().Decide(tl); !d.Call {
			t.Untestable(fmt.Sprintf("the fixture %s is not called by the tool policy %s: %s; --call-tools %s calls it (on a disposable instance)", name, t.toolPolicy().Tier(), d.Why, d.Include))
			return true
		}
	}
	return false
}

// featuresFirstTool returns the first listed tool among names (fixtures in
// order of preference).
func featuresFirstTool(t *T, names ...string) (mcp.Tool, bool) {
	for _, n := range names {
		if tl, ok := t.Tool(n); ok {
			return tl, true
		}
	}
	return mcp.Tool{}, false
}

// Walk lists every page of a list method (bounded) and returns the
// items of member, raw.
func (t *T) Walk(s Sess, method, member string) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for page := 0; page < maxPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		r := s.Call(t.Ctx, method, params)
		if !r.OK() {
			return all, &listFailure{method: method, r: r}
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.Result, &m); err != nil {
			return all, fmt.Errorf("%s: result is not an object", method)
		}
		var items []json.RawMessage
		_ = json.Unmarshal(m[member], &items)
		all = append(all, items...)
		var next string
		if json.Unmarshal(m["nextCursor"], &next) != nil || next == "" {
			return all, nil
		}
		cursor = next
	}
	return all, fmt.Errorf("%s: still had a nextCursor after %d pages", method, maxPages)
}

// featuresNames extracts the key member (name, uri, uriTemplate) of items.
func featuresNames(items []json.RawMessage, key string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(it, &m)
		var s string
		_ = json.Unmarshal(m[key], &s)
		out = append(out, s)
	}
	return out
}

// CallTool calls a tool with raw arguments and returns the reply.
func (t *T) CallTool(s Sess, name string, args json.RawMessage, meta map[string]any) session.Reply {
	p := map[string]any{"name": name}
	if len(args) > 0 {
		p["arguments"] = args
	}
	if meta != nil {
		p["_meta"] = meta
	}
	return s.Call(t.Ctx, spec.MethodToolsCall, p)
}

// featuresCallTracked calls a tool black-box with a fresh progressToken, so
// any progress the tool reports is judged by progress/observed.
func featuresCallTracked(t *T, s Sess, name string, args json.RawMessage) session.Reply {
	tok := progressToken()
	r := t.CallTool(s, name, args, map[string]any{"progressToken": tok})
	progressRequests.Store(tok, r.ID.String())
	return r
}

// featuresIsError reports whether a tools/call result has isError true.
func featuresIsError(raw json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.IsError
}

// featuresFrames are the frames a reply saw: the others, then the answer.
func featuresFrames(r session.Reply) []wire.Frame {
	out := append([]wire.Frame(nil), r.Observed.Others...)
	for _, rr := range r.Rounds {
		out = append(out, rr.Observed.Others...)
	}
	return out
}

// featuresNotifs returns the notifications of method among frames.
func featuresNotifs(fs []wire.Frame, method string) []wire.Frame {
	var out []wire.Frame
	for _, f := range fs {
		if f.Kind == wire.KindMessage && f.Msg.Method == method && f.Msg.ID.IsZero() {
			out = append(out, f)
		}
	}
	return out
}

// featuresListChanged runs ref_change_lists twice (add, then remove the
// dynamic item of kind, so the lists end as they began) and judges whether
// the announcement notification arrived each time.
func featuresListChanged(t *T, kind, capPath, method string) {
	if !t.RequireCapability(capPath) {
		return
	}
	if _, ok := t.RequireTool("ref_change_lists"); !ok {
		return
	}
	c := t.Session()
	s := c.Stateful
	if !t.Stdio() {
		// On streamable HTTP list changes arrive on the GET stream.
		if _, err := s.OpenStream(t.Ctx); err != nil {
			t.Saw("the GET stream could not be opened: %v", err)
		}
		t.Taint()
	}
	for round := 0; round < 2; round++ {
		r := t.CallTool(s, "ref_change_lists", json.RawMessage(fmt.Sprintf(`{"kind":%q}`, kind)), nil)
		if !r.OK() || featuresIsError(r.Result) {
			t.Untestable("ref_change_lists did not change the list: " + r.Describe())
			return
		}
		if len(featuresNotifs(featuresFrames(r), method)) > 0 {
			continue
		}
		obs := s.WaitFor(t.Ctx, expect.Options{Timeout: t.StepTimeout()}, expect.Notification(method, nil))
		if !obs.OK() {
			t.Fail(fmt.Sprintf("%s after ref_change_lists changed the %s list (listChanged is declared)", method, kind), obs.Actual)
			return
		}
	}
	t.Saw("%s arrived after each of two changes", method)
	t.Pass()
}

// featuresSameList judges two listings of the same method: the same set
// (no-connection-dependence) and, when order is set, the same order.
func featuresSameList(a, b []string) (sameSet, sameOrder bool) {
	sameOrder = len(a) == len(b)
	for i := range a {
		if !sameOrder || a[i] != b[i] {
			sameOrder = false
			break
		}
	}
	x := append([]string(nil), a...)
	y := append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	sameSet = len(x) == len(y)
	for i := range x {
		if sameSet && x[i] != y[i] {
			sameSet = false
		}
	}
	return sameSet, sameOrder
}

// featuresListStable is the 2026-07-28 list check shared by tools, prompts
// and resources: the list is answered (current-set), a second connection
// gets the same set after the first made other requests
// (no-connection-dependence), and, for tools, the order repeats.
func featuresListStable(t *T, capPath, method, member, key, currentReq, connReq, orderReq string) {
	if !t.RequireCapability(capPath) {
		return
	}
	c := t.Session()
	first, err := t.Walk(c.S(), method, member)
	if err != nil {
		t.Violation(currentReq, method+" is answered with the current list", err.Error())
		return
	}
	a := featuresNames(first, key)
	again, err := t.Walk(c.S(), method, member)
	if err != nil {
		t.Violation(currentReq, method+" is answered again", err.Error())
		return
	}
	b := featuresNames(again, key)
	other := t.Fresh()
	if _, _, err := other.Stateless.Discover(t.Ctx); err != nil {
		t.Saw("server/discover on a second connection: %v", err)
	}
	third, err := t.Walk(other.S(), method, member)
	if err != nil {
		t.Violation(connReq, method+" is answered the same on a second connection", err.Error())
		return
	}
	cc := featuresNames(third, key)
	if set, order := featuresSameList(a, b); !set {
		t.Violation(connReq, method+" gives the same set when asked twice", fmt.Sprintf("%v, then %v", a, b))
	} else if !order && orderReq != "" {
		t.Violation(orderReq, method+" repeats the same order while the set is unchanged", fmt.Sprintf("%v, then %v", a, b))
	}
	if set, _ := featuresSameList(a, cc); !set {
		t.Violation(connReq, method+" gives the same set whichever connection asks", fmt.Sprintf("first connection %v, second %v", a, cc))
	}
	if t.Open() {
		t.Saw("%s: %d items, the same on both connections", method, len(a))
		t.Pass()
	}
}
