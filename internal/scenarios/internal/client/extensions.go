package client

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/reports"
)

// Extensions (2026-07-28): the identifiers a client declares in
// capabilities.extensions follow the _meta key rules, prefix required.

// extIdentifier matches a _meta key with its (here mandatory) prefix:
// dot-separated labels (a letter first, a letter or digit last, letters,
// digits and hyphens between), a slash, then a name that is empty or
// starts and ends alphanumeric with letters, digits, '-', '_' and '.'
// between. It is the rule the server suite holds servers' extension
// identifiers to (scenarios.metaPrefixedKey).
var extIdentifier = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

var _ = Register(Def{
	ID: "client/extensions/identifier-naming", Area: "extensions", Eras: StatelessEra,
	Title:        "extension identifiers the client declares in capabilities.extensions have a prefix and follow the _meta key rules",
	Requirements: []string{"extensions.negotiation.identifier-naming"},
	Proofs:       []Proof{{Fault: "extension-bad-identifier", Want: reports.Fail}},
	Body: func(t *T) {
		seen := map[string]bool{}
		n, bad := 0, 0
		for _, c := range t.Cases() {
			legacy := StatelessLegacy(c)
			for _, m := range c.Requests("") {
				if legacy(m) {
					continue
				}
				var caps struct {
					Extensions map[string]json.RawMessage `json:"extensions"`
				}
				if json.Unmarshal(metaOf(m)[mcp.MetaClientCapabilities], &caps) != nil {
					continue
				}
				keys := make([]string, 0, len(caps.Extensions))
				for k := range caps.Extensions {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					n++
					seen[k] = true
					if !extIdentifier.MatchString(k) {
						bad++
						if bad <= 10 {
							t.Fail("extension identifiers are prefix/name, like io.modelcontextprotocol/tasks (dot-separated labels, a slash, a name)",
								fmt.Sprintf("%s declares extension %q (%s)", m.Msg.Method, k, Where(c, m)))
						}
					}
				}
			}
		}
		if n == 0 {
			t.NotApplicable("the client declared no extension in its requests' clientCapabilities" + t.WhyNothing())
			return
		}
		if bad == 0 {
			names := make([]string, 0, len(seen))
			for k := range seen {
				names = append(names, k)
			}
			sort.Strings(names)
			t.Saw("extensions declared: %s", strings.Join(names, ", "))
			t.Pass()
		}
	},
})
