package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// What a 2026-07-28 server says about itself and how it treats what the
// client says about itself: the self-reported clientInfo is informational
// only (extension identifiers: extensions.go).

// metaPrefixedKey matches a _meta key with a prefix: dot-separated labels
// (a letter first, a letter or digit last, letters, digits and hyphens
// between), a slash, and a name that is empty or starts and ends with an
// alphanumeric, with hyphens, underscores, dots and alphanumerics between.
var metaPrefixedKey = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// infoAltClient is the second identity the neutrality check presents.
var infoAltClient = mcp.Implementation{Name: "example-desktop-client", Version: "9.9.9"}

// infoView is what a client sees of a server for one clientInfo: the
// capabilities it declares and the names of the tools, prompts and
// resources it lists (first pages, up to 10 each).
type infoView struct {
	caps  string
	lists map[string][]string
}

// infoLook fetches the view under a clientInfo (nil: the session's own).
func infoLook(t *T, c *Conn, info *mcp.Implementation) (infoView, error) {
	v := infoView{lists: map[string][]string{}}
	withInfo := func(p map[string]any) map[string]any {
		if info != nil {
			p["_meta"] = map[string]any{mcp.MetaClientInfo: info}
		}
		return p
	}
	r := c.S().Call(t.Ctx, spec.MethodServerDiscover, withInfo(map[string]any{}))
	if !r.OK() {
		return v, fmt.Errorf("server/discover: %s", r.Describe())
	}
	var d struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(r.Result, &d)
	v.caps = canonicalJSON(d.Capabilities)
	for _, l := range []struct{ capPath, method, member, key string }{
		{"tools", spec.MethodToolsList, "tools", "name"},
		{"prompts", spec.MethodPromptsList, "prompts", "name"},
		{"resources", spec.MethodResourcesList, "resources", "uri"},
	} {
		if !t.HasCapability(l.capPath) {
			continue
		}
		var cursor *string
		for page := 0; page < 10; page++ {
			p := map[string]any{}
			if cursor != nil {
				p["cursor"] = *cursor
			}
			r := c.S().Call(t.Ctx, l.method, withInfo(p))
			if !r.OK() {
				return v, fmt.Errorf("%s: %s", l.method, r.Describe())
			}
			var res map[string]json.RawMessage
			_ = json.Unmarshal(r.Result, &res)
			// Only the key of each item, not the item as a map: a list of
			// 200,000 tools decoded as maps costs about 100 MB.
			var items []struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			}
			_ = json.Unmarshal(res[l.member], &items)
			for _, it := range items {
				if l.key == "uri" {
					v.lists[l.method] = append(v.lists[l.method], it.URI)
				} else {
					v.lists[l.method] = append(v.lists[l.method], it.Name)
				}
			}
			var next string
			if json.Unmarshal(res["nextCursor"], &next) != nil || next == "" {
				break
			}
			cursor = &next
		}
		sort.Strings(v.lists[l.method])
	}
	return v, nil
}

// canonicalJSON re-encodes raw with sorted keys ("" for nothing).
func canonicalJSON(raw json.RawMessage) string {
	var x any
	if len(raw) == 0 || json.Unmarshal(raw, &x) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

var _ = Register(
	Def{
		ID: "base/client-info-neutral", Area: "base", Eras: Stateless,
		Title:        "the server offers the same capabilities and lists whatever name the client reports in clientInfo",
		Requirements: []string{"base.meta.implementation-info-no-behaviour-change"},
		Proofs:       []Proof{{Fault: "client-info-dependent", Version: spec.V20260728, Want: reports.Warn}},
		Body: func(t *T) {
			c := t.Session()
			own, err := infoLook(t, c, nil)
			if err != nil {
				t.Untestable("could not take the first view: " + err.Error())
				return
			}
			alt, err := infoLook(t, c, &infoAltClient)
			if err != nil {
				t.Untestable(fmt.Sprintf("could not take the view as %s: %s", infoAltClient.Name, err))
				return
			}
			t.Expect("server/discover capabilities and the tools, prompts and resources listed are the same whether clientInfo names mcpcheck or %s", infoAltClient.Name)
			var diffs []string
			if own.caps != alt.caps {
				diffs = append(diffs, fmt.Sprintf("capabilities %s vs %s", Clip(json.RawMessage(own.caps)), Clip(json.RawMessage(alt.caps))))
			}
			for _, m := range []string{spec.MethodToolsList, spec.MethodPromptsList, spec.MethodResourcesList} {
				a, b := strings.Join(own.lists[m], ", "), strings.Join(alt.lists[m], ", ")
				if a != b {
					diffs = append(diffs, fmt.Sprintf("%s [%s] vs [%s]", m, a, b))
				}
			}
			if len(diffs) > 0 {
				t.Fail("the same offer for every self-reported client name", "as mcpcheck vs as "+infoAltClient.Name+": "+strings.Join(diffs, "; "))
				return
			}
			t.Saw("the same capabilities and lists (%d tools, %d prompts, %d resources) under both names", len(own.lists[spec.MethodToolsList]), len(own.lists[spec.MethodPromptsList]), len(own.lists[spec.MethodResourcesList]))
			t.Pass()
		},
	},
)

// implementationInfo reports whether raw is an Implementation object with
// name and version strings. The schema asks for strings, not non-empty
// ones: an empty version is allowed.
func implementationInfo(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for _, k := range []string{"name", "version"} {
		var s string
		if json.Unmarshal(m[k], &s) != nil {
			return false
		}
	}
	return true
}
