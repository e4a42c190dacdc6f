package server

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Extensions (2026-07-28): the identifiers a server declares in its
// capabilities have a prefix and follow the _meta key rules.

var _ = Register(
	Def{
		ID: "extensions/identifier-names", Area: "extensions", Eras: Stateless,
		Title:        "extension identifiers in the server's capabilities have a prefix and follow the _meta key rules",
		Requirements: []string{"extensions.negotiation.identifier-naming"},
		Proofs:       []Proof{{Fault: "bad-extension-name", Version: spec.V20260728, Want: reports.Fail}},
		Body: func(t *T) {
			d := t.DiscoverResult()
			if d == nil {
				t.Untestable("no server/discover result to read the capabilities from")
				return
			}
			raw, _ := json.Marshal(d.Capabilities)
			var caps struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			}
			_ = json.Unmarshal(raw, &caps)
			if len(caps.Extensions) == 0 {
				t.NotApplicable("the server advertises no extensions")
				return
			}
			var names, bad []string
			for k := range caps.Extensions {
				names = append(names, k)
				if !metaPrefixedKey.MatchString(k) {
					bad = append(bad, fmt.Sprintf("%q", k))
				}
			}
			sort.Strings(names)
			sort.Strings(bad)
			t.Expect("every key of capabilities.extensions is prefix/name, like io.modelcontextprotocol/tasks")
			if len(bad) > 0 {
				t.Fail("extension identifiers with a prefix of dot-separated labels and a valid name", "not valid: "+strings.Join(bad, ", "))
				return
			}
			t.Saw("extensions %s", strings.Join(names, ", "))
			t.Pass()
		},
	},
)
